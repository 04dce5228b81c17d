-- The shop's tables in PostgreSQL (the server's own dialect: uuid, jsonb, arrays,
-- numeric, timestamptz). schema.sqlite.sql is the same shop for a SQLite file.
CREATE TABLE customers (
    id integer PRIMARY KEY,
    external_id uuid NOT NULL UNIQUE,
    name text NOT NULL,
    email text NOT NULL UNIQUE,
    address jsonb NOT NULL,
    tags text[] NOT NULL DEFAULT '{}',
    vip boolean NOT NULL DEFAULT false
);

CREATE TABLE orders (
    id integer PRIMARY KEY,
    customer_id integer NOT NULL REFERENCES customers (id),
    status text NOT NULL CHECK (status IN ('placed', 'shipped', 'delivered', 'cancelled')),
    total numeric(10, 2) NOT NULL CHECK (total >= 0),
    placed_at timestamptz NOT NULL,
    shipping jsonb NOT NULL,
    updated_at timestamptz
);

CREATE TABLE refunds (
    id integer PRIMARY KEY,
    order_id integer NOT NULL REFERENCES orders (id),
    amount numeric(10, 2) NOT NULL CHECK (amount > 0),
    reason text NOT NULL CHECK (reason IN ('damaged', 'late', 'changed_mind', 'other')),
    created_at timestamptz NOT NULL
);

CREATE TABLE notes (
    id integer PRIMARY KEY,
    order_id integer NOT NULL REFERENCES orders (id),
    body text NOT NULL,
    created_at timestamptz NOT NULL
);
