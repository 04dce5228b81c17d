-- statebox consulting_hr domain: a consulting firm's internal IT/HR service desk.
-- Money is REAL dollars rounded to cents; booleans are INTEGER 0/1; dates are ISO text
-- (YYYY-MM-DD), timestamps ISO 8601 with offset.

CREATE TABLE employees (
    id               TEXT PRIMARY KEY,          -- 'EMP-0001'
    first_name       TEXT NOT NULL,
    last_name        TEXT NOT NULL,
    email            TEXT NOT NULL UNIQUE,
    grade            TEXT NOT NULL
        CHECK (grade IN ('analyst', 'consultant', 'senior', 'manager', 'partner')),
    practice         TEXT NOT NULL,
    manager_id       TEXT REFERENCES employees(id),
    status           TEXT NOT NULL CHECK (status IN ('pre_start', 'active', 'leaving', 'left')),
    start_date       TEXT NOT NULL,
    end_date         TEXT,
    background_check TEXT NOT NULL CHECK (background_check IN ('pending', 'cleared', 'failed')),
    clearance_level  TEXT NOT NULL CHECK (clearance_level IN ('none', 'baseline', 'secret'))
);

CREATE TABLE system_accounts (
    id          TEXT PRIMARY KEY,               -- 'ACT-00001'
    employee_id TEXT NOT NULL REFERENCES employees(id),
    system      TEXT NOT NULL CHECK (system IN ('email', 'vpn', 'timesheet', 'crm')),
    status      TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    created_at  TEXT NOT NULL,
    disabled_at TEXT
);

CREATE TABLE clients (
    id                 TEXT PRIMARY KEY,        -- 'CLI-01'
    name               TEXT NOT NULL,
    site               TEXT NOT NULL,
    requires_nda       INTEGER NOT NULL CHECK (requires_nda IN (0, 1)),
    required_clearance TEXT NOT NULL CHECK (required_clearance IN ('none', 'baseline', 'secret'))
);

CREATE TABLE engagements (
    id         TEXT PRIMARY KEY,                -- 'ENG-101'
    client_id  TEXT NOT NULL REFERENCES clients(id),
    name       TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('active', 'closed')),
    lead_id    TEXT NOT NULL REFERENCES employees(id),
    start_date TEXT NOT NULL,
    end_date   TEXT NOT NULL,
    billable   INTEGER NOT NULL CHECK (billable IN (0, 1))
);

CREATE TABLE assignments (
    id            TEXT PRIMARY KEY,             -- 'ASG-00001'
    employee_id   TEXT NOT NULL REFERENCES employees(id),
    engagement_id TEXT NOT NULL REFERENCES engagements(id),
    role          TEXT NOT NULL CHECK (role IN ('analyst', 'consultant', 'lead')),
    status        TEXT NOT NULL CHECK (status IN ('active', 'ended')),
    start_date    TEXT NOT NULL,
    end_date      TEXT
);

CREATE TABLE ndas (
    id          TEXT PRIMARY KEY,               -- 'NDA-00001'
    employee_id TEXT NOT NULL REFERENCES employees(id),
    client_id   TEXT NOT NULL REFERENCES clients(id),
    envelope_id TEXT NOT NULL,
    signed_on   TEXT NOT NULL,
    expires_on  TEXT NOT NULL
);

CREATE TABLE site_access (
    id          TEXT PRIMARY KEY,               -- 'SAC-00001'
    employee_id TEXT NOT NULL REFERENCES employees(id),
    client_id   TEXT NOT NULL REFERENCES clients(id),
    status      TEXT NOT NULL CHECK (status IN ('active', 'revoked', 'expired')),
    granted_on  TEXT NOT NULL,
    expires_on  TEXT NOT NULL,
    revoked_on  TEXT
);

CREATE TABLE expense_limits (
    category          TEXT PRIMARY KEY,
    limit_amount      REAL NOT NULL CHECK (limit_amount > 0),
    receipt_over      REAL NOT NULL CHECK (receipt_over >= 0)
);

