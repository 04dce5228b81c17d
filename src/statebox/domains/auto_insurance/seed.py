"""Seed rows of the auto insurance domain: a small personal auto book as of 2025-11-03.

Everything is synthetic and derived from the customer index (plus one seeded
`random.Random` for VINs and licence numbers), so the seed is the same on every machine
and run. Names come from generic lists (no real persons); emails are at example.com;
VINs and licence numbers are made up. Dates are placed relative to `SEED_DATE`:
installments due before it are paid, later ones unpaid; a few customers carry a billing,
extension or claim history so tasks can turn on it.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from statebox.domains.auto_insurance.rating import age_on, coverage_premium, driver_surcharge

__all__ = ["SEED_DATE", "add_months", "seed_rows"]

SEED_DATE = date(2025, 11, 3)
"""The day the seed describes; tasks freeze their clock on it."""

Row = dict[str, Any]

_FIRST = (
    "Avery",
    "Blake",
    "Corinne",
    "Dmitri",
    "Eliza",
    "Fabian",
    "Gemma",
    "Hector",
    "Isla",
    "Jasper",
    "Kenji",
    "Leona",
    "Mateo",
    "Nora",
    "Osric",
    "Paloma",
    "Quentin",
    "Rhea",
    "Silas",
    "Tamsin",
    "Ulrich",
    "Viola",
    "Wendell",
    "Ximena",
    "Yusuf",
    "Zelda",
    "Anton",
    "Bettina",
    "Cyrus",
    "Delia",
    "Emory",
    "Fiona",
    "Gustav",
    "Hollis",
    "Ines",
    "Jarrah",
    "Kaito",
    "Linnea",
    "Marek",
    "Nell",
)
_LAST = (
    "Abernathy",
    "Bellweather",
    "Calloway",
    "Drummond",
    "Everhart",
    "Fairbanks",
    "Galloway",
    "Hargrove",
    "Ingleby",
    "Jorgensen",
    "Kingsley",
    "Lockhart",
    "Merriweather",
    "Northcott",
    "Oakenshaw",
    "Pemberton",
    "Quimby",
    "Rutherford",
    "Stanhope",
    "Thistlewood",
)
_PLACES = (
    ("OR", "97205"),
    ("TX", "78701"),
    ("CO", "80202"),
    ("WI", "53703"),
    ("NC", "27601"),
    ("AZ", "85701"),
    ("NY", "12207"),
    ("ID", "83702"),
    ("OH", "45402"),
    ("MN", "55401"),
)
_CARS = (
    ("Toyota", "Corolla"),
    ("Honda", "Civic"),
    ("Ford", "F-150"),
    ("Subaru", "Outback"),
    ("Mazda", "CX-5"),
    ("Hyundai", "Elantra"),
    ("Chevrolet", "Equinox"),
    ("Kia", "Soul"),
    ("Nissan", "Rogue"),
    ("Volkswagen", "Jetta"),
    ("Tesla", "Model 3"),
    ("Jeep", "Wrangler"),
)
_LENDERS = ("Example Auto Finance", "Sample Credit Union", "Placeholder Bank")
_VIN_CHARS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
_MONTHLY_FEE = 5.0
_QUARTERLY_FEE = 3.0


def _ts(d: date, hour: int = 10) -> str:
    return datetime.combine(d, time(hour), tzinfo=UTC).isoformat()


def add_months(d: date, months: int) -> date:
    """``d`` plus whole months, the day clamped to 28."""
    y, m = divmod(d.month - 1 + months, 12)
    return date(d.year + y, m + 1, min(d.day, 28))


def _vin(rng: random.Random) -> str:
    return "".join(rng.choice(_VIN_CHARS) for _ in range(17))


class _Seq:
    """Per-table counters for seed ids."""

    def __init__(self) -> None:
        self.n: dict[str, int] = {}

    def next(self, prefix: str, width: int) -> str:
        self.n[prefix] = self.n.get(prefix, 0) + 1
        return f"{prefix}{self.n[prefix]:0{width}d}"


def _customer(i: int, out: dict[str, list[Row]]) -> Row:
    first, last = _FIRST[i], _LAST[(i * 7) % len(_LAST)]
    state, zip_code = _PLACES[i % len(_PLACES)]
    dob = date(1958 + (i * 3) % 42, 1 + i % 12, 1 + (i * 5) % 28)
    row = {
        "id": f"CUS-{1001 + i}",
        "first_name": first,
        "last_name": last,
        "email": f"{first.lower()}.{last.lower()}@example.com",
        "phone": f"555-02{i:02d}",
        "date_of_birth": dob.isoformat(),
        "zip_code": zip_code,
        "customer_since": (SEED_DATE - timedelta(days=100 + (i * 97) % 4000)).isoformat(),
        "status": "active",
    }
    out["customers"].append(row)
    return {**row, "state": state, "dob": dob}


def _vehicles(
    i: int, pol: str, start: date, rng: random.Random, seq: _Seq, out: dict[str, list[Row]]
) -> list[Row]:
    cars = []
    for k in range(2 if i % 3 == 0 else 1):
        year = 2008 + (i * 3 + k * 5) % 17
        make, model = _CARS[(i + k * 5) % len(_CARS)]
        row = {
            "id": seq.next("VEH-", 4),
            "policy_id": pol,
            "vin": _vin(rng),
            "year": year,
            "make": make,
            "model": model,
            "usage": "pleasure" if (i + k) % 4 == 3 else "commute",
            "lienholder": _LENDERS[(i + k) % 3] if year >= 2021 else None,
            "status": "active",
            "added_on": start.isoformat(),
            "removed_on": None,
        }
        out["vehicles"].append(row)
        cars.append(row)
    return cars


def _coverages(i: int, pol: str, car: Row, seq: _Seq, out: dict[str, list[Row]]) -> float:
    limit = "50/100" if i % 4 == 0 else "100/300"
    deductible = 1000 if i % 2 else 500
    kinds: list[tuple[str, str | None, int]] = [("liability", limit, 0)]
    if car["year"] >= 2012:
        kinds += [("collision", None, deductible), ("comprehensive", None, deductible)]
    if i % 5 == 0 and car["year"] >= 2012:
        kinds.append(("rental", "40/day", 0))
    if i % 4 == 1 and car["year"] >= SEED_DATE.year - 15:
        kinds.append(("roadside", None, 0))
    total = 0.0
    for kind, code, ded in kinds:
        premium = coverage_premium(kind, car["usage"], code, ded)
        total += premium
        out["coverages"].append(
            {
                "id": seq.next("COV-", 5),
                "policy_id": pol,
                "vehicle_id": car["id"],
                "kind": kind,
                "limit_code": code,
                "deductible": ded,
                "premium_annual": premium,
                "status": "active",
            }
        )
    return total


def _drivers(
    i: int,
    cust: Row,
    pol: str,
    start: date,
    rng: random.Random,
    seq: _Seq,
    out: dict[str, list[Row]],
) -> float:
    people = [(cust["first_name"], cust["dob"], "named_insured", i % 6 == 4)]
    if i % 2 == 0:
        people.append(
            (_FIRST[(i + 11) % len(_FIRST)], cust["dob"] + timedelta(days=400), "spouse", False)
        )
    if i % 7 == 3:
        people.append((_FIRST[(i + 23) % len(_FIRST)], date(2007, 1 + i % 12, 10), "child", False))
    total = 0.0
    for first, dob, rel, accident in people:
        acc = 1 if accident else 0
        surcharge = driver_surcharge(age_on(dob, SEED_DATE), acc, 0)
        total += surcharge
        out["drivers"].append(
            {
                "id": seq.next("DRV-", 4),
                "policy_id": pol,
                "first_name": first,
                "last_name": cust["last_name"],
                "date_of_birth": dob.isoformat(),
                "license_number": f"{cust['state']}{rng.randint(10**7, 10**8 - 1)}",
                "relationship": rel,
                "accidents_3y": acc,
                "violations_3y": 0,
                "surcharge_annual": surcharge,
                "status": "active",
                "added_on": start.isoformat(),
                "removed_on": None,
            }
        )
    return total


def _billing(
    i: int, pol: str, start: date, premium: float, seq: _Seq, out: dict[str, list[Row]]
) -> None:
    plan = ("monthly", "quarterly", "pay_in_full")[i % 3]
    count, step, fee = {
        "monthly": (12, 1, _MONTHLY_FEE),
        "quarterly": (4, 3, _QUARTERLY_FEE),
        "pay_in_full": (1, 12, 0.0),
    }[plan]
    out["installment_plans"].append(
        {
            "policy_id": pol,
            "plan": plan,
            "installment_fee": fee,
            "autopay": i % 2,
            "changed_at": None,
        }
    )
    amount = round(premium / count + fee, 2)
    for k in range(count):
        due = add_months(start, k * step)
        paid = due < SEED_DATE
        iid = f"INS-{pol.removeprefix('POL-')}-{k + 1:02d}"
        out["installments"].append(
            {
                "id": iid,
                "policy_id": pol,
                "seq": k + 1,
                "original_due_date": due.isoformat(),
                "due_date": due.isoformat(),
                "amount": amount,
                "status": "paid" if paid else "unpaid",
                "paid_at": _ts(due, 8) if paid else None,
            }
        )
        if paid:
            out["payments"].append(
                {
                    "id": seq.next("PMT-", 5),
                    "policy_id": pol,
                    "installment_id": iid,
                    "fee_id": None,
                    "amount": amount,
                    "method": "bank_on_file" if i % 2 else "card_on_file",
                    "created_at": _ts(due, 8),
                }
            )
    if i % 4 in (1, 2):
        fee_day = SEED_DATE - timedelta(days=200 if i % 4 == 1 else 100)
        out["fees"].append(
            {
                "id": seq.next("FEE-", 5),
                "policy_id": pol,
                "installment_id": None,
                "kind": "late_fee",
                "amount": 15.0,
                "status": "paid" if i % 4 == 1 else "waived",
                "waive_reason": None if i % 4 == 1 else "first_time_courtesy",
                "created_at": _ts(fee_day),
                "resolved_at": _ts(fee_day + timedelta(days=3)),
            }
        )
    if i % 6 == 4 and plan != "pay_in_full":
        first = f"INS-{pol.removeprefix('POL-')}-01"
        old = add_months(start, 0)
        out["payment_extensions"].append(
            {
                "id": seq.next("EXT-", 5),
                "policy_id": pol,
                "installment_id": first,
                "old_due_date": old.isoformat(),
                "new_due_date": (old + timedelta(days=7)).isoformat(),
                "created_at": _ts(old - timedelta(days=2)),
            }
        )


def _claims(
    i: int, pol: str, cars: list[Row], start: date, seq: _Seq, out: dict[str, list[Row]]
) -> None:
    if i % 5 == 2:
        loss = SEED_DATE - timedelta(days=400)
        cid = seq.next("CLM-", 5)
        out["claims"].append(
            {
                "id": cid,
                "policy_id": pol,
                "vehicle_id": cars[0]["id"],
                "loss_date": loss.isoformat(),
                "loss_type": "glass",
                "coverage_kind": "comprehensive",
                "injuries": 0,
                "police_report_number": None,
                "status": "closed",
                "description": "Windshield chip repaired.",
                "reported_at": _ts(loss + timedelta(days=1)),
                "updated_at": _ts(loss + timedelta(days=20)),
            }
        )
    if i % 9 == 4:
        loss = max(start, SEED_DATE - timedelta(days=18))
        cid = seq.next("CLM-", 5)
        out["claims"].append(
            {
                "id": cid,
                "policy_id": pol,
                "vehicle_id": cars[0]["id"],
                "loss_date": loss.isoformat(),
                "loss_type": "collision",
                "coverage_kind": "collision",
                "injuries": 0,
                "police_report_number": f"PR-{2025000 + i}",
                "status": "under_review",
                "description": "Rear-ended at a stop light.",
                "reported_at": _ts(loss + timedelta(days=1)),
                "updated_at": _ts(loss + timedelta(days=6)),
            }
        )
        for kind in ("photos", "repair_estimate"):
            out["claim_documents"].append(
                {
                    "id": seq.next("DOC-", 5),
                    "claim_id": cid,
                    "kind": kind,
                    "status": "received",
                    "requested_at": _ts(loss + timedelta(days=1)),
                    "received_at": _ts(loss + timedelta(days=5)),
                }
            )


def _service(i: int, cust: Row, pol: str, seq: _Seq, out: dict[str, list[Row]]) -> None:
    seen = SEED_DATE - timedelta(days=30 + (i * 11) % 200)
    out["verification_events"].append(
        {
            "id": seq.next("VER-", 5),
            "customer_id": cust["id"],
            "policy_id": pol,
            "method": "policy_dob_zip",
            "result": "passed",
            "created_at": _ts(seen, 9),
        }
    )
    out["crm_notes"].append(
        {
            "id": seq.next("NOTE-", 5),
            "customer_id": cust["id"],
            "policy_id": pol,
            "category": ("billing", "policy_change", "claim")[i % 3],
            "body": "Customer called with a general question; answered.",
            "created_at": _ts(seen, 9),
        }
    )
    if i % 4 == 0:
        out["tickets"].append(
            {
                "id": seq.next("TCK-", 4),
                "customer_id": cust["id"],
                "policy_id": pol,
                "claim_id": None,
                "category": ("billing", "policy")[i % 8 // 4],
                "subject": "Question about my statement",
                "status": "solved",
                "priority": "normal",
                "team": "service",
                "hold_reason": None,
                "escalation_reason": None,
                "created_at": _ts(seen, 9),
                "updated_at": _ts(seen, 15),
            }
        )


def seed_rows() -> dict[str, list[Row]]:
    """Build the auto insurance seed.

    Returns:
        table → rows, in an order that satisfies foreign keys.
    """
    rng = random.Random(20251103)
    tables = (
        "customers",
        "verification_events",
        "policies",
        "vehicles",
        "drivers",
        "coverages",
        "endorsements",
        "cancellations",
        "installment_plans",
        "installments",
        "payment_extensions",
        "fees",
        "payments",
        "claims",
        "claim_documents",
        "crm_notes",
        "tickets",
    )
    out: dict[str, list[Row]] = {t: [] for t in tables}
    seq = _Seq()
    for i in range(40):
        cust = _customer(i, out)
        pol = f"POL-{300001 + i}"
        start = SEED_DATE - timedelta(days=20 + (i * 29) % 330)
        policy: Row = {
            "id": pol,
            "customer_id": cust["id"],
            "status": "active",
            "term_start": start.isoformat(),
            "term_end": add_months(start, 12).isoformat(),
            "state": cust["state"],
            "premium_annual": 0.0,
        }
        out["policies"].append(policy)
        row = out["customers"][-1]
        row["customer_since"] = min(row["customer_since"], start.isoformat())
        cars = _vehicles(i, pol, start, rng, seq, out)
        premium = sum(_coverages(i, pol, car, seq, out) for car in cars)
        premium += _drivers(i, cust, pol, start, rng, seq, out)
        policy["premium_annual"] = round(premium, 2)
        _billing(i, pol, start, policy["premium_annual"], seq, out)
        _claims(i, pol, cars, start, seq, out)
        _service(i, cust, pol, seq, out)
    return out
