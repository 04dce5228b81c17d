"""Premium rating of the auto insurance domain: one deterministic table, used by seed and tools.

Premiums are annual, in dollars, rounded to cents. A policy's premium is the sum of its
active coverages' premiums and its active drivers' surcharges, so every endorsement
recomputes it the same way the seed built it. Rates are synthetic.
"""

from __future__ import annotations

from datetime import date
from typing import Final, Literal

__all__ = [
    "DEDUCTIBLES",
    "LIABILITY_LIMITS",
    "ROADSIDE_MAX_AGE_YEARS",
    "age_on",
    "coverage_premium",
    "driver_surcharge",
]

LIABILITY_LIMITS: Final = ("25/50", "50/100", "100/300", "250/500")
"""Liability limit codes (thousands of dollars per person / per accident), lowest first."""
DEDUCTIBLES: Final = (250, 500, 1000, 2000)
"""Collision and comprehensive deductibles offered, in dollars."""
ROADSIDE_MAX_AGE_YEARS: Final = 15
"""Roadside assistance is sold for vehicles at most this many model years old."""

_LIABILITY: Final = {"25/50": 480.0, "50/100": 560.0, "100/300": 640.0, "250/500": 760.0}
_BASE: Final = {"collision": 520.0, "comprehensive": 200.0}
_DEDUCTIBLE_FACTOR: Final = {250: 1.2, 500: 1.0, 1000: 0.8, 2000: 0.65}
_USAGE_FACTOR: Final = {"commute": 1.0, "pleasure": 0.85, "business": 1.3}
_FLAT: Final = {"rental": 48.0, "roadside": 24.0}

Kind = Literal["liability", "collision", "comprehensive", "rental", "roadside"]


def coverage_premium(kind: str, usage: str, limit_code: str | None, deductible: int) -> float:
    """Annual premium of one coverage on one vehicle, in dollars.

    Args:
        kind: Coverage kind.
        usage: The vehicle's usage (``commute``, ``pleasure``, ``business``).
        limit_code: Liability limit code (liability only).
        deductible: Deductible in dollars (collision and comprehensive only).

    Returns:
        The premium, rounded to cents.

    Raises:
        ValueError: Unknown kind, limit, deductible or usage.
    """
    if kind in _FLAT:
        return _FLAT[kind]
    factor = _USAGE_FACTOR[usage]
    if kind == "liability":
        if limit_code not in _LIABILITY:
            raise ValueError(f"unknown liability limit {limit_code!r}")
        return round(_LIABILITY[limit_code] * factor, 2)
    if kind in _BASE:
        return round(_BASE[kind] * _DEDUCTIBLE_FACTOR[deductible] * factor, 2)
    raise ValueError(f"unknown coverage kind {kind!r}")


def age_on(date_of_birth: date, on: date) -> int:
    """Whole years of age on a day."""
    years = on.year - date_of_birth.year
    return years - ((on.month, on.day) < (date_of_birth.month, date_of_birth.day))


def driver_surcharge(age_years: int, accidents_3y: int, violations_3y: int) -> float:
    """Annual surcharge of one driver, in dollars: youth, at-fault accidents, violations."""
    youth = 450.0 if age_years < 25 else 0.0
    return round(youth + 300.0 * accidents_3y + 150.0 * violations_3y, 2)
