"""Requests about the requester's own records: expenses, site access, travel, kit, courses.

Each builder takes the composition context and a variant number and returns the intent,
or None when the requester cannot carry it (no assignment with a client, a lead, ...).
Rows a builder adds use ids below 500 in a range of its own, so two intents never clash.
"""

from __future__ import annotations

from scripts.gen_consulting_hr_tasks._build import (
    BUDGET,
    CLIENT,
    COURSE,
    EMP,
    ENG,
    RECEIPT_OVER,
    SEED,
    SOFTWARE,
    Row,
    active_assignments,
    call,
    count_new,
    day,
    days_until,
    holds,
    inv,
    rows_of,
    says,
    seats_used,
    ts,
)
from scripts.gen_consulting_hr_tasks.expense_claims import _WHAT, _WORDS, _limit
from scripts.gen_consulting_hr_tasks.expense_review import _claim

from ._compose import Ctx, Intent, fails

_CATEGORIES = ("meals", "ground_transport", "home_office", "training_materials", "lodging")
GRADE_OK = {"none": 0, "baseline": 1, "secret": 2}


def _assignment(emp: str) -> Row | None:
    """The requester's one active assignment on an active engagement, if they have one."""
    rows = active_assignments(emp)
    if len(rows) != 1 or ENG[rows[0]["engagement_id"]]["status"] != "active":
        return None
    return rows[0]


def _status(table: str, key: str, expected: str, what: str) -> Row:
    return inv(f"select status from {table} where id = '{key}'", expected, what)


# ----------------------------------------------------------------------------- expenses


def _held(ctx: Ctx, k: int, over: bool) -> Intent | None:
    emp = ctx.requester
    if _assignment(emp) is None:
        return None
    category = _CATEGORIES[k % len(_CATEGORIES)]
    limit = _limit(emp, category)
    amount = round(limit * 1.2 + k, 2) if over else round(max(limit * 0.6, 30) + k, 2)
    assert amount > RECEIPT_OVER[category]
    assert (amount > limit) == over
    claim = _claim(
        emp, category, amount, -(12 + k), -(9 + k), False, "on_hold", "missing_receipt", "EXP-00110"
    )
    other = _claim(
        emp,
        category,
        round(amount * 0.7, 2),
        -(30 + k),
        -(26 + k),
        False,
        "on_hold",
        "missing_receipt",
        "EXP-00111",
    )
    by_id = k % 2 == 1
    facts: Row = (
        {"claim_id": "EXP-00110"}
        if by_id
        else {"claim_amount": amount, "claim_date": claim["incurred_on"]}
    )
    look = (
        call("get_expense_claim", claim_id="EXP-00110")
        if by_id
        else call("list_expense_claims", employee_id=emp)
    )
    decide = (
        call("hold_expense_claim", claim_id="EXP-00110", reason="over_limit")
        if over
        else call("approve_expense_claim", claim_id="EXP-00110")
    )
    words = _WORDS[category][1]
    return Intent(
        family="expenses",
        branch="receipt-over-limit" if over else "receipt-arrived",
        subject=emp,
        opening=f"My {words} claim was held for a missing receipt; I've uploaded the receipt "
        "now, so can it go through?",
        goal="Get the held claim decided now that the receipt is in",
        description=f"Held {category} claim EXP-00110 {amount:.2f} (limit {limit:.2f}); "
        f"receipt now in: attach_receipt, then {'hold over_limit' if over else 'approve'}; "
        "a second held claim EXP-00111 stays as it is.",
        golden=[
            look,
            call("get_expense_limits"),
            ctx.disclose(emp),
            fails(call("approve_expense_claim", claim_id="EXP-00110"), "invalid_state"),
            call("attach_receipt", claim_id="EXP-00110"),
            decide,
        ],
        patch={"expense_claims": [other, claim] if k % 3 else [claim, other]},
        facts=facts,
        invariants=[
            inv(
                "select status || ':' || decision_reason || ':' || receipt from expense_claims "
                "where id = 'EXP-00110'",
                "on_hold:over_limit:1" if over else "approved:within_policy:1",
                "receipt attached, then decided by the limit",
            ),
            _status("expense_claims", "EXP-00111", "on_hold", "the other held claim untouched"),
        ],
        grade_sensitive=True,
    )


def receipt_arrived(ctx: Ctx, k: int) -> Intent | None:
    """A held claim's receipt arrives: approve refused, attach it, approve (within limit)."""
    return _held(ctx, k, over=False)


def receipt_over_limit(ctx: Ctx, k: int) -> Intent | None:
    """The receipt arrives but the amount is over the limit: attach, then hold over_limit."""
    return _held(ctx, k, over=True)


def duplicate_pending(ctx: Ctx, k: int) -> Intent | None:
    """A pending claim duplicates a paid one: reject it as a duplicate."""
    emp = ctx.requester
    if _assignment(emp) is None:
        return None
    category = _CATEGORIES[(k + 2) % len(_CATEGORIES)]
    amount = round(min(_limit(emp, category) * 0.5, 140) + k, 2)
    paid = _claim(
        emp, category, amount, -(20 + k), -(18 + k), True, "paid", "within_policy", "EXP-00112"
    )
    pending = _claim(
        emp, category, amount, -(20 + k), -(3 + k), True, "submitted", None, "EXP-00113"
    )
    words = _WORDS[category][1]
    return Intent(
        family="expenses",
        branch="duplicate-pending",
        subject=emp,
        opening=f"One of my {words} claims is still pending; can you get it decided?",
        goal="Get the pending claim decided",
        description=f"Pending {category} claim EXP-00113 repeats paid EXP-00112: reject duplicate.",
        golden=[
            call("list_expense_claims", employee_id=emp),
            ctx.disclose(emp),
            call("reject_expense_claim", claim_id="EXP-00113", reason="duplicate"),
        ],
        patch={"expense_claims": [paid, pending]},
        facts={"claim_id": "EXP-00113"}
        if k % 2
        else {"claim_amount": amount, "claim_date": pending["incurred_on"]},
        invariants=[
            inv(
                "select status || ':' || decision_reason from expense_claims "
                "where id = 'EXP-00113'",
                "rejected:duplicate",
                "a repeat of a paid claim is rejected",
            )
        ],
    )


