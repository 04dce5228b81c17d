"""`statebox.testing`: the public harness that drives a domain's tools on a world."""

from __future__ import annotations

import sqlite3

import pytest

from fixtures.kit_desk import SCHEMA, SEED, desk
from statebox import kit
from statebox.domains import Domain
from statebox.tasks import GoldenCall
from statebox.testing import Desk, Outcome, suite_tasks_of

LOANS = Domain(
    name="loans",
    schema_sql=SCHEMA,
    seed=SEED,
    tools=kit.ticket_tools(desk()).values(),
    policy="# Loan desk\n\nOpen a ticket for every question.\n",
)
NOW = "2026-02-02T10:00:00+00:00"
CREATE = {"member_id": "M-1", "category": "loans", "subject": "Rate", "priority": "normal"}


def test_a_seeded_desk_calls_tools_through_the_dispatcher_and_reads_rows() -> None:
    with Desk.seeded(LOANS, NOW) as d:
        made = d("create_ticket", **CREATE)
        assert made.ok and made.wrote and made.kind is None and made.message == ""
        assert made.succeeded()["id"] == "TK-501"
        assert made.output["created_at"] == NOW  # the frozen clock
        assert d.value("select subject from tickets where id = 'TK-501'") == "Rate"
        assert d.one("select id from tickets where id = ?", "TK-501") == {"id": "TK-501"}
        assert len(d.rows("select id from tickets")) == 2
        with pytest.raises(AssertionError, match="expected one row, got 2"):
            d.one("select id from tickets")
        with pytest.raises(AssertionError, match="expected one column"):
            d.value("select id, status from tickets where id = 'TK-501'")
        d.set("tickets", {"id": "TK-501"}, {"status": "closed"})
        assert d.value("select status from tickets where id = 'TK-501'") == "closed"
    with pytest.raises(sqlite3.ProgrammingError):  # the desk closed its world
        d.rows("select 1")


def test_outcomes_carry_kind_class_and_message_and_check_them() -> None:
    with Desk.seeded(LOANS, NOW) as d:
        missing = d("get_ticket", ticket_id="TK-9")
        assert (missing.ok, missing.kind, missing.error_class, missing.wrote) == (
            False,
            "not_found",
            "not_found",
            False,
        )
        assert missing.message == "no ticket 'TK-9' (ids look like 'TK-001')"
        assert missing.refused("not_found", "TK-9", error_class="not_found") is missing
        with pytest.raises(AssertionError, match="got not_found"):
            missing.refused("invalid_state")
        with pytest.raises(AssertionError, match="any class"):
            missing.refused("invalid_state")
        with pytest.raises(AssertionError, match=r"does not name \['TK-8'\]"):
            missing.refused("not_found", "TK-8")
        with pytest.raises(AssertionError, match="got not_found \\(not_found\\)"):
            missing.refused("not_found", error_class="conflict")
        with pytest.raises(AssertionError, match="expected success; refused not_found"):
            missing.succeeded()
        ok = d("get_ticket", ticket_id="TK-001")
        with pytest.raises(AssertionError, match="the call succeeded"):
            ok.refused("not_found")
        # Arguments are validated as an agent's JSON: a number is not a string.
        bad = d("get_ticket", ticket_id=7)
        assert bad.kind == "invalid_arguments" and isinstance(bad, Outcome)
        closed = d("hold_ticket", ticket_id="TK-001", reason="member")
        closed.refused("invalid_state", "closed")


def test_a_task_desk_starts_from_the_tasks_world_and_clock_and_keeps_the_allowlist() -> None:
    task = {
        "id": "loans.t.001",
        "domain": "loans",
        "now": "2026-03-01T08:00:00+00:00",
        "initial_state": {"upsert": {"members": [{"id": "M-3", "email": "c@x", "name": "Cy"}]}},
        "user": {"opening": "Hi."},
        "golden": [{"tool": "create_ticket", "args": {**CREATE, "member_id": "M-3"}}],
    }
    with Desk.of_task(LOANS, task, allowlist=["create_ticket"]) as d:
        [made] = d.play([GoldenCall(tool="create_ticket", args={**CREATE, "member_id": "M-3"})])
        assert made.succeeded()["created_at"] == "2026-03-01T08:00:00+00:00"
        assert d("get_ticket", ticket_id="TK-001").refused("unknown_tool").kind == "unknown_tool"
    with Desk.seeded(LOANS, NOW) as fresh:  # a task's patch never reaches the template
        assert fresh.rows("select id from members where id = 'M-3'") == []


def test_suite_tasks_of_refuses_a_version_the_domain_does_not_ship() -> None:
    with pytest.raises(LookupError, match=r"domain loans ships no suite 2\.0"):
        suite_tasks_of(LOANS, "2.0")


def test_setting_a_row_that_does_not_exist_is_an_error_not_a_silent_no_op() -> None:
    with Desk.seeded(LOANS, NOW) as d:
        with pytest.raises(AssertionError, match="no row of tickets matches"):
            d.set("tickets", {"id": "TK-NOPE"}, {"status": "closed"})
        with pytest.raises(TypeError, match="key must be a mapping"):
            d.set("tickets", "TK-501", {"status": "closed"})  # type: ignore[arg-type]
