-- statebox auto insurance domain: a personal auto insurer's service backend.
-- Money is REAL dollars rounded to cents; deductibles are INTEGER dollars; booleans are
-- INTEGER 0/1; dates are ISO text (YYYY-MM-DD), timestamps ISO 8601 with offset.

CREATE TABLE customers (
    id             TEXT PRIMARY KEY,             -- 'CUS-1001'
    first_name     TEXT NOT NULL,
    last_name      TEXT NOT NULL,
    email          TEXT NOT NULL UNIQUE,
    phone          TEXT NOT NULL,
    date_of_birth  TEXT NOT NULL,
    zip_code       TEXT NOT NULL,
    customer_since TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('active', 'inactive'))
);

CREATE TABLE verification_events (
    id          TEXT PRIMARY KEY,                -- 'VER-00001'
    customer_id TEXT REFERENCES customers(id),
    policy_id   TEXT NOT NULL,
    method      TEXT NOT NULL CHECK (method IN ('policy_dob_zip')),
    result      TEXT NOT NULL CHECK (result IN ('passed', 'failed')),
    created_at  TEXT NOT NULL
);

CREATE TABLE policies (
    id             TEXT PRIMARY KEY,             -- 'POL-300001'
    customer_id    TEXT NOT NULL REFERENCES customers(id),
    status         TEXT NOT NULL
        CHECK (status IN ('active', 'pending_cancellation', 'cancelled')),
    term_start     TEXT NOT NULL,
    term_end       TEXT NOT NULL,
    state          TEXT NOT NULL,
    premium_annual REAL NOT NULL CHECK (premium_annual >= 0)
);

CREATE TABLE vehicles (
    id         TEXT PRIMARY KEY,                 -- 'VEH-0001'
    policy_id  TEXT NOT NULL REFERENCES policies(id),
    vin        TEXT NOT NULL,
    year       INTEGER NOT NULL,
    make       TEXT NOT NULL,
    model      TEXT NOT NULL,
    usage      TEXT NOT NULL CHECK (usage IN ('commute', 'pleasure', 'business')),
    lienholder TEXT,
    status     TEXT NOT NULL CHECK (status IN ('active', 'removed')),
    added_on   TEXT NOT NULL,
    removed_on TEXT
);

CREATE TABLE drivers (
    id               TEXT PRIMARY KEY,           -- 'DRV-0001'
    policy_id        TEXT NOT NULL REFERENCES policies(id),
    first_name       TEXT NOT NULL,
    last_name        TEXT NOT NULL,
    date_of_birth    TEXT NOT NULL,
    license_number   TEXT NOT NULL,
    relationship     TEXT NOT NULL
        CHECK (relationship IN ('named_insured', 'spouse', 'child', 'other')),
    accidents_3y     INTEGER NOT NULL CHECK (accidents_3y >= 0),
    violations_3y    INTEGER NOT NULL CHECK (violations_3y >= 0),
    surcharge_annual REAL NOT NULL DEFAULT 0,
    status           TEXT NOT NULL CHECK (status IN ('active', 'removed')),
    added_on         TEXT NOT NULL,
    removed_on       TEXT
);

CREATE TABLE coverages (
    id             TEXT PRIMARY KEY,             -- 'COV-00001'
    policy_id      TEXT NOT NULL REFERENCES policies(id),
    vehicle_id     TEXT NOT NULL REFERENCES vehicles(id),
    kind           TEXT NOT NULL CHECK (kind IN
        ('liability', 'collision', 'comprehensive', 'rental', 'roadside')),
    limit_code     TEXT,                         -- liability '100/300'; rental '40/day'
    deductible     INTEGER NOT NULL DEFAULT 0,
    premium_annual REAL NOT NULL CHECK (premium_annual >= 0),
    status         TEXT NOT NULL CHECK (status IN ('active', 'removed'))
);

CREATE TABLE endorsements (
    id                    TEXT PRIMARY KEY,      -- 'END-00001'
    policy_id             TEXT NOT NULL REFERENCES policies(id),
    kind                  TEXT NOT NULL CHECK (kind IN (
        'add_vehicle', 'remove_vehicle', 'add_driver', 'remove_driver', 'add_coverage',
        'remove_coverage', 'change_deductible', 'change_liability_limit')),
    target_id             TEXT NOT NULL,
    effective_date        TEXT NOT NULL,
    premium_change_annual REAL NOT NULL,
    created_at            TEXT NOT NULL
);

CREATE TABLE cancellations (
    id             TEXT PRIMARY KEY,             -- 'CAN-00001'
    policy_id      TEXT NOT NULL REFERENCES policies(id),
    reason         TEXT NOT NULL CHECK (reason IN (
        'customer_request', 'replaced_coverage', 'vehicle_sold', 'moved_out_of_state',
        'nonpayment')),
    effective_date TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('scheduled', 'rescinded', 'completed')),
    created_at     TEXT NOT NULL,
    rescinded_at   TEXT
);

