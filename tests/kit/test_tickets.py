"""Ticket desks built by statebox.kit: one rule set, parameters for what differs."""

from __future__ import annotations

import pytest

from fixtures.kit_desk import MEMBERS, Desk, desk
from statebox import kit
from statebox.errors import DomainError
from statebox.tools import ToolError
from statebox.world import state_hash


def test_the_desk_builds_the_tools_its_parameters_ask_for() -> None:
    tools = kit.ticket_tools(desk())
    assert sorted(tools) == [
        "add_ticket_note",
        "create_ticket",
        "escalate_ticket",
        "get_ticket",
        "hold_ticket",
        "list_member_tickets",
        "update_ticket",
    ]
    assert {n for n, t in tools.items() if not t.mutates} == {"get_ticket", "list_member_tickets"}
    bare = kit.ticket_tools(desk(statuses=(), comments=None, resolved="closed"))
    assert "update_ticket" not in bare and "add_ticket_note" not in bare
    assert "resolve_ticket" in bare
    schema = tools["create_ticket"].input_schema()
    assert list(schema["properties"]) == ["member_id", "category", "subject", "loan_id", "priority"]
    assert schema["required"] == ["member_id", "category", "subject"]
    assert schema["properties"]["category"]["enum"] == ["loans", "account"]
    assert schema["additionalProperties"] is False
    assert tools["get_ticket"].description == "Get a support ticket with its notes."
    assert tools["get_ticket"].params.model_fields["ticket_id"].description == (
        "Ticket id, such as 'TK-001'."
    )


def test_docs_and_argument_order_are_the_domains_but_checked() -> None:
    tools = kit.ticket_tools(
        desk(
            create_args=("member_id", "subject", "category", "priority", "loan_id"),
            docs={"hold_ticket": "Park a ticket.", "hold_ticket.reason": "Who it waits for."},
        )
    )
    assert list(tools["create_ticket"].input_schema()["properties"])[:3] == [
        "member_id",
        "subject",
        "category",
    ]
    assert tools["hold_ticket"].description == "Park a ticket."
    with pytest.raises(DomainError, match="hold_tiket"):
        kit.ticket_tools(desk(docs={"hold_tiket": "typo"}))
    with pytest.raises(DomainError, match="create_args"):
        kit.ticket_tools(desk(create_args=("member_id", "subject")))


def test_a_ticket_lifecycle_keeps_the_rules() -> None:
    d = Desk()
    created = d(
        "create_ticket", member_id="M-1", category="loans", subject="  Fee  ", loan_id="L-1"
    )
    assert created.ok, created.error
    row = created.output
    assert list(row) == [
        "id", "member_id", "loan_id", "category", "subject", "status", "priority", "team",
        "hold_reason", "escalation_reason", "created_at", "updated_at",
    ]  # fmt: skip
    assert (row["id"], row["subject"], row["status"], row["priority"], row["team"]) == (
        "TK-501", "Fee", "open", "normal", "desk",
    )  # fmt: skip
    other = d("create_ticket", member_id="M-1", category="loans", subject="x", loan_id="L-2")
    assert other.error is not None and (other.error.kind, other.error.message) == (
        "invalid_state",
        "loan L-2 is another member's",
    )
    assert d("create_ticket", member_id="M-1", category="loans", subject=" ").error is not None
    held = d("hold_ticket", ticket_id="TK-501", reason="member")
    assert held.ok and held.output["status"] == "hold"
    again = d("hold_ticket", ticket_id="TK-501", reason="member")
    assert again.error is not None and "already on hold for member" in again.error.message
    reopened = d("update_ticket", ticket_id="TK-501", status="open")
    assert reopened.ok and reopened.output["hold_reason"] is None  # leaving hold clears it
    nothing = d("update_ticket", ticket_id="TK-501", status="open")
    assert nothing.error is not None and nothing.error.message.startswith("nothing to change")
    up = d("escalate_ticket", ticket_id="TK-501", team="credit", reason="dispute")
    assert up.ok and (up.output["team"], up.output["escalation_reason"]) == ("credit", "dispute")
    same = d("escalate_ticket", ticket_id="TK-501", team="credit", reason="dispute")
    assert same.error is not None and same.error.message == "ticket TK-501 is already with credit"
    note = d("add_ticket_note", ticket_id="TK-501", body=" called back ", public=False)
    assert note.ok and note.output == {
        "id": "TN-501", "ticket_id": "TK-501", "author": "agent", "public": 0,
        "body": "called back", "created_at": "2026-02-02T10:00:00+00:00",
    }  # fmt: skip
    got = d("get_ticket", ticket_id="TK-501")
    assert got.ok and [n["id"] for n in got.output["notes"]] == ["TN-501"]
    listed = d("list_member_tickets", member_id="M-1")
    assert listed.ok and [t["id"] for t in listed.output] == ["TK-501", "TK-001"]  # newest first
    unknown = d("get_ticket", ticket_id="TK-9")
    assert unknown.error is not None and unknown.error.message == (
        "no ticket 'TK-9' (ids look like 'TK-001')"
    )


def test_a_final_ticket_refuses_every_write_and_changes_nothing() -> None:
    d = Desk(desk(final_hint="open a new one"))
    before = state_hash(d.world.state().rows)
    for tool, args in [
        ("hold_ticket", {"reason": "branch"}),
        ("update_ticket", {"status": "open"}),
        ("escalate_ticket", {"team": "credit", "reason": "dispute"}),
        ("add_ticket_note", {"body": "x", "public": True}),
    ]:
        r = d(tool, ticket_id="TK-001", **args)
        assert r.error is not None and r.error.message == "ticket TK-001 is closed; open a new one"
        assert not r.wrote
    assert state_hash(d.world.state().rows) == before


def test_tier_escalation_bumps_priority_and_status() -> None:
    tier = kit.TierEscalation(
        reasons=("safety", "fraud"), urgent=("safety",), refused_in=("solved",)
    )
    d = Desk(desk(escalation=tier, final=None, hold=kit.Hold(("member",), blocked_by=("solved",))))
    assert "team" not in d.tools["escalate_ticket"].input_schema()["properties"]
    d("create_ticket", member_id="M-2", category="account", subject="Card")
    up = d("escalate_ticket", ticket_id="TK-501", reason="safety")
    assert up.ok and (up.output["status"], up.output["priority"]) == ("escalated", "urgent")
    twice = d("escalate_ticket", ticket_id="TK-501", reason="fraud")
    assert twice.error is not None and twice.error.message == "ticket TK-501 is escalated"
    d("update_ticket", ticket_id="TK-501", status="solved")
    blocked = d("hold_ticket", ticket_id="TK-501", reason="member")
    assert blocked.error is not None and blocked.error.message.endswith("reopen it first")


def test_a_guard_refuses_before_anything_is_read() -> None:
    calls: list[str] = []

    def guard(tx: object, member_id: str) -> None:
        calls.append(member_id)
        if member_id != "M-2":
            raise ToolError("not_permitted", f"member {member_id} is not verified")

    d = Desk(desk(owner=kit.Owner("member_id", MEMBERS, "Member id.", guard)))
    refused = d("get_ticket", ticket_id="TK-001")
    assert refused.error is not None and refused.error.kind == "not_permitted"
    assert d("list_member_tickets", member_id="M-2").ok
    assert calls == ["M-1", "M-2"]
