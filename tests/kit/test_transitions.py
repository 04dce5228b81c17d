"""Status transitions (`kit.Transition`), row writes and lookups (`Table.update`, `missing`,
`found`) and the field policy (`kit.field_policy`) of statebox.kit."""

from __future__ import annotations

import pytest

from fixtures.kit_desk import world
from statebox import kit
from statebox.tools import ToolError

TICKETS = kit.Table("tickets", "ticket", "TK-001")
REOPEN = kit.Transition(TICKETS, allowed=("closed", "solved"), to="open", stamp="updated_at")


def _refusal(fn: object, *args: object) -> tuple[str, str]:
    with pytest.raises(ToolError) as err:
        fn(*args)  # type: ignore[operator]
    return err.value.kind, err.value.message


def test_a_transition_checks_the_status_writes_status_and_stamp_and_answers_the_row() -> None:
    w = world()
    with w.transaction() as tx:
        out = REOPEN.apply(tx, "TK-001", {"hold_reason": "member"})
        # The row as it now is, in the table's column order.
        assert list(out) == list(TICKETS.row(tx, "TK-001"))
        assert out == TICKETS.row(tx, "TK-001")
        assert (out["status"], out["updated_at"], out["hold_reason"]) == (
            "open",
            "2026-02-02T10:00:00+00:00",
            "member",
        )
        # Now open: refused with the default wording, and nothing written.
        assert _refusal(REOPEN.apply, tx, "TK-001") == ("invalid_state", "ticket TK-001 is open")
        assert _refusal(REOPEN.apply, tx, "TK-9") == (
            "not_found",
            "no ticket 'TK-9' (ids look like 'TK-001')",
        )


def test_refused_statuses_wording_kind_column_and_today() -> None:
    close = kit.Transition(
        TICKETS,
        allowed=None,
        to="closed",
        today="updated_at",
        refused=("closed",),
        refusal="{noun} {id} is already {status}; reopen it first",
        kind="not_permitted",
        column="status",
    )
    w = world()
    with w.transaction() as tx:
        assert _refusal(close.row, tx, "TK-001") == (
            "not_permitted",
            "ticket TK-001 is already closed; reopen it first",
        )
        REOPEN.apply(tx, "TK-001")
        assert close.apply(tx, "TK-001")["updated_at"] == "2026-02-02"
        # `check` alone is a status guard over a row looked up elsewhere.
        row = TICKETS.row(tx, "TK-001")
        assert REOPEN.check(row) is row
        guard = kit.Transition(TICKETS, allowed=("open",))
        assert _refusal(guard.check, row) == ("invalid_state", "ticket TK-001 is closed")
        # A guard writes only what it is given.
        assert guard.values(tx) == {} and guard.values(tx, {"team": "x"}) == {"team": "x"}


def test_table_update_writes_by_key_and_missing_words_the_refusal() -> None:
    w = world()
    members = kit.Table("members", "member", "M-1")
    by_email = kit.Table(
        "members", "member", "", key="email", missing="no member with email {key!r}"
    )
    bare = kit.Table("members", "member", "")
    with w.transaction() as tx:
        row = by_email.row(tx, "bo@example.com")
        assert by_email.update(tx, row, {"name": "Bo Kim"}) == {**row, "name": "Bo Kim"}
        assert members.row(tx, "M-2")["name"] == "Bo Kim"
        assert _refusal(by_email.row, tx, "x@y") == ("not_found", "no member with email 'x@y'")
        assert _refusal(bare.row, tx, "M-9") == ("not_found", "no member 'M-9'")


def test_field_policy_gives_free_text_its_reason_and_keeps_the_order() -> None:
    policy = kit.field_policy("notes.body", ("tickets.subject", "its own reason"), "a.b")
    assert [(e.table, e.column, e.reason) for e in policy.excluded] == [
        ("notes", "body", kit.FREE_TEXT),
        ("tickets", "subject", "its own reason"),
        ("a", "b", kit.FREE_TEXT),
    ]
    with pytest.raises(ValueError, match=r"write it as 'table\.column'"):
        kit.field_policy("body")


def test_found_answers_a_lookup_query_or_refuses_with_its_wording() -> None:
    w = world()
    sql = "SELECT id FROM members WHERE lower(email) = lower(?)"
    with w.transaction() as tx:
        assert kit.found(tx, sql, ["ANN@example.com"], "no member") == {"id": "M-1"}
        assert _refusal(kit.found, tx, sql, ["x@y"], "no member with email 'x@y'") == (
            "not_found",
            "no member with email 'x@y'",
        )