def late_claim(ctx: Ctx, k: int) -> Intent | None:
    """A new claim for an expense over 60 days old: refused, nothing submitted."""
    emp = ctx.requester
    category = _CATEGORIES[(k + 1) % len(_CATEGORIES)]
    words = _WORDS[category][0]
    amount = round(min(_limit(emp, category) * 0.4, 60) + k, 2)
    return Intent(
        family="expenses",
        branch="late-refused",
        subject=emp,
        opening=f"I'd like to claim {words} from a while back.",
        goal="File the old expense claim",
        description=f"New {category} claim incurred {61 + k} days ago: refused (60-day window).",
        golden=[],
        facts={"claim_amount": amount, "claim_date": day(-(61 + k))},
        invariants=[
            count_new(
                "expense_claims", "no claim for an expense past 60 days", f"employee_id = '{emp}'"
            )
        ],
        reply=(
            "I can't file that claim: expenses must be claimed within 60 days of the day "
            "they were incurred.",
            (["60 days", "sixty days"],),
        ),
        refusal=True,
    )


def over_limit_wait(ctx: Ctx, k: int) -> Intent | None:
    """A claim held over the limit, the employee asks to release it: no change (manager's)."""
    emp = ctx.requester
    if _assignment(emp) is None:
        return None
    category = _CATEGORIES[(k + 3) % len(_CATEGORIES)]
    amount = round(_limit(emp, category) * 1.25 + k, 2)
    held = _claim(
        emp, category, amount, -(15 + k), -(12 + k), True, "on_hold", "over_limit", "EXP-00115"
    )
    return Intent(
        family="expenses",
        branch="over-limit-wait",
        subject=emp,
        opening=f"My {_WORDS[category][1]} claim is stuck on hold for being over the limit; "
        "my manager is fine with it, so please just release it.",
        goal="Get the over-limit claim released",
        description="EXP-00115 held over_limit: only the line manager releases it, no change.",
        golden=[call("list_expense_claims", employee_id=emp)],
        patch={"expense_claims": [held]},
        invariants=[_status("expense_claims", "EXP-00115", "on_hold", "the hold stays")],
        reply=(
            "Claim EXP-00115 stays on hold: the amount over your limit needs your line "
            "manager's approval, which the service desk cannot give.",
            ("manager",),
        ),
        refusal=True,
        grade_sensitive=True,
    )


def new_claim(ctx: Ctx, k: int) -> Intent | None:
    """A new claim decided at once (train): approve, missing receipt or over limit by k."""
    emp = ctx.requester
    asg = _assignment(emp)
    if asg is None:
        return None
    category = _CATEGORIES[k % len(_CATEGORIES)]
    limit = _limit(emp, category)
    kind = ("approve", "missing-receipt", "over-limit")[k % 3]
    amount = {
        "approve": round(limit * 0.5 + k, 2),
        "missing-receipt": round(max(limit * 0.5, RECEIPT_OVER[category] + 10) + k, 2),
        "over-limit": round(limit * 1.3 + k, 2),
    }[kind]
    receipt = kind != "missing-receipt"
    cid = ctx.new_id("EXP-")
    decide = {
        "approve": call("approve_expense_claim", claim_id=cid),
        "missing-receipt": call("hold_expense_claim", claim_id=cid, reason="missing_receipt"),
        "over-limit": call("hold_expense_claim", claim_id=cid, reason="over_limit"),
    }[kind]
    words = _WORDS[category][0]
    return Intent(
        family="expenses",
        branch=f"new-{kind}",
        subject=emp,
        opening=f"I need to claim {words} for my engagement.",
        goal="File the expense claim",
        description=f"New {category} claim {amount:.2f} (limit {limit:.2f}), receipt {receipt}: "
        f"{kind}.",
        golden=[
            call("get_expense_limits"),
            ctx.disclose(emp),
            call(
                "submit_expense_claim",
                employee_id=emp,
                category=category,
                amount=amount,
                incurred_on=day(-(4 + k)),
                receipt=receipt,
                description=words,
                engagement_id=asg["engagement_id"],
            ),
            decide,
        ],
        facts={
            "claim_amount": amount,
            "claim_date": day(-(4 + k)),
            "receipt": "Yes, I have the itemised receipt." if receipt else "No, I lost it.",
            "engagement_id": asg["engagement_id"],
        },
        text=[says("expense_claims", "description", {"employee_id": emp}, _WHAT[category])],
        grade_sensitive=True,
    )


# ----------------------------------------------------------------------------- site access


def _site(emp: str) -> tuple[Row, Row, str] | None:
    """The requester's client, engagement and access expiry, when a grant could be issued."""
    asg = _assignment(emp)
    if asg is None:
        return None
    eng = ENG[asg["engagement_id"]]
    client = CLIENT[eng["client_id"]]
    if any(r["client_id"] == client["id"] for r in rows_of("site_access", emp)):
        return None
    return eng, client, min(eng["end_date"], day(90))


def _nda_rows(emp: str, client: str, expires: str) -> list[Row]:
    """The requester's NDA for the client, set to expire on ``expires``."""
    seed = [r for r in SEED["ndas"] if r["employee_id"] == emp and r["client_id"] == client]
    if seed:
        return [{"id": seed[0]["id"], "expires_on": expires}]
    return [
        {
            "id": "NDA-00110",
            "employee_id": emp,
            "client_id": client,
            "envelope_id": "ENV-1100-AA",
            "signed_on": day(-500) if expires < day(0) else day(-200),
            "expires_on": expires,
        }
    ]


def _clearance(emp: str, needed: str) -> list[Row]:
    if GRADE_OK[EMP[emp]["clearance_level"]] >= GRADE_OK[needed]:
        return []
    return [{"id": emp, "clearance_level": needed}]


def _prerequisites(emp: str, client: Row, nda_expires: str) -> dict[str, list[Row]]:
    """Rows that meet the client's clearance and give an NDA expiring on ``nda_expires``."""
    patch: dict[str, list[Row]] = {}
    employees = _clearance(emp, client["required_clearance"])
    if employees:
        patch["employees"] = employees
    if client["requires_nda"]:
        patch["ndas"] = _nda_rows(emp, client["id"], nda_expires)
    return patch


def _grant(sid: str, emp: str, client: str, granted: int, expires: int, status: str) -> Row:
    return {
        "id": sid,
        "employee_id": emp,
        "client_id": client,
        "status": status,
        "granted_on": day(granted),
        "expires_on": day(expires),
        "revoked_on": None,
    }


