-- statebox neobank_it domain: a digital bank's internal IT support backend.
-- Money is REAL dollars rounded to cents; booleans are INTEGER 0/1; dates are ISO text
-- (YYYY-MM-DD), timestamps ISO 8601 with offset. Every person is synthetic.

CREATE TABLE departments (
    id          TEXT PRIMARY KEY,              -- 'DEP-ENG'
    name        TEXT NOT NULL,
    head_id     TEXT,                          -- employees.id of the department head
    cost_center TEXT NOT NULL
);

CREATE TABLE employees (
    id              TEXT PRIMARY KEY,          -- 'EMP-0001'
    first_name      TEXT NOT NULL,
    last_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    department_id   TEXT NOT NULL REFERENCES departments(id),
    manager_id      TEXT REFERENCES employees(id),
    title           TEXT NOT NULL,
    level           TEXT NOT NULL CHECK (level IN ('staff', 'manager', 'director', 'executive')),
    employment_type TEXT NOT NULL CHECK (employment_type IN ('employee', 'contractor')),
    status          TEXT NOT NULL CHECK (status IN ('active', 'on_leave', 'terminated')),
    start_date      TEXT NOT NULL,
    end_date        TEXT                       -- contract end or termination date
);

CREATE TABLE accounts (
    employee_id          TEXT PRIMARY KEY REFERENCES employees(id),
    username             TEXT NOT NULL UNIQUE,
    sso_status           TEXT NOT NULL CHECK (sso_status IN ('active', 'locked', 'disabled')),
    lock_reason          TEXT CHECK (lock_reason IN ('failed_logins', 'security_hold')),
    mfa_enrolled         INTEGER NOT NULL CHECK (mfa_enrolled IN (0, 1)),
    must_reset_password  INTEGER NOT NULL DEFAULT 0 CHECK (must_reset_password IN (0, 1)),
    updated_at           TEXT NOT NULL
);

CREATE TABLE devices (
    id           TEXT PRIMARY KEY,             -- 'DEV-0001'
    employee_id  TEXT REFERENCES employees(id),
    kind         TEXT NOT NULL CHECK (kind IN ('laptop', 'phone', 'monitor')),
    model        TEXT NOT NULL,
    serial       TEXT NOT NULL UNIQUE,
    assigned_on  TEXT NOT NULL,
    encrypted    INTEGER NOT NULL CHECK (encrypted IN (0, 1)),
    status       TEXT NOT NULL CHECK (status IN ('in_use', 'lost', 'wiped', 'returned')),
    updated_at   TEXT
);

CREATE TABLE systems (
    id              TEXT PRIMARY KEY,          -- 'SYS-CRM'
    name            TEXT NOT NULL,
    owner_id        TEXT NOT NULL REFERENCES employees(id),
    data_class      TEXT NOT NULL CHECK (data_class IN ('internal', 'confidential', 'restricted')),
    approval_policy TEXT NOT NULL CHECK (approval_policy IN ('manager', 'manager_and_owner')),
    max_grant_days  INTEGER NOT NULL,
    conflicts_with  TEXT                       -- systems.id that may not be held together
);

CREATE TABLE access_requests (
    id              TEXT PRIMARY KEY,          -- 'AR-00001'
    employee_id     TEXT NOT NULL REFERENCES employees(id),
    system_id       TEXT NOT NULL REFERENCES systems(id),
    role            TEXT NOT NULL CHECK (role IN ('read', 'write', 'admin')),
    requested_days  INTEGER NOT NULL,
    justification   TEXT NOT NULL,
    status          TEXT NOT NULL
        CHECK (status IN ('pending', 'provisioned', 'rejected', 'cancelled')),
    decision_reason TEXT,
    created_at      TEXT NOT NULL,
    decided_at      TEXT
);

