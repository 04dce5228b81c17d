-- statebox retail domain: an online store's customer-service backend.
-- Money is REAL dollars rounded to cents; booleans are INTEGER 0/1; dates are ISO text
-- (YYYY-MM-DD), timestamps ISO 8601 with offset.

CREATE TABLE customers (
    id          TEXT PRIMARY KEY,              -- 'CUS-0001'
    first_name  TEXT NOT NULL,
    last_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    phone       TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('active', 'suspended'))
);

CREATE TABLE memberships (
    customer_id     TEXT PRIMARY KEY REFERENCES customers(id),
    tier            TEXT NOT NULL CHECK (tier IN ('basic', 'plus', 'premium')),
    points_balance  INTEGER NOT NULL CHECK (points_balance >= 0),
    member_since    TEXT NOT NULL,
    tier_changed_at TEXT,
    tier_change_reason TEXT
);

CREATE TABLE points_ledger (
    id          TEXT PRIMARY KEY,              -- 'PTS-00001'
    customer_id TEXT NOT NULL REFERENCES customers(id),
    delta       INTEGER NOT NULL,
    reason      TEXT NOT NULL,
    order_id    TEXT,
    created_at  TEXT NOT NULL
);

CREATE TABLE addresses (
    id          TEXT PRIMARY KEY,              -- 'ADR-0001'
    customer_id TEXT NOT NULL REFERENCES customers(id),
    label       TEXT NOT NULL,
    line1       TEXT NOT NULL,
    line2       TEXT NOT NULL DEFAULT '',
    city        TEXT NOT NULL,
    state       TEXT NOT NULL,
    postal_code TEXT NOT NULL,
    country     TEXT NOT NULL DEFAULT 'US',
    is_default  INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1))
);

CREATE TABLE products (
    id              TEXT PRIMARY KEY,          -- 'PRD-0001'
    name            TEXT NOT NULL,
    category        TEXT NOT NULL,
    price           REAL NOT NULL CHECK (price >= 0),
    warranty_months INTEGER NOT NULL DEFAULT 0,
    returnable      INTEGER NOT NULL DEFAULT 1 CHECK (returnable IN (0, 1))
);

CREATE TABLE inventory (
    product_id TEXT PRIMARY KEY REFERENCES products(id),
    on_hand    INTEGER NOT NULL CHECK (on_hand >= 0),
    reserved   INTEGER NOT NULL CHECK (reserved >= 0)
);

CREATE TABLE orders (
    id                  TEXT PRIMARY KEY,      -- 'ORD-10000001'
    customer_id         TEXT NOT NULL REFERENCES customers(id),
    status              TEXT NOT NULL
        CHECK (status IN ('pending', 'processing', 'shipped', 'delivered', 'cancelled')),
    placed_at           TEXT NOT NULL,
    shipping_address_id TEXT NOT NULL REFERENCES addresses(id),
    subtotal            REAL NOT NULL,
    discount            REAL NOT NULL DEFAULT 0,
    shipping_fee        REAL NOT NULL DEFAULT 0,
    total               REAL NOT NULL,
    coupon_code         TEXT,
    replacement_for     TEXT REFERENCES orders(id),
    replacement_reason  TEXT,
    cancel_reason       TEXT,
    cancelled_at        TEXT
);

CREATE TABLE order_items (
    id           TEXT PRIMARY KEY,             -- 'OI-10000001-1'
    order_id     TEXT NOT NULL REFERENCES orders(id),
    product_id   TEXT NOT NULL REFERENCES products(id),
    quantity     INTEGER NOT NULL CHECK (quantity > 0),
    unit_price   REAL NOT NULL,
    returned_qty INTEGER NOT NULL DEFAULT 0 CHECK (returned_qty >= 0),
    serial_number TEXT                         -- serial-tracked items only, else NULL
);

CREATE TABLE shipments (
    id                 TEXT PRIMARY KEY,       -- 'SHP-10000001'
    order_id           TEXT NOT NULL REFERENCES orders(id),
    carrier            TEXT NOT NULL,
    tracking_number    TEXT NOT NULL,
    status             TEXT NOT NULL
        CHECK (status IN ('label_created', 'in_transit', 'delivered', 'exception', 'lost')),
    shipped_at         TEXT,
    estimated_delivery TEXT,
    delivered_at       TEXT
);

CREATE TABLE tracking_events (
    id          TEXT PRIMARY KEY,              -- 'EVT-10000001-1'
    shipment_id TEXT NOT NULL REFERENCES shipments(id),
    occurred_at TEXT NOT NULL,
    code        TEXT NOT NULL,
    location    TEXT NOT NULL,
    description TEXT NOT NULL
);