def _renewal(ctx: Ctx, k: int, nda_lapsed: bool) -> Intent | None:
    emp = ctx.requester
    found = _site(emp)
    if found is None:
        return None
    eng, client, expiry = found
    if nda_lapsed and not client["requires_nda"]:
        return None
    left = 3 + k % 10
    grants = [_grant("SAC-00110", emp, client["id"], left - 90, left, "active")]
    if k % 2 == 0:
        grants.insert(0, _grant("SAC-00109", emp, client["id"], -200, -110, "expired"))
    lapse = day(-(2 + k)) if nda_lapsed else day(400)
    patch = {**_prerequisites(emp, client, lapse), "site_access": grants}
    facts: Row = {}
    golden = [
        call("get_employee", employee_id=emp),
        call("get_employee_access", employee_id=emp),
        call("get_client", client_id=client["id"]),
        ctx.disclose(emp),
    ]
    if nda_lapsed:
        envelope = f"ENV-{7300 + k}-R{k % 10}"
        facts["envelope_id"] = envelope
        golden.append(
            call("record_nda", employee_id=emp, client_id=client["id"], envelope_id=envelope)
        )
    golden += [
        fails(
            call("grant_site_access", employee_id=emp, client_id=client["id"], expires_on=expiry),
            "invalid_state",
        ),
        call("revoke_site_access", access_id="SAC-00110"),
        call("grant_site_access", employee_id=emp, client_id=client["id"], expires_on=expiry),
    ]
    return Intent(
        family="site-access",
        branch="renew-nda" if nda_lapsed else "renew",
        subject=emp,
        opening=f"My badge for {client['name']} runs out soon; please renew it.",
        goal=f"Get the {client['name']} site access renewed",
        description=f"Grant SAC-00110 expires in {left} days (renewal window 14): "
        + ("NDA lapsed, new envelope recorded; " if nda_lapsed else "")
        + f"revoke and re-grant until min({eng['end_date']}, today+90) = {expiry}.",
        golden=golden,
        patch=patch,
        facts=facts,
        invariants=[
            inv(
                f"select group_concat(expires_on) from site_access where employee_id = '{emp}' "
                f"and client_id = '{client['id']}' and status = 'active'",
                expiry,
                "one active grant, renewed to the capped expiry",
            )
        ],
    )


def renew(ctx: Ctx, k: int) -> Intent | None:
    """Renew a grant inside its 14-day window: grant refused while active, revoke, grant."""
    return _renewal(ctx, k, nda_lapsed=False)


def renew_nda(ctx: Ctx, k: int) -> Intent | None:
    """Renewal with a lapsed NDA and a new envelope: record it, then revoke and re-grant."""
    return _renewal(ctx, k, nda_lapsed=True)


def not_due(ctx: Ctx, k: int) -> Intent | None:
    """A renewal asked for with more than 14 days left: no change."""
    emp = ctx.requester
    found = _site(emp)
    if found is None:
        return None
    _, client, _ = found
    left = 20 + k % 15
    return Intent(
        family="site-access",
        branch="not-due",
        subject=emp,
        opening=f"Could you extend my {client['name']} badge while you're at it?",
        goal=f"Get the {client['name']} badge extended",
        description=f"Grant expires in {left} days, outside the 14-day window: no change.",
        golden=[call("get_employee_access", employee_id=emp)],
        patch={"site_access": [_grant("SAC-00110", emp, client["id"], left - 90, left, "active")]},
        invariants=[
            inv(
                "select status || ':' || expires_on from site_access where id = 'SAC-00110'",
                f"active:{day(left)}",
                "a grant outside the renewal window is left alone",
            )
        ],
        reply=(
            "Your badge can't be renewed yet: renewals open 14 days before the grant expires.",
            (["14 days", "fourteen days"],),
        ),
        refusal=True,
    )


def nda_envelope(ctx: Ctx, k: int) -> Intent | None:
    """New access with a lapsed NDA and a fresh envelope: record the NDA, then grant."""
    emp = ctx.requester
    found = _site(emp)
    if found is None:
        return None
    _, client, expiry = found
    if not client["requires_nda"]:
        return None
    envelope = f"ENV-{5100 + k}-N{k % 10}"
    patch = _prerequisites(emp, client, day(-(1 + k)))
    if k % 2:
        patch["site_access"] = [_grant("SAC-00109", emp, client["id"], -300, -150, "revoked")]
    return Intent(
        family="site-access",
        branch="nda-envelope",
        subject=emp,
        opening=f"I need badge access to the {client['name']} site for my engagement.",
        goal=f"Get site access at {client['name']}",
        description=f"NDA expired, new envelope given: record_nda, grant until {expiry}.",
        golden=[
            call("get_employee", employee_id=emp),
            call("get_client", client_id=client["id"]),
            call("get_employee_access", employee_id=emp),
            ctx.disclose(emp),
            call("record_nda", employee_id=emp, client_id=client["id"], envelope_id=envelope),
            call("grant_site_access", employee_id=emp, client_id=client["id"], expires_on=expiry),
        ],
        patch=patch,
        facts={"envelope_id": envelope},
        invariants=[
            inv(
                f"select expires_on from site_access where employee_id = '{emp}' "
                f"and client_id = '{client['id']}' and status = 'active'",
                expiry,
                "granted after the new NDA, capped expiry",
            )
        ],
    )


def clearance_gap(ctx: Ctx, k: int) -> Intent | None:
    """Clearance below the client's: ticket escalated to security, no grant."""
    return _clearance_gap(ctx, k, renewal=False)


def renew_clearance(ctx: Ctx, k: int) -> Intent | None:
    """A renewal whose clearance no longer suffices: escalate, the current grant stays."""
    return _clearance_gap(ctx, k, renewal=True)


def _clearance_gap(ctx: Ctx, k: int, renewal: bool) -> Intent | None:
    emp = ctx.requester
    found = _site(emp)
    if found is None:
        return None
    _, client, _ = found
    needed = client["required_clearance"]
    if needed == "none":
        return None
    patch: dict[str, list[Row]] = {}
    if GRADE_OK[EMP[emp]["clearance_level"]] >= GRADE_OK[needed]:
        patch["employees"] = [{"id": emp, "clearance_level": "none"}]
    if client["requires_nda"]:
        patch["ndas"] = _nda_rows(emp, client["id"], day(300 + k))
    invariants = [
        count_new("site_access", "no grant without the clearance", f"employee_id = '{emp}'")
    ]
    opening = f"I need badge access to the {client['name']} site for my engagement."
    if renewal:
        left = 2 + k % 12
        patch["site_access"] = [_grant("SAC-00110", emp, client["id"], left - 90, left, "active")]
        invariants.append(
            _status("site_access", "SAC-00110", "active", "the current grant runs out as it is")
        )
        opening = f"My {client['name']} badge expires soon; please renew it."
    ticket = ctx.new_id("TKT-")
    subject = f"{emp}: {client['name']} site access needs {needed} clearance"
    return Intent(
        family="site-access",
        branch="renew-clearance" if renewal else "clearance-gap",
        subject=emp,
        opening=opening,
        goal=f"Get site access at {client['name']}",
        description=f"Clearance below {needed}"
        + (": renewal not issued, the current grant stays" if renewal else "")
        + ": site_access ticket escalated to security.",
        golden=[
            call("get_employee", employee_id=emp),
            call("get_client", client_id=client["id"]),
            call("get_employee_access", employee_id=emp),
            ctx.disclose(emp),
            call("create_ticket", employee_id=emp, category="site_access", subject=subject),
            call("escalate_ticket", ticket_id=ticket, team="security", reason="clearance_required"),
        ],
        patch=patch,
        invariants=invariants,
        text=[says("tickets", "subject", {"id": ticket}, emp, needed)],
    )


