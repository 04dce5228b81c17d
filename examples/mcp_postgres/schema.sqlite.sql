-- The shop of schema.postgres.sql in a SQLite file. Declared types tell statebox how
-- to read values (UUID, JSON, BOOLEAN, NUMERIC, TIMESTAMPTZ), so the same logical rows
-- give the same canonical state on both kinds.
CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    external_id UUID NOT NULL UNIQUE,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    address JSON NOT NULL,
    tags JSON NOT NULL DEFAULT '[]',
    vip BOOLEAN NOT NULL DEFAULT 0
);

CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id),
    status TEXT NOT NULL CHECK (status IN ('placed', 'shipped', 'delivered', 'cancelled')),
    total NUMERIC NOT NULL CHECK (total >= 0),
    placed_at TIMESTAMPTZ NOT NULL,
    shipping JSON NOT NULL,
    updated_at TIMESTAMPTZ
);

CREATE TABLE refunds (
    id INTEGER PRIMARY KEY,
    order_id INTEGER NOT NULL REFERENCES orders (id),
    amount NUMERIC NOT NULL CHECK (amount > 0),
    reason TEXT NOT NULL CHECK (reason IN ('damaged', 'late', 'changed_mind', 'other')),
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    order_id INTEGER NOT NULL REFERENCES orders (id),
    body TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