CREATE TABLE approvals (
    id            TEXT PRIMARY KEY,            -- 'APV-00001'
    request_id    TEXT NOT NULL REFERENCES access_requests(id),
    approver_id   TEXT NOT NULL REFERENCES employees(id),
    approver_role TEXT NOT NULL CHECK (approver_role IN ('manager', 'owner', 'security')),
    decision      TEXT NOT NULL CHECK (decision IN ('approved', 'rejected')),
    decided_at    TEXT NOT NULL
);

CREATE TABLE access_grants (
    id            TEXT PRIMARY KEY,            -- 'GR-00001'
    employee_id   TEXT NOT NULL REFERENCES employees(id),
    system_id     TEXT NOT NULL REFERENCES systems(id),
    role          TEXT NOT NULL CHECK (role IN ('read', 'write', 'admin')),
    request_id    TEXT,
    granted_on    TEXT NOT NULL,
    expires_on    TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
    revoke_reason TEXT,
    revoked_at    TEXT
);

CREATE TABLE licence_pools (
    id                TEXT PRIMARY KEY,        -- 'LIC-FIGMA'
    product           TEXT NOT NULL,
    seats_total       INTEGER NOT NULL CHECK (seats_total >= 0),
    cost_per_seat_usd REAL NOT NULL,
    requires_approval INTEGER NOT NULL CHECK (requires_approval IN (0, 1))
);

CREATE TABLE licence_allocations (
    id           TEXT PRIMARY KEY,             -- 'LA-00001'
    pool_id      TEXT NOT NULL REFERENCES licence_pools(id),
    employee_id  TEXT NOT NULL REFERENCES employees(id),
    allocated_on TEXT NOT NULL,
    last_used_on TEXT,
    status       TEXT NOT NULL CHECK (status IN ('active', 'released')),
    released_on  TEXT
);

CREATE TABLE hardware_catalog (
    id           TEXT PRIMARY KEY,             -- 'HW-LAP-STD'
    name         TEXT NOT NULL,
    category     TEXT NOT NULL CHECK (category IN ('laptop', 'monitor', 'peripheral', 'phone')),
    price_usd    REAL NOT NULL
);

CREATE TABLE hardware_orders (
    id          TEXT PRIMARY KEY,              -- 'HO-00001'
    employee_id TEXT NOT NULL REFERENCES employees(id),
    catalog_id  TEXT NOT NULL REFERENCES hardware_catalog(id),
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    total_usd   REAL NOT NULL,
    reason      TEXT NOT NULL CHECK (reason IN ('refresh', 'damage_replacement', 'new_need')),
    status      TEXT NOT NULL
        CHECK (status IN ('pending_approval', 'approved', 'ordered', 'delivered', 'cancelled')),
    cancel_reason TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE security_incidents (
    id          TEXT PRIMARY KEY,              -- 'INC-00001'
    reporter_id TEXT NOT NULL REFERENCES employees(id),
    category    TEXT NOT NULL
        CHECK (category IN ('phishing', 'lost_device', 'malware', 'account_compromise', 'data_leak')),
    severity    TEXT NOT NULL CHECK (severity IN ('low', 'medium', 'high', 'critical')),
    device_id   TEXT,
    status      TEXT NOT NULL CHECK (status IN ('open', 'contained', 'closed')),
    description TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE notifications (
    id           TEXT PRIMARY KEY,             -- 'NTF-00001'
    recipient    TEXT NOT NULL,                -- an email address
    template     TEXT NOT NULL,
    related_id   TEXT,
    body         TEXT NOT NULL,
    sent_at      TEXT NOT NULL
);

CREATE TABLE tickets (
    id                TEXT PRIMARY KEY,        -- 'TCK-00001'
    employee_id       TEXT NOT NULL REFERENCES employees(id),
    category          TEXT NOT NULL
        CHECK (category IN ('access', 'hardware', 'software', 'account', 'security', 'licence')),
    subject           TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('open', 'pending', 'hold', 'solved', 'closed')),
    priority          TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
    team              TEXT NOT NULL
        CHECK (team IN ('service_desk', 'iam', 'field_services', 'security', 'procurement')),
    hold_reason       TEXT,
    escalation_reason TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);
