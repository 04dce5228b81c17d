-- Travel & hospitality backend: bookings (flights and hotel stays), payments and
-- refunds, a hotel partner channel, CRM and loyalty, corporate accounts, tickets.
-- Money is REAL dollars rounded to cents; booleans are 0/1; timestamps are ISO strings.

CREATE TABLE hotels (
    id TEXT PRIMARY KEY,              -- 'HTL-01'
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    partner_email TEXT NOT NULL,
    stars INTEGER NOT NULL
);

CREATE TABLE corporate_accounts (
    id TEXT PRIMARY KEY,              -- 'CORP-01'
    name TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    travel_manager_email TEXT NOT NULL,
    max_nightly_rate REAL NOT NULL,   -- dollars per night, hotel cap
    allowed_cabin TEXT NOT NULL CHECK (allowed_cabin IN ('economy', 'premium_economy', 'business')),
    approval_threshold REAL NOT NULL  -- bookings above this total need the manager's approval
);

CREATE TABLE customers (
    id TEXT PRIMARY KEY,              -- 'CUS-0001'
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    corporate_account_id TEXT REFERENCES corporate_accounts(id),
    created_at TEXT NOT NULL
);

CREATE TABLE customer_notes (
    id TEXT PRIMARY KEY,              -- 'NOTE-0001'
    customer_id TEXT NOT NULL REFERENCES customers(id),
    category TEXT NOT NULL CHECK (category IN ('contact_change', 'complaint', 'preference', 'fraud_alert', 'other')),
    body TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE loyalty_accounts (
    customer_id TEXT PRIMARY KEY REFERENCES customers(id),
    tier TEXT NOT NULL CHECK (tier IN ('blue', 'silver', 'gold', 'platinum')),
    points INTEGER NOT NULL,
    qualifying_nights INTEGER NOT NULL  -- hotel nights plus flight segments this year
);

CREATE TABLE loyalty_transactions (
    id TEXT PRIMARY KEY,              -- 'LTX-0001'
    customer_id TEXT NOT NULL REFERENCES customers(id),
    booking_id TEXT REFERENCES bookings(id),
    points INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('earned', 'missing_credit', 'goodwill', 'tier_change')),
    created_at TEXT NOT NULL
);