CREATE TABLE installment_plans (
    policy_id       TEXT PRIMARY KEY REFERENCES policies(id),
    plan            TEXT NOT NULL CHECK (plan IN ('pay_in_full', 'quarterly', 'monthly')),
    installment_fee REAL NOT NULL,
    autopay         INTEGER NOT NULL CHECK (autopay IN (0, 1)),
    changed_at      TEXT
);

CREATE TABLE installments (
    id                TEXT PRIMARY KEY,          -- 'INS-300001-01'
    policy_id         TEXT NOT NULL REFERENCES policies(id),
    seq               INTEGER NOT NULL,
    original_due_date TEXT NOT NULL,
    due_date          TEXT NOT NULL,
    amount            REAL NOT NULL CHECK (amount >= 0),
    status            TEXT NOT NULL CHECK (status IN ('paid', 'unpaid', 'void')),
    paid_at           TEXT
);

CREATE TABLE payment_extensions (
    id             TEXT PRIMARY KEY,             -- 'EXT-00001'
    policy_id      TEXT NOT NULL REFERENCES policies(id),
    installment_id TEXT NOT NULL REFERENCES installments(id),
    old_due_date   TEXT NOT NULL,
    new_due_date   TEXT NOT NULL,
    created_at     TEXT NOT NULL
);

CREATE TABLE fees (
    id             TEXT PRIMARY KEY,             -- 'FEE-00001'
    policy_id      TEXT NOT NULL REFERENCES policies(id),
    installment_id TEXT REFERENCES installments(id),
    kind           TEXT NOT NULL CHECK (kind IN ('late_fee', 'returned_payment_fee')),
    amount         REAL NOT NULL CHECK (amount > 0),
    status         TEXT NOT NULL CHECK (status IN ('charged', 'paid', 'waived')),
    waive_reason   TEXT CHECK (waive_reason IN
        ('first_time_courtesy', 'loyalty_courtesy', 'billing_error')),
    created_at     TEXT NOT NULL,
    resolved_at    TEXT
);

CREATE TABLE payments (
    id             TEXT PRIMARY KEY,             -- 'PMT-00001'
    policy_id      TEXT NOT NULL REFERENCES policies(id),
    installment_id TEXT REFERENCES installments(id),
    fee_id         TEXT REFERENCES fees(id),
    amount         REAL NOT NULL CHECK (amount > 0),
    method         TEXT NOT NULL CHECK (method IN ('card_on_file', 'bank_on_file')),
    created_at     TEXT NOT NULL
);

CREATE TABLE claims (
    id                   TEXT PRIMARY KEY,       -- 'CLM-00001'
    policy_id            TEXT NOT NULL REFERENCES policies(id),
    vehicle_id           TEXT NOT NULL REFERENCES vehicles(id),
    loss_date            TEXT NOT NULL,
    loss_type            TEXT NOT NULL CHECK (loss_type IN
        ('collision', 'glass', 'theft', 'vandalism', 'weather', 'animal')),
    coverage_kind        TEXT NOT NULL CHECK (coverage_kind IN ('collision', 'comprehensive')),
    injuries             INTEGER NOT NULL CHECK (injuries IN (0, 1)),
    police_report_number TEXT,
    status               TEXT NOT NULL CHECK (status IN (
        'open', 'awaiting_documents', 'under_review', 'approved', 'denied', 'closed',
        'withdrawn')),
    description          TEXT NOT NULL DEFAULT '',
    reported_at          TEXT NOT NULL,
    updated_at           TEXT NOT NULL
);

CREATE TABLE claim_documents (
    id           TEXT PRIMARY KEY,               -- 'DOC-00001'
    claim_id     TEXT NOT NULL REFERENCES claims(id),
    kind         TEXT NOT NULL CHECK (kind IN (
        'police_report', 'photos', 'repair_estimate', 'medical_records', 'proof_of_ownership')),
    status       TEXT NOT NULL CHECK (status IN ('requested', 'received')),
    requested_at TEXT NOT NULL,
    received_at  TEXT
);

CREATE TABLE crm_notes (
    id          TEXT PRIMARY KEY,                -- 'NOTE-00001'
    customer_id TEXT NOT NULL REFERENCES customers(id),
    policy_id   TEXT REFERENCES policies(id),
    category    TEXT NOT NULL CHECK (category IN (
        'verification', 'billing', 'policy_change', 'claim', 'cancellation', 'complaint')),
    body        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE tickets (
    id                TEXT PRIMARY KEY,          -- 'TCK-0001'
    customer_id       TEXT NOT NULL REFERENCES customers(id),
    policy_id         TEXT REFERENCES policies(id),
    claim_id          TEXT REFERENCES claims(id),
    category          TEXT NOT NULL CHECK (category IN ('billing', 'policy', 'claim', 'complaint')),
    subject           TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('open', 'pending', 'hold', 'solved')),
    priority          TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
    team              TEXT NOT NULL CHECK (team IN ('service', 'billing', 'claims', 'underwriting')),
    hold_reason       TEXT,
    escalation_reason TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);