def plain_grant(ctx: Ctx, k: int) -> Intent | None:
    """Every prerequisite holds (train): grant with the capped expiry."""
    emp = ctx.requester
    found = _site(emp)
    if found is None:
        return None
    _, client, expiry = found
    patch = _prerequisites(emp, client, day(200 + k))
    return Intent(
        family="site-access",
        branch="grant",
        subject=emp,
        opening=f"I need badge access to the {client['name']} site.",
        goal=f"Get site access at {client['name']}",
        description=f"All prerequisites hold: grant until {expiry}.",
        golden=[
            call("get_employee", employee_id=emp),
            call("get_employee_access", employee_id=emp),
            call("get_client", client_id=client["id"]),
            ctx.disclose(emp),
            call("grant_site_access", employee_id=emp, client_id=client["id"], expires_on=expiry),
        ],
        patch=patch,
        invariants=[
            inv(
                f"select expires_on from site_access where employee_id = '{emp}' "
                f"and status = 'active'",
                expiry,
                "capped expiry",
            )
        ],
    )


def no_assignment(ctx: Ctx, k: int) -> Intent | None:
    """Access to a client the requester does not work for (train): refused."""
    emp = ctx.requester
    asg = _assignment(emp)
    if asg is None:
        return None
    mine = ENG[asg["engagement_id"]]["client_id"]
    others = [c for c in sorted(CLIENT) if c != mine]
    client = CLIENT[others[k % len(others)]]
    return Intent(
        family="site-access",
        branch="no-assignment",
        subject=emp,
        opening=f"I'd like a badge for the {client['name']} site to visit a friend on the team.",
        goal=f"Get a badge for {client['name']}",
        description="No assignment with that client: refused.",
        golden=[call("get_employee", employee_id=emp)],
        invariants=[count_new("site_access", "no grant", f"employee_id = '{emp}'")],
        reply=(
            "I can't grant that badge: site access needs an active assignment with that client.",
            ("assignment",),
        ),
        refusal=True,
    )


# ----------------------------------------------------------------------------- travel


def _trip(
    tid: str, emp: str, eng: str, dest: str, out: int, back: int, cost: float, abroad: bool = False
) -> Row:
    return {
        "id": tid,
        "employee_id": emp,
        "engagement_id": eng,
        "destination": dest,
        "international": int(abroad),
        "depart_on": day(out),
        "return_on": day(back),
        "estimated_cost": cost,
        "status": "approved",
        "escalation_reason": None,
        "created_at": ts(-10),
        "decided_at": ts(-9),
    }


_CITIES = ("Leeds", "Denver", "Austin", "Bristol", "Glasgow", "Chicago", "Boston", "Dublin")


def rebook(ctx: Ctx, k: int) -> Intent | None:
    """Move an approved trip: the new request overlaps it, cancel the old, create, decide."""
    emp = ctx.requester
    asg = _assignment(emp)
    if asg is None:
        return None
    eng = ENG[asg["engagement_id"]]
    ceiling = 2500.0 if eng["billable"] else 1000.0
    dest = _CITIES[k % len(_CITIES)]
    outcome = ("approve", "short_notice", "over_budget")[k % 3]
    old_out, new_out = {"approve": (20, 22), "short_notice": (6, 4), "over_budget": (15, 17)}[
        outcome
    ]
    new_back = new_out + 2 + k % 2
    cost = round(ceiling * (1.2 if outcome == "over_budget" else 0.5) + 10 * k, 2)
    trips = [_trip("TRV-00110", emp, eng["id"], dest, old_out, old_out + 3, round(ceiling * 0.4))]
    if k % 2:
        trips.append(_trip("TRV-00111", emp, eng["id"], dest, 45, 47, round(ceiling * 0.3)))
    new = ctx.new_id("TRV-")
    decide = (
        call("approve_travel_request", request_id=new)
        if outcome == "approve"
        else call("escalate_travel_request", request_id=new, reason=outcome)
    )
    args = {
        "employee_id": emp,
        "engagement_id": eng["id"],
        "destination": dest,
        "international": False,
        "depart_on": day(new_out),
        "return_on": day(new_back),
        "estimated_cost": cost,
    }
    return Intent(
        family="travel",
        branch="rebook",
        subject=emp,
        opening=f"I need to move my {dest} trip to new dates.",
        goal=f"Get the {dest} trip rebooked",
        description=f"Approved TRV-00110 overlaps the new dates: cancel it, create {new}, "
        f"decide anew ({outcome}, ceiling {ceiling:.0f}).",
        golden=[
            call("list_travel_requests", employee_id=emp),
            ctx.disclose(emp),
            fails(call("create_travel_request", **args), "invalid_state"),
            call("cancel_travel_request", request_id="TRV-00110"),
            call("create_travel_request", **args),
            decide,
        ],
        patch={"travel_requests": trips},
        facts={
            "new_depart_on": day(new_out),
            "new_return_on": day(new_back),
            "new_cost": cost,
        },
        invariants=[
            _status("travel_requests", "TRV-00110", "cancelled", "the old trip is cancelled"),
            inv(
                "select status || ':' || coalesce(escalation_reason, '-') from travel_requests "
                f"where id = '{new}'",
                "approved:-" if outcome == "approve" else f"escalated:{outcome}",
                "the rebooked trip decided as a new one",
            ),
        ],
    )


