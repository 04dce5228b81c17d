-- Paws & Claws veterinary clinic: owners, their pets, vets, appointments, prescriptions.
-- Every table has a primary key: statebox compares states row by row, by key.

CREATE TABLE owners (
    id TEXT PRIMARY KEY,                  -- 'OWN-001'
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL
);

CREATE TABLE pets (
    id TEXT PRIMARY KEY,                  -- 'PET-001'
    owner_id TEXT NOT NULL REFERENCES owners(id),
    name TEXT NOT NULL,
    species TEXT NOT NULL CHECK (species IN ('dog', 'cat', 'rabbit')),
    last_exam_on TEXT                     -- date of the last exam; NULL: never examined here
);

CREATE TABLE vets (
    id TEXT PRIMARY KEY,                  -- 'VET-01'
    name TEXT NOT NULL,
    does_surgery INTEGER NOT NULL CHECK (does_surgery IN (0, 1))
);

CREATE TABLE appointments (
    id TEXT PRIMARY KEY,                  -- 'APT-0501' for new ones
    pet_id TEXT NOT NULL REFERENCES pets(id),
    vet_id TEXT NOT NULL REFERENCES vets(id),
    kind TEXT NOT NULL CHECK (kind IN ('exam', 'vaccination', 'surgery')),
    starts_at TEXT NOT NULL,              -- 'YYYY-MM-DD HH:MM', clinic time
    status TEXT NOT NULL CHECK (status IN ('booked', 'cancelled', 'completed')),
    moved_by_clinic INTEGER NOT NULL DEFAULT 0 CHECK (moved_by_clinic IN (0, 1)),
    cancel_reason TEXT CHECK (cancel_reason IN ('owner_request', 'pet_unwell', 'clinic_moved')),
    cancel_fee REAL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE prescriptions (
    id TEXT PRIMARY KEY,                  -- 'RX-2001'
    pet_id TEXT NOT NULL REFERENCES pets(id),
    drug TEXT NOT NULL,
    refills_left INTEGER NOT NULL CHECK (refills_left >= 0),
    expires_on TEXT NOT NULL
);

CREATE TABLE refills (
    id TEXT PRIMARY KEY,                  -- 'RF-0501'
    prescription_id TEXT NOT NULL REFERENCES prescriptions(id),
    status TEXT NOT NULL CHECK (status IN ('ready_for_pickup')),
    created_at TEXT NOT NULL
);

CREATE TABLE clinic_notes (
    id TEXT PRIMARY KEY,                  -- 'NOTE-0501'
    owner_id TEXT NOT NULL REFERENCES owners(id),
    pet_id TEXT REFERENCES pets(id),
    category TEXT NOT NULL,
    body TEXT NOT NULL,                   -- free text: left out of comparison, read by text checks
    created_at TEXT NOT NULL
);