CREATE TABLE bookings (
    id TEXT PRIMARY KEY,              -- 'BK-100001'
    reference TEXT NOT NULL UNIQUE,   -- six-character record locator, 'QX7K2M'
    customer_id TEXT NOT NULL REFERENCES customers(id),
    kind TEXT NOT NULL CHECK (kind IN ('flight', 'hotel')),
    status TEXT NOT NULL CHECK (status IN ('pending_approval', 'confirmed', 'cancelled', 'completed', 'rejected')),
    fare_class TEXT CHECK (fare_class IN ('basic', 'standard', 'flex')),             -- flights
    rate_plan TEXT CHECK (rate_plan IN ('flexible', 'semi_flex', 'non_refundable')),  -- hotels
    start_date TEXT NOT NULL,         -- departure or check-in date
    end_date TEXT NOT NULL,           -- arrival or check-out date
    total REAL NOT NULL,              -- dollars paid
    corporate_account_id TEXT REFERENCES corporate_accounts(id),
    cancel_reason TEXT,
    cancel_fee REAL,
    cancelled_at TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE flight_segments (
    id TEXT PRIMARY KEY,              -- 'SEG-100002-1'
    booking_id TEXT NOT NULL REFERENCES bookings(id),
    flight_number TEXT NOT NULL,
    origin TEXT NOT NULL,
    destination TEXT NOT NULL,
    depart_at TEXT NOT NULL,
    cabin TEXT NOT NULL CHECK (cabin IN ('economy', 'premium_economy', 'business')),
    schedule_change_minutes INTEGER NOT NULL  -- airline-initiated change to the departure time
);

CREATE TABLE hotel_stays (
    booking_id TEXT PRIMARY KEY REFERENCES bookings(id),
    hotel_id TEXT NOT NULL REFERENCES hotels(id),
    room_type TEXT NOT NULL CHECK (room_type IN ('standard', 'deluxe', 'suite')),
    nights INTEGER NOT NULL,
    nightly_rate REAL NOT NULL,
    guests INTEGER NOT NULL
);

CREATE TABLE passengers (
    id TEXT PRIMARY KEY,              -- 'PAX-100002-1'
    booking_id TEXT NOT NULL REFERENCES bookings(id),
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    name_corrections INTEGER NOT NULL
);

CREATE TABLE payments (
    id TEXT PRIMARY KEY,              -- 'PAY-100001' (and 'PAY-100001-D' for a duplicate capture)
    booking_id TEXT NOT NULL REFERENCES bookings(id),
    amount REAL NOT NULL,
    method TEXT NOT NULL CHECK (method IN ('card', 'corporate_card', 'travel_credit')),
    status TEXT NOT NULL CHECK (status IN ('captured', 'partially_refunded', 'refunded')),
    refunded_amount REAL NOT NULL,
    created_at TEXT NOT NULL,
    card_expires TEXT                 -- 'YYYY-MM' the card expires after; null: not a card on file
);

CREATE TABLE refunds (
    id TEXT PRIMARY KEY,              -- 'RFD-0001'
    booking_id TEXT NOT NULL REFERENCES bookings(id),
    payment_id TEXT NOT NULL REFERENCES payments(id),
    amount REAL NOT NULL,
    reason TEXT NOT NULL CHECK (reason IN ('cancellation', 'duplicate_charge', 'service_failure', 'goodwill')),
    created_at TEXT NOT NULL
);

CREATE TABLE travel_credits (
    id TEXT PRIMARY KEY,              -- 'TC-0001'
    customer_id TEXT NOT NULL REFERENCES customers(id),
    booking_id TEXT REFERENCES bookings(id),
    amount REAL NOT NULL,
    reason TEXT NOT NULL CHECK (reason IN ('walked_guest', 'service_failure', 'goodwill', 'expired_card')),
    expires_on TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE booking_changes (
    id TEXT PRIMARY KEY,              -- 'CHG-0001'
    booking_id TEXT NOT NULL REFERENCES bookings(id),
    kind TEXT NOT NULL CHECK (kind IN ('date_change', 'name_correction', 'approval', 'rejection')),
    old_value TEXT NOT NULL,
    new_value TEXT NOT NULL,
    fee REAL NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE special_requests (
    id TEXT PRIMARY KEY,              -- 'REQ-0001'
    booking_id TEXT NOT NULL REFERENCES bookings(id),
    hotel_id TEXT NOT NULL REFERENCES hotels(id),
    kind TEXT NOT NULL CHECK (kind IN ('early_check_in', 'late_checkout', 'accessible_room', 'crib', 'extra_bed', 'quiet_room')),
    complimentary INTEGER NOT NULL CHECK (complimentary IN (0, 1)),
    status TEXT NOT NULL CHECK (status IN ('requested', 'confirmed', 'declined')),
    detail TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE hotel_escalations (
    id TEXT PRIMARY KEY,              -- 'ESC-0001'
    booking_id TEXT NOT NULL REFERENCES bookings(id),
    hotel_id TEXT NOT NULL REFERENCES hotels(id),
    reason TEXT NOT NULL CHECK (reason IN ('overbooked', 'room_not_as_booked', 'billing_dispute', 'safety')),
    priority TEXT NOT NULL CHECK (priority IN ('normal', 'urgent')),
    status TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    detail TEXT NOT NULL,
    created_at TEXT NOT NULL,
    resolution TEXT CHECK (resolution IN ('fixed_by_hotel', 'guest_cancelled', 'withdrawn'))
);

CREATE TABLE tickets (
    id TEXT PRIMARY KEY,              -- 'TKT-0001'
    customer_id TEXT NOT NULL REFERENCES customers(id),
    booking_id TEXT REFERENCES bookings(id),
    subject TEXT NOT NULL,
    category TEXT NOT NULL CHECK (category IN ('cancellation', 'change', 'billing', 'hotel', 'loyalty', 'corporate', 'other')),
    status TEXT NOT NULL CHECK (status IN ('open', 'hold', 'escalated', 'solved')),
    priority TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
    hold_reason TEXT CHECK (hold_reason IN ('awaiting_hotel', 'awaiting_airline', 'awaiting_customer', 'awaiting_approval')),
    escalation_reason TEXT CHECK (escalation_reason IN ('refund_over_limit', 'safety', 'legal', 'fraud', 'repeated_failure')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE ticket_notes (
    id TEXT PRIMARY KEY,              -- 'TN-0001'
    ticket_id TEXT NOT NULL REFERENCES tickets(id),
    public INTEGER NOT NULL CHECK (public IN (0, 1)),
    body TEXT NOT NULL,
    created_at TEXT NOT NULL
);