def cancel_one(ctx: Ctx, k: int) -> Intent | None:
    """Two approved trips to one city: cancel the one the traveller names."""
    emp = ctx.requester
    asg = _assignment(emp)
    if asg is None:
        return None
    eng = asg["engagement_id"]
    dest = _CITIES[(k + 3) % len(_CITIES)]
    first, second = 12 + k % 5, 30 + k % 7
    target, keep = ("TRV-00120", "TRV-00121") if k % 2 else ("TRV-00121", "TRV-00120")
    out = first if target == "TRV-00120" else second
    return Intent(
        family="travel",
        branch="cancel-one",
        subject=emp,
        opening=f"Please cancel one of my {dest} trips; it's no longer needed.",
        goal=f"Cancel one {dest} trip",
        description=f"Two approved {dest} trips: cancel {target} (the one named), keep {keep}.",
        golden=[
            call("list_travel_requests", employee_id=emp),
            ctx.disclose(emp),
            call("cancel_travel_request", request_id=target),
        ],
        patch={
            "travel_requests": [
                _trip("TRV-00120", emp, eng, dest, first, first + 2, 640.0 + k),
                _trip("TRV-00121", emp, eng, dest, second, second + 2, 710.0 + k),
            ]
        },
        facts={"trip_depart_on": day(out)},
        invariants=[
            _status("travel_requests", target, "cancelled", "the named trip is cancelled"),
            _status("travel_requests", keep, "approved", "the other trip stays"),
        ],
    )


def cancel_started(ctx: Ctx, k: int) -> Intent | None:
    """Cancel a trip that departs today: refused, the travel team handles it."""
    emp = ctx.requester
    asg = _assignment(emp)
    if asg is None:
        return None
    dest = _CITIES[(k + 6) % len(_CITIES)]
    trip = _trip("TRV-00125", emp, asg["engagement_id"], dest, 0, 2 + k % 3, 820.0 + k)
    return Intent(
        family="travel",
        branch="cancel-started",
        subject=emp,
        opening=f"Please cancel my {dest} trip; the meeting was called off.",
        goal=f"Cancel the {dest} trip",
        description="TRV-00125 departs today: cancellation refused.",
        golden=[call("list_travel_requests", employee_id=emp)],
        patch={"travel_requests": [trip]},
        invariants=[_status("travel_requests", "TRV-00125", "approved", "a started trip stays")],
        reply=(
            "Trip TRV-00125 departs today, so I can't cancel it here; please contact the "
            "travel team.",
            ("travel team",),
        ),
        refusal=True,
    )


def new_trip(ctx: Ctx, k: int) -> Intent | None:
    """A new trip (train): approve, international, over budget or short notice by k."""
    emp = ctx.requester
    asg = _assignment(emp)
    if asg is None:
        return None
    eng = ENG[asg["engagement_id"]]
    ceiling = 2500.0 if eng["billable"] else 1000.0
    outcome = ("approve", "international", "over_budget", "short_notice")[k % 4]
    abroad = outcome == "international"
    out = 3 if outcome == "short_notice" else 10 + k % 9
    cost = round(ceiling * (1.1 if outcome == "over_budget" else 0.6) + 5 * k, 2)
    dest = ("Lyon", "Calgary", "Utrecht")[k % 3] if abroad else _CITIES[(k + 5) % len(_CITIES)]
    new = ctx.new_id("TRV-")
    decide = (
        call("approve_travel_request", request_id=new)
        if outcome == "approve"
        else call("escalate_travel_request", request_id=new, reason=outcome)
    )
    trip = {"employee_id": emp, "engagement_id": eng["id"], "destination": dest}
    trip |= {"international": abroad, "depart_on": day(out), "return_on": day(out + 2)}
    trip["estimated_cost"] = cost
    return Intent(
        family="travel",
        branch=f"new-{outcome.replace('_', '-')}",
        subject=emp,
        opening=f"I need to raise a travel request for a trip to {dest}.",
        goal=f"Raise the {dest} travel request",
        description=f"New trip: {outcome} (ceiling {ceiling:.0f}).",
        golden=[
            call("get_employee", employee_id=emp),
            call("get_engagement", engagement_id=eng["id"]),
            ctx.disclose(emp),
            call("create_travel_request", **trip),
            decide,
        ],
        facts={
            "engagement_id": eng["id"],
            "new_depart_on": day(out),
            "new_return_on": day(out + 2),
            "new_cost": cost,
            "abroad": "Yes, it's abroad." if abroad else "No, it's domestic.",
        },
        invariants=[
            inv(
                "select status || ':' || coalesce(escalation_reason, '-') from travel_requests "
                f"where id = '{new}'",
                "approved:-" if outcome == "approve" else f"escalated:{outcome}",
                "decided in policy order",
            )
        ],
    )


# ----------------------------------------------------------------------------- equipment


def _laptop(emp: str) -> Row | None:
    rows = [r for r in SEED["equipment"] if r["employee_id"] == emp and r["kind"] == "laptop"]
    return rows[0] if rows else None


def _lowest(model: str, skip: tuple[str, ...] = ()) -> str:
    return next(
        r["id"]
        for r in SEED["equipment"]
        if r["model"] == model and r["status"] == "in_stock" and r["id"] not in skip
    )


def upgrade(ctx: Ctx, k: int) -> Intent | None:
    """Promoted to senior with a Standard 14: assign refused (one laptop), return, assign."""
    emp = ctx.requester
    laptop = _laptop(emp)
    if EMP[emp]["grade"] != "consultant" or laptop is None or laptop["model"] != "Standard 14":
        return None
    patch: dict[str, list[Row]] = {"employees": [{"id": emp, "grade": "senior"}]}
    skip: tuple[str, ...] = ()
    if k % 2:
        first = _lowest("Performance 16")
        patch["equipment"] = [{"id": first, "status": "in_repair"}]
        skip = (first,)
    new = _lowest("Performance 16", skip)
    return Intent(
        family="equipment",
        branch="upgrade",
        subject=emp,
        opening="I was promoted to senior; can I swap my laptop for the senior model? I've "
        "brought the old one to the desk.",
        goal="Swap the laptop for the senior model",
        description=f"Senior with Standard 14 {laptop['id']}: assign {new} refused (one laptop), "
        "return the old one, assign the lowest in-stock Performance 16.",
        golden=[
            call("get_employee", employee_id=emp),
            call("list_available_equipment", kind="laptop"),
            ctx.disclose(emp),
            fails(call("assign_equipment", employee_id=emp, asset_id=new), "invalid_state"),
            call("return_equipment", asset_id=laptop["id"]),
            call("assign_equipment", employee_id=emp, asset_id=new),
        ],
        patch=patch,
        invariants=[
            inv(
                f"select group_concat(id) from equipment where employee_id = '{emp}' "
                "and kind = 'laptop'",
                new,
                "one laptop, the senior model",
            )
        ],
        sets_grade=True,
    )


