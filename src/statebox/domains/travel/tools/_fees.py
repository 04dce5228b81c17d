"""The published fee schedules (policy.md §3 and §4) as pure functions.

The quote tools and the task generator read the same functions, so the policy text,
the quotes an agent sees and the golden trajectories cannot drift apart. Waivers
(airline schedule changes, Platinum members) are judgement calls the agent makes
from the policy; the schedule itself never applies them.
"""

from __future__ import annotations

__all__ = ["cancellation_fee", "change_fee"]


def cancellation_fee(
    kind: str, plan: str, days_before: int, total: float, nightly_rate: float
) -> float:
    """The scheduled cancellation fee in dollars.

    Args:
        kind: ``flight`` or ``hotel``.
        plan: Fare class (flights: basic, standard, flex) or rate plan (hotels:
            flexible, semi_flex, non_refundable).
        days_before: Whole days from today to departure / check-in (0 = today).
        total: Booking total in dollars.
        nightly_rate: Hotel nightly rate in dollars (ignored for flights).

    Returns:
        The fee, never more than ``total``, rounded to cents.

    Raises:
        ValueError: Unknown kind or plan.
    """
    if kind == "flight":
        if plan == "basic":
            fee = total
        elif plan == "standard":
            fee = 75.0 if days_before >= 14 else 150.0 if days_before >= 3 else total * 0.5
        elif plan == "flex":
            fee = 0.0 if days_before >= 1 else 50.0
        else:
            raise ValueError(f"unknown fare class {plan!r}")
    elif kind == "hotel":
        if plan == "flexible":
            fee = 0.0 if days_before >= 2 else nightly_rate
        elif plan == "semi_flex":
            fee = 0.0 if days_before >= 7 else nightly_rate if days_before >= 2 else total * 0.5
        elif plan == "non_refundable":
            fee = total
        else:
            raise ValueError(f"unknown rate plan {plan!r}")
    else:
        raise ValueError(f"unknown booking kind {kind!r}")
    return round(min(fee, total) + 0.0, 2)


def change_fee(kind: str, plan: str, days_before: int) -> float | None:
    """The scheduled date-change fee in dollars, or None when the booking cannot change.

    Args:
        kind: ``flight`` or ``hotel``.
        plan: Fare class or rate plan.
        days_before: Whole days from today to departure / check-in.

    Returns:
        The fee, or None when policy does not allow a date change.

    Raises:
        ValueError: Unknown kind or plan.
    """
    if kind == "flight":
        table = {"basic": None, "standard": 75.0, "flex": 0.0}
    elif kind == "hotel":
        table = {
            "flexible": 0.0 if days_before >= 2 else None,
            "semi_flex": 40.0 if days_before >= 7 else None,
            "non_refundable": None,
        }
    else:
        raise ValueError(f"unknown booking kind {kind!r}")
    if plan not in table:
        raise ValueError(f"unknown plan {plan!r}")
    return table[plan]