CREATE TABLE expense_claims (
    id            TEXT PRIMARY KEY,             -- 'EXP-00001'
    employee_id   TEXT NOT NULL REFERENCES employees(id),
    engagement_id TEXT REFERENCES engagements(id),
    category      TEXT NOT NULL REFERENCES expense_limits(category),
    amount        REAL NOT NULL CHECK (amount > 0),
    incurred_on   TEXT NOT NULL,
    receipt       INTEGER NOT NULL CHECK (receipt IN (0, 1)),
    description   TEXT NOT NULL,
    status        TEXT NOT NULL
        CHECK (status IN ('submitted', 'approved', 'rejected', 'on_hold', 'paid')),
    decision_reason TEXT,
    submitted_at  TEXT NOT NULL,
    decided_at    TEXT
);

CREATE TABLE courses (
    id              TEXT PRIMARY KEY,           -- 'CRS-101'
    title           TEXT NOT NULL,
    cost            REAL NOT NULL CHECK (cost >= 0),
    starts_on       TEXT NOT NULL,
    seats           INTEGER NOT NULL CHECK (seats > 0),
    prerequisite_id TEXT REFERENCES courses(id)
);

CREATE TABLE enrolments (
    id          TEXT PRIMARY KEY,               -- 'ENR-00001'
    employee_id TEXT NOT NULL REFERENCES employees(id),
    course_id   TEXT NOT NULL REFERENCES courses(id),
    status      TEXT NOT NULL
        CHECK (status IN ('enrolled', 'waitlisted', 'cancelled', 'completed')),
    cost        REAL NOT NULL CHECK (cost >= 0),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE software (
    id           TEXT PRIMARY KEY,              -- 'SW-101'
    name         TEXT NOT NULL,
    tier         TEXT NOT NULL CHECK (tier IN ('standard', 'restricted')),
    seats_total  INTEGER NOT NULL CHECK (seats_total >= 0),
    annual_cost  REAL NOT NULL CHECK (annual_cost >= 0)
);

CREATE TABLE licence_allocations (
    id          TEXT PRIMARY KEY,               -- 'LIC-00001'
    employee_id TEXT NOT NULL REFERENCES employees(id),
    software_id TEXT NOT NULL REFERENCES software(id),
    status      TEXT NOT NULL CHECK (status IN ('active', 'released')),
    assigned_at TEXT NOT NULL,
    released_at TEXT
);

CREATE TABLE equipment (
    id          TEXT PRIMARY KEY,               -- asset tag 'AST-0001'
    kind        TEXT NOT NULL CHECK (kind IN ('laptop', 'phone', 'monitor')),
    model       TEXT NOT NULL,
    status      TEXT NOT NULL
        CHECK (status IN ('in_stock', 'assigned', 'in_repair', 'lost', 'retired')),
    employee_id TEXT REFERENCES employees(id),
    assigned_on TEXT
);

CREATE TABLE travel_requests (
    id             TEXT PRIMARY KEY,            -- 'TRV-00001'
    employee_id    TEXT NOT NULL REFERENCES employees(id),
    engagement_id  TEXT NOT NULL REFERENCES engagements(id),
    destination    TEXT NOT NULL,
    international  INTEGER NOT NULL CHECK (international IN (0, 1)),
    depart_on      TEXT NOT NULL,
    return_on      TEXT NOT NULL,
    estimated_cost REAL NOT NULL CHECK (estimated_cost > 0),
    status         TEXT NOT NULL
        CHECK (status IN ('submitted', 'approved', 'escalated', 'cancelled')),
    escalation_reason TEXT,
    created_at     TEXT NOT NULL,
    decided_at     TEXT
);

CREATE TABLE tickets (
    id                TEXT PRIMARY KEY,         -- 'TKT-00001'
    employee_id       TEXT NOT NULL REFERENCES employees(id),
    category          TEXT NOT NULL CHECK (category IN
        ('onboarding', 'offboarding', 'site_access', 'expenses', 'training', 'software',
         'travel', 'equipment', 'staffing')),
    subject           TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('open', 'on_hold', 'resolved')),
    team              TEXT NOT NULL
        CHECK (team IN ('service_desk', 'hr', 'security', 'it_approvals', 'finance')),
    hold_reason       TEXT,
    escalation_reason TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);

CREATE TABLE ticket_notes (
    id         TEXT PRIMARY KEY,                -- 'TKN-00001'
    ticket_id  TEXT NOT NULL REFERENCES tickets(id),
    author     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