def lost(ctx: Ctx, k: int) -> Intent | None:
    """A lost laptop: report it, ticket escalated to security, no replacement."""
    emp = ctx.requester
    laptop = _laptop(emp)
    if laptop is None:
        return None
    ticket = ctx.new_id("TKT-")
    return Intent(
        family="equipment",
        branch="lost",
        subject=emp,
        opening="I think my laptop was stolen on the train yesterday.",
        goal="Report the lost laptop",
        description=f"Lost {laptop['id']}: report lost, equipment ticket to security.",
        golden=[
            call("get_employee", employee_id=emp),
            ctx.disclose(emp),
            call("report_equipment_issue", asset_id=laptop["id"], issue="lost"),
            call(
                "create_ticket",
                employee_id=emp,
                category="equipment",
                subject=f"{emp}: laptop {laptop['id']} lost",
            ),
            call("escalate_ticket", ticket_id=ticket, team="security", reason="lost_device"),
        ],
        facts={"asset_id": laptop["id"]} if k % 2 else {},
        invariants=[
            _status("equipment", laptop["id"], "lost", "reported lost"),
            inv(
                f"select count(*) from equipment where employee_id = '{emp}' "
                "and status = 'assigned' and kind = 'laptop'",
                0,
                "no replacement before security's review",
            ),
        ],
        text=[says("tickets", "subject", {"id": ticket}, emp, laptop["id"])],
    )


def damaged(ctx: Ctx, k: int) -> Intent | None:
    """A damaged laptop (train): report it and assign the same model."""
    emp = ctx.requester
    laptop = _laptop(emp)
    if laptop is None:
        return None
    new = _lowest(laptop["model"])
    golden = [call("get_employee", employee_id=emp), ctx.disclose(emp)]
    report = call("report_equipment_issue", asset_id=laptop["id"], issue="damaged")
    assign = call("assign_equipment", employee_id=emp, asset_id=new)
    listing = call("list_available_equipment", kind="laptop")
    first = k % 2 == 1  # the replacement tried first: refused while the old one is held
    if first:
        golden += [listing, fails(assign, "invalid_state"), report, assign]
    else:
        golden += [report, listing, assign]
    return Intent(
        family="equipment",
        branch="damaged-assign-first" if first else "damaged",
        subject=emp,
        opening="My laptop screen cracked; I need a replacement.",
        goal="Get the damaged laptop replaced",
        description=f"Damaged {laptop['id']}: report damaged, assign {new}"
        + (" (assigning first is refused: one laptop per person)." if first else "."),
        golden=golden,
        facts={"asset_id": laptop["id"]},
        invariants=[_status("equipment", new, "assigned", "same-model replacement")],
    )


def monitor(ctx: Ctx, k: int) -> Intent | None:
    """A first monitor (train): the lowest in-stock tag."""
    emp = ctx.requester
    return Intent(
        family="equipment",
        branch="monitor",
        subject=emp,
        opening="Could I get a monitor for my desk?",
        goal="Get a monitor",
        description="No monitor yet: assign AST-0201.",
        golden=[
            call("get_employee", employee_id=emp),
            call("list_available_equipment", kind="monitor"),
            ctx.disclose(emp),
            call("assign_equipment", employee_id=emp, asset_id="AST-0201"),
        ],
        invariants=[_status("equipment", "AST-0201", "assigned", "the lowest tag")],
    )


# ----------------------------------------------------------------------------- software


def pool_full(ctx: Ctx, k: int) -> Intent | None:
    """No free seat: assign refused, software ticket on hold for the pool."""
    emp = ctx.requester
    titles = [s for s in ("SW-102", "SW-101", "SW-104", "SW-106") if not holds(emp, s)]
    if not titles:
        return None
    sw = titles[k % len(titles)]
    patch = {"software": [{"id": sw, "seats_total": seats_used(sw)}]}
    ticket = ctx.new_id("TKT-")
    name = SOFTWARE[sw]["name"]
    return Intent(
        family="software",
        branch="pool-full",
        subject=emp,
        opening=f"I need a {name} licence for my work.",
        goal=f"Get a {name} licence",
        description=f"{sw} pool full: assign refused, software ticket on hold licence_pool.",
        golden=[
            call("list_software"),
            ctx.disclose(emp),
            fails(call("assign_licence", employee_id=emp, software_id=sw), "invalid_state"),
            call(
                "create_ticket",
                employee_id=emp,
                category="software",
                subject=f"{emp}: waiting for a {name} seat",
            ),
            call("hold_ticket", ticket_id=ticket, reason="licence_pool"),
        ],
        patch=patch,
        invariants=[
            inv(
                f"select count(*) from licence_allocations where software_id = '{sw}' "
                "and status = 'active'",
                seats_used(sw),
                "no seat beyond the pool",
            )
        ],
        text=[says("tickets", "subject", {"id": ticket}, emp, [sw, name.split()[0]])],
    )


def swap_licence(ctx: Ctx, k: int) -> Intent | None:
    """Release a title no longer needed and take a standard one with a free seat."""
    emp = ctx.requester
    held = rows_of("licence_allocations", emp)
    wanted = [s for s in ("SW-105", "SW-104", "SW-101") if not holds(emp, s)]
    if not held or not wanted:
        return None
    old = held[k % len(held)]
    new = wanted[k % len(wanted)]
    return Intent(
        family="software",
        branch="swap",
        subject=emp,
        opening=f"I no longer need {SOFTWARE[old['software_id']]['name']}; could I have "
        f"{SOFTWARE[new]['name']} instead?",
        goal="Swap one licence for another",
        description=f"Release {old['id']}, assign {new} (standard, free seat).",
        golden=[
            call("get_employee_access", employee_id=emp),
            call("list_software"),
            ctx.disclose(emp),
            call("release_licence", allocation_id=old["id"]),
            call("assign_licence", employee_id=emp, software_id=new),
        ],
        invariants=[
            _status("licence_allocations", old["id"], "released", "old title released"),
            inv(
                f"select count(*) from licence_allocations where employee_id = '{emp}' "
                f"and software_id = '{new}' and status = 'active'",
                1,
                "new title assigned",
            ),
        ],
    )