CREATE TABLE carrier_exceptions (
    id          TEXT PRIMARY KEY,              -- 'EXC-0001'
    shipment_id TEXT NOT NULL REFERENCES shipments(id),
    kind        TEXT NOT NULL CHECK (kind IN ('delay', 'damaged', 'lost', 'address_issue')),
    status      TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    resolution  TEXT CHECK (resolution IN ('delivered', 'lost', 'returned_to_sender')),
    opened_at   TEXT NOT NULL,
    resolved_at TEXT
);

CREATE TABLE payments (
    id         TEXT PRIMARY KEY,               -- 'PAY-10000001'
    order_id   TEXT NOT NULL REFERENCES orders(id),
    method     TEXT NOT NULL CHECK (method IN ('card', 'paypal', 'gift_card')),
    amount     REAL NOT NULL CHECK (amount >= 0),
    status     TEXT NOT NULL CHECK (status IN ('authorized', 'captured', 'voided')),
    created_at TEXT NOT NULL,
    card_expires TEXT                          -- 'YYYY-MM' for cards on file, else NULL
);

CREATE TABLE refunds (
    id         TEXT PRIMARY KEY,               -- 'RFD-00001'
    order_id   TEXT NOT NULL REFERENCES orders(id),
    payment_id TEXT NOT NULL REFERENCES payments(id),
    amount     REAL NOT NULL CHECK (amount > 0),
    reason     TEXT NOT NULL,
    rma_id     TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE store_credits (
    id          TEXT PRIMARY KEY,              -- 'SC-00001'
    customer_id TEXT NOT NULL REFERENCES customers(id),
    amount      REAL NOT NULL,
    reason      TEXT NOT NULL,
    order_id    TEXT,
    created_at  TEXT NOT NULL
);

CREATE TABLE returns (
    id          TEXT PRIMARY KEY,              -- 'RMA-00001'
    order_id    TEXT NOT NULL REFERENCES orders(id),
    customer_id TEXT NOT NULL REFERENCES customers(id),
    status      TEXT NOT NULL CHECK (status IN ('requested', 'approved', 'rejected')),
    reason      TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    decided_at  TEXT,
    reject_reason TEXT,
    serial_checked INTEGER NOT NULL DEFAULT 0 CHECK (serial_checked IN (0, 1))
);

CREATE TABLE return_items (
    rma_id        TEXT NOT NULL REFERENCES returns(id),
    order_item_id TEXT NOT NULL REFERENCES order_items(id),
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (rma_id, order_item_id)
);

CREATE TABLE warranties (
    id            TEXT PRIMARY KEY,            -- 'WAR-0001'
    customer_id   TEXT NOT NULL REFERENCES customers(id),
    order_item_id TEXT NOT NULL REFERENCES order_items(id),
    plan          TEXT NOT NULL CHECK (plan IN ('standard', 'extended')),
    starts_on     TEXT NOT NULL,
    expires_on    TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('active', 'void'))
);

CREATE TABLE warranty_claims (
    id          TEXT PRIMARY KEY,              -- 'WCL-00001'
    warranty_id TEXT NOT NULL REFERENCES warranties(id),
    issue       TEXT NOT NULL,
    resolution  TEXT NOT NULL CHECK (resolution IN ('repair', 'replace')),
    status      TEXT NOT NULL CHECK (status IN ('submitted', 'approved', 'denied', 'completed')),
    description TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);

CREATE TABLE promotions (
    code          TEXT PRIMARY KEY,            -- 'FALL15'
    description   TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('percent', 'fixed')),
    value         REAL NOT NULL,
    min_subtotal  REAL NOT NULL DEFAULT 0,
    tier_required TEXT CHECK (tier_required IN ('plus', 'premium')),
    starts_on     TEXT NOT NULL,
    ends_on       TEXT NOT NULL,
    active        INTEGER NOT NULL CHECK (active IN (0, 1))
);

CREATE TABLE tickets (
    id           TEXT PRIMARY KEY,             -- '20'
    customer_id  TEXT NOT NULL REFERENCES customers(id),
    order_id     TEXT REFERENCES orders(id),
    subject      TEXT NOT NULL,
    category     TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('open', 'pending', 'hold', 'solved', 'closed')),
    priority     TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
    team         TEXT NOT NULL CHECK (team IN ('tier1', 'tier2', 'billing', 'warehouse')),
    hold_reason  TEXT,
    escalation_reason TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);

CREATE TABLE ticket_comments (
    id         TEXT PRIMARY KEY,               -- 'CMT-00001'
    ticket_id  TEXT NOT NULL REFERENCES tickets(id),
    author     TEXT NOT NULL CHECK (author IN ('customer', 'agent', 'system')),
    public     INTEGER NOT NULL CHECK (public IN (0, 1)),
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