def assign_title(ctx: Ctx, k: int) -> Intent | None:
    """A title with a free seat (train): standard assigned, restricted escalated for juniors."""
    emp = ctx.requester
    title = ("SW-105", "SW-103", "SW-104", "SW-108")[k % 4]
    if holds(emp, title):
        return None
    name = SOFTWARE[title]["name"]
    restricted = SOFTWARE[title]["tier"] == "restricted"
    junior = EMP[emp]["grade"] in ("analyst", "consultant")
    golden = [call("list_software"), ctx.disclose(emp)]
    if restricted and junior:
        ticket = ctx.new_id("TKT-")
        golden += [
            call(
                "create_ticket",
                employee_id=emp,
                category="software",
                subject=f"{emp}: {name} is restricted",
            ),
            call(
                "escalate_ticket",
                ticket_id=ticket,
                team="it_approvals",
                reason="restricted_software",
            ),
        ]
        text = [says("tickets", "subject", {"id": ticket}, emp, [title, name.split()[0]])]
    else:
        golden.append(call("assign_licence", employee_id=emp, software_id=title))
        text = []
    return Intent(
        family="software",
        branch="restricted-escalate" if restricted and junior else "assign",
        subject=emp,
        opening=f"Could I get a {name} licence?",
        goal=f"Get a {name} licence",
        description=f"{title} ({'restricted' if restricted else 'standard'}) for a "
        f"{EMP[emp]['grade']}.",
        golden=golden,
        invariants=[
            inv(
                f"select count(*) from licence_allocations where employee_id = '{emp}' "
                f"and software_id = '{title}' and status = 'active'",
                0 if restricted and junior else 1,
                "assigned only where the tier allows",
            )
        ],
        text=text,
    )


# ----------------------------------------------------------------------------- training


def _spent(emp: str) -> float:
    return sum(
        r["cost"]
        for r in SEED["enrolments"]
        if r["employee_id"] == emp and r["status"] != "cancelled" and r["created_at"] >= "2026"
    )


def _completed(emp: str) -> set[str]:
    return {
        r["course_id"]
        for r in SEED["enrolments"]
        if r["employee_id"] == emp and r["status"] == "completed"
    }


def _taken(emp: str) -> set[str]:
    return {r["course_id"] for r in SEED["enrolments"] if r["employee_id"] == emp}


def _enrolment(eid: str, emp: str, course: str, status: str, created: int) -> Row:
    return {
        "id": eid,
        "employee_id": emp,
        "course_id": course,
        "status": status,
        "cost": COURSE[course]["cost"],
        "created_at": ts(created),
        "updated_at": ts(created),
    }


def swap_course(ctx: Ctx, k: int) -> Intent | None:
    """Swap courses where the new one fits the budget only after the cancellation."""
    emp = ctx.requester
    budget = BUDGET[EMP[emp]["grade"]]
    done = _completed(emp)
    far = [c for c in sorted(COURSE) if days_until(COURSE[c]["starts_on"]) > 7 and c != "CRS-109"]
    for step in range(len(far) ** 2):
        i = (k + step) % len(far)
        j = (k * 3 + step // len(far)) % len(far)
        old, new = far[i], far[j]
        prereq = COURSE[new]["prerequisite_id"]
        if old == new or old in _taken(emp) or new in _taken(emp):
            continue
        if prereq is not None and prereq not in done:
            continue
        base = _spent(emp)
        filler = budget - base - COURSE[new]["cost"] - 50
        if filler < 0:
            continue
        filler = round(filler, 2)
        with_old = base + filler + COURSE[old]["cost"] + COURSE[new]["cost"]
        if COURSE[old]["cost"] == 0 or with_old <= budget:
            continue
        break
    else:
        return None
    filler_row = {
        "id": "ENR-00111",
        "employee_id": emp,
        "course_id": "CRS-109",
        "status": "completed",
        "cost": filler,
        "created_at": ts(-50),
        "updated_at": ts(-40),
    }
    if "CRS-109" in _taken(emp):
        return None
    return Intent(
        family="training",
        branch="swap",
        subject=emp,
        opening=f"I'd like to swap my place on {COURSE[old]['title']} for {COURSE[new]['title']}.",
        goal="Swap one course for another",
        description=f"Cancel ENR-00110 ({old}, >7 days out) first; {new} fits the "
        f"{budget:.0f} budget only after it.",
        golden=[
            call("get_training_record", employee_id=emp),
            call("list_courses"),
            ctx.disclose(emp),
            call("cancel_enrolment", enrolment_id="ENR-00110"),
            call("enrol_in_course", employee_id=emp, course_id=new),
        ],
        patch={"enrolments": [filler_row, _enrolment("ENR-00110", emp, old, "enrolled", -20)]},
        invariants=[
            _status("enrolments", "ENR-00110", "cancelled", "old place cancelled"),
            inv(
                f"select count(*) from enrolments where employee_id = '{emp}' "
                f"and course_id = '{new}' and status in ('enrolled', 'waitlisted')",
                1,
                "enrolled in the new course",
            ),
        ],
        grade_sensitive=True,
    )


def cancel_late(ctx: Ctx, k: int) -> Intent | None:
    """Cancel a course starting within 7 days: refused."""
    emp = ctx.requester
    near = [c for c in sorted(COURSE) if days_until(COURSE[c]["starts_on"]) <= 7]
    course = near[k % len(near)]
    if course in _taken(emp):
        return None
    return Intent(
        family="training",
        branch="cancel-late",
        subject=emp,
        opening=f"Please cancel my place on {COURSE[course]['title']}; I can't make it.",
        goal="Cancel the course place",
        description=f"{course} starts within 7 days: cancellation refused.",
        golden=[call("get_training_record", employee_id=emp)],
        patch={"enrolments": [_enrolment("ENR-00112", emp, course, "enrolled", -15)]},
        invariants=[_status("enrolments", "ENR-00112", "enrolled", "the place stays")],
        reply=(
            "Your place can't be cancelled: the course starts within 7 days, so it is charged "
            "anyway.",
            (["7 days", "seven days", "within the week"],),
        ),
        refusal=True,
    )


def swap_late(ctx: Ctx, k: int) -> Intent | None:
    """A swap whose first course starts within 7 days: refused as a whole, no enrolment."""
    emp = ctx.requester
    budget = BUDGET[EMP[emp]["grade"]]
    near = [c for c in sorted(COURSE) if 0 < days_until(COURSE[c]["starts_on"]) <= 7]
    old = near[k % len(near)]
    wanted = [
        c
        for c in sorted(COURSE)
        if c not in _taken(emp)
        and c != old
        and COURSE[c]["cost"] > 0
        and (
            COURSE[c]["prerequisite_id"] is None or COURSE[c]["prerequisite_id"] in _completed(emp)
        )
    ]
    if old in _taken(emp) or not wanted or "CRS-109" in _taken(emp):
        return None
    new = wanted[k % len(wanted)]
    filler = round(budget - _spent(emp) - COURSE[new]["cost"] - 40, 2)
    if filler < 0:
        return None
    filler_row = {
        "id": "ENR-00113",
        "employee_id": emp,
        "course_id": "CRS-109",
        "status": "completed",
        "cost": filler,
        "created_at": ts(-45),
        "updated_at": ts(-35),
    }
    return Intent(
        family="training",
        branch="swap-late",
        subject=emp,
        opening=f"I'd like to swap my place on {COURSE[old]['title']} for {COURSE[new]['title']}.",
        goal="Swap one course for another",
        description=f"{old} starts within 7 days, so it cannot be cancelled; {new} only fits "
        "the budget after a cancellation: the swap is refused, nothing changes.",
        golden=[call("get_training_record", employee_id=emp), call("list_courses")],
        patch={"enrolments": [filler_row, _enrolment("ENR-00114", emp, old, "enrolled", -25)]},
        invariants=[
            _status("enrolments", "ENR-00114", "enrolled", "the place stays"),
            inv(
                f"select count(*) from enrolments where employee_id = '{emp}' "
                f"and course_id = '{new}'",
                0,
                "no enrolment that only fits after a refused cancellation",
            ),
        ],
        reply=(
            "I can't make that swap: your current course starts within 7 days, so it can't be "
            "cancelled, and the new course only fits your budget after a cancellation.",
            (["7 days", "seven days", "within the week"], "budget"),
        ),
        refusal=True,
        grade_sensitive=True,
    )


def enrol(ctx: Ctx, k: int) -> Intent | None:
    """An enrolment (train): fits the budget, or refused for the prerequisite or budget."""
    emp = ctx.requester
    course = sorted(COURSE)[k % len(COURSE)]
    if course in _taken(emp) or course == "CRS-109":
        return None
    c = COURSE[course]
    budget = BUDGET[EMP[emp]["grade"]]
    prereq_ok = c["prerequisite_id"] is None or c["prerequisite_id"] in _completed(emp)
    ok = prereq_ok and _spent(emp) + c["cost"] <= budget
    golden = [call("get_training_record", employee_id=emp), call("list_courses")]
    if ok:
        golden += [ctx.disclose(emp), call("enrol_in_course", employee_id=emp, course_id=course)]
    branch = "enrol" if ok else ("prereq-missing" if not prereq_ok else "over-budget")
    return Intent(
        family="training",
        branch=branch,
        subject=emp,
        opening=f"Can you sign me up for {c['title']}?",
        goal=f"Enrol in {c['title']}",
        description=f"{course}: {branch}.",
        golden=golden,
        invariants=[
            inv(
                f"select count(*) from enrolments where employee_id = '{emp}' "
                f"and course_id = '{course}'",
                1 if ok else 0,
                "enrolled only when allowed",
            )
        ],
        refusal=not ok,
        grade_sensitive=True,
    )


# ----------------------------------------------------------------------------- tickets


_PROBLEMS = {
    "equipment": ("The docking station drops my monitor again every afternoon.", "docking"),
    "software": ("The licence activation error is back since Monday.", "activation"),
    "expenses": ("The reimbursement still hasn't reached my bank account.", "bank"),
    "training": ("The course portal still shows me as not registered.", "portal"),
    "travel": ("The booking tool still rejects my loyalty number.", "loyalty"),
}


def follow_up(ctx: Ctx, k: int) -> Intent | None:
    """A follow-up on a resolved ticket: note refused (final), new ticket with a note."""
    emp = ctx.requester
    category = sorted(_PROBLEMS)[k % len(_PROBLEMS)]
    problem, word = _PROBLEMS[category]
    old = {
        "id": "TKT-00110",
        "employee_id": emp,
        "category": category,
        "subject": f"{emp}: {category} problem",
        "status": "resolved",
        "team": "service_desk",
        "hold_reason": None,
        "escalation_reason": None,
        "created_at": ts(-20),
        "updated_at": ts(-15),
    }
    ticket = ctx.new_id("TKT-")
    by_id = k % 2 == 1
    note = call("add_ticket_note", ticket_id="TKT-00110", body=problem)
    return Intent(
        family="tickets",
        branch="follow-up-resolved",
        subject=emp,
        opening=f"The {category} problem from my last ticket is back; please add this to it.",
        goal="Get the recurring problem followed up",
        description=f"TKT-00110 is resolved (final): the note is refused; open {ticket} in "
        f"{category} naming TKT-00110 and note the problem there.",
        golden=[
            call("get_ticket", ticket_id="TKT-00110")
            if by_id
            else call("list_employee_tickets", employee_id=emp),
            ctx.disclose(emp),
            fails(note, "invalid_state"),
            call(
                "create_ticket",
                employee_id=emp,
                category=category,
                subject=f"{emp}: follow-up to TKT-00110, {category} problem is back",
            ),
            call("add_ticket_note", ticket_id=ticket, body=problem),
        ],
        patch={"tickets": [old]},
        facts={"problem": problem, **({"ticket_id": "TKT-00110"} if by_id else {})},
        invariants=[_status("tickets", "TKT-00110", "resolved", "the resolved ticket stays final")],
        text=[
            says("tickets", "subject", {"id": ticket}, emp, "TKT-00110"),
            says("ticket_notes", "body", {"ticket_id": ticket}, word),
        ],
    )


def note_open(ctx: Ctx, k: int) -> Intent | None:
    """New information on an open ticket (train): a note on it, no duplicate ticket."""
    emp = ctx.requester
    category = sorted(_PROBLEMS)[(k + 2) % len(_PROBLEMS)]
    problem, word = _PROBLEMS[category]
    row = {
        "id": "TKT-00115",
        "employee_id": emp,
        "category": category,
        "subject": f"{emp}: {category} problem",
        "status": "open",
        "team": "service_desk",
        "hold_reason": None,
        "escalation_reason": None,
        "created_at": ts(-4),
        "updated_at": ts(-4),
    }
    return Intent(
        family="tickets",
        branch="note-open",
        subject=emp,
        opening=f"I have an update for my open {category} ticket.",
        goal="Add the update to the open ticket",
        description="Open TKT-00115 takes the update as a note.",
        golden=[
            call("list_employee_tickets", employee_id=emp),
            ctx.disclose(emp),
            call("add_ticket_note", ticket_id="TKT-00115", body=problem),
        ],
        patch={"tickets": [row]},
        facts={"problem": problem},
        invariants=[count_new("tickets", "no duplicate ticket", f"employee_id = '{emp}'")],
        text=[says("ticket_notes", "body", {"ticket_id": "TKT-00115"}, word)],
    )
