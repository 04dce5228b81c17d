"""Verification log, identity tools, confirmations/disclosures and note logs of statebox.kit."""

from __future__ import annotations

import sqlite3

import pytest

from fixtures.kit_desk import LOANS, MEMBERS, NOW, SCHEMA, SEED
from statebox import kit
from statebox.errors import DomainError
from statebox.tools import Dispatcher, ToolCall, ToolResult, tool_map
from statebox.world import WorldTemplate

LOG = kit.VerificationLog(subject="member_id", tool="verify")
MEMBER = kit.Owner("member_id", MEMBERS, "Member id, such as 'M-1'.")
VERIFY = kit.identity_tool(
    kit.IdentityCheck(
        "verify",
        "Verify a caller.",
        MEMBER,
        proofs=(
            kit.Proof("email", "Their email.", kit.matches("members", "email")),
            kit.Proof("loan_id", "A loan of theirs.", kit.owns("loans", "member_id")),
            kit.Proof("name", "Their name.", kit.matches("members", "name")),
        ),
        methods=(("email", "loan_id"), ("email", "name")),
        log=LOG,
    )
)
CONSENTS = kit.ConsentLog(
    kit.Owner("member_id", MEMBERS, "Member id.", LOG.require),
    related=(LOANS,),
    confirmations=("loan_closure",),
    disclosures=("closure_fee",),
)


class Bench:
    def __init__(self) -> None:
        schema = SCHEMA + LOG.schema("members") + CONSENTS.schema()
        self.world = WorldTemplate.build(schema, SEED).clone(NOW)
        tools = [VERIFY, *kit.consent_tools(CONSENTS).values()]
        self.dispatcher = Dispatcher(self.world, tool_map(tools))

    def __call__(self, tool: str, **args: object) -> ToolResult:
        return self.dispatcher.call(ToolCall(tool=tool, args=args))

    def rows(self, table: str) -> list[dict[str, object]]:
        return self.world.query(f"SELECT * FROM {table} ORDER BY id")


def test_every_attempt_is_recorded_and_no_proof_is_named() -> None:
    b = Bench()
    wrong = b("verify", member_id="M-1", email="ann@example.com", loan_id="L-2")
    assert wrong.ok and wrong.output == {
        "verified": False,
        "event_id": "VER-00501",
        "member_id": "M-1",
    }
    right = b("verify", member_id="M-1", email=" ANN@example.com ", name="ann lee")
    assert right.ok and right.output["verified"] is True
    assert [(r["method"], r["result"]) for r in b.rows("verification_log")] == [
        ("email+loan_id", "failed"),
        ("email+name", "passed"),
    ]
    assert b.rows("verification_log")[1]["created_at"] == NOW.isoformat()
    # An incomplete set of proofs is no attempt: refused, nothing recorded.
    partial = b("verify", member_id="M-2", email="bo@example.com")
    assert partial.error is not None and partial.error.message == (
        "verify with email + loan_id or email + name"
    )
    assert not partial.wrote and len(b.rows("verification_log")) == 2


def test_steps_are_recorded_only_for_a_verified_subject_and_a_real_record() -> None:
    b = Bench()
    before = b("record_confirmation", member_id="M-2", topic="loan_closure", related_id="L-2")
    assert before.error is not None and before.error.message == (
        "member M-2 is not verified in this conversation; call verify first"
    )
    b("verify", member_id="M-2", email="bo@example.com", loan_id="L-2")
    bogus = b("record_disclosure", member_id="M-2", topic="closure_fee", related_id="L-7")
    assert (
        bogus.error is not None and bogus.error.message == "no record 'L-7' (ids look like 'L-1')"
    )
    told = b("record_disclosure", member_id="M-2", topic="closure_fee", related_id="L-2")
    yes = b("record_confirmation", member_id="M-2", topic="loan_closure", related_id="L-2")
    assert told.ok and yes.ok
    assert [(r["kind"], r["topic"], r["related_id"]) for r in b.rows("consent_log")] == [
        ("disclosure", "closure_fee", "L-2"),
        ("confirmation", "loan_closure", "L-2"),
    ]
    # The schema's CHECK keeps topics closed even for a direct write.
    with pytest.raises(sqlite3.IntegrityError), b.world.transaction() as tx:
        tx.insert(
            "consent_log",
            {**b.rows("consent_log")[0], "id": "CNS-9", "topic": "anything"},
        )
    with pytest.raises(DomainError):
        kit.consent_tools(CONSENTS._replace(confirmations=(), disclosures=()))


def test_a_note_log_guards_reads_not_writes() -> None:
    schema = (
        SCHEMA
        + (
            "CREATE TABLE notes (id TEXT PRIMARY KEY, member_id TEXT NOT NULL, loan_id TEXT, "
            "category TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL);"
        )
        + LOG.schema("members")
    )
    world = WorldTemplate.build(schema, SEED).clone(NOW)
    book = kit.NoteBook(
        "notes",
        "member_note",
        kit.IdFormat("NT-", width=2, start=1),
        kit.Owner("member_id", MEMBERS, "Member id.", LOG.require),
        ("call", "complaint"),
        links=(kit.Link("loan_id", "The loan."),),
    )
    tools = kit.note_tools(book)
    assert sorted(tools) == ["add_member_note", "list_member_notes"]
    assert list(tools["add_member_note"].input_schema()["properties"]) == [
        "member_id", "category", "body", "loan_id",
    ]  # fmt: skip
    d = Dispatcher(world, tool_map([*tools.values(), VERIFY]))
    added = d.call(
        ToolCall(
            tool="add_member_note", args={"member_id": "M-1", "category": "call", "body": " hi "}
        )
    )
    assert added.ok and added.output["id"] == "NT-01" and added.output["body"] == "hi"
    read = d.call(ToolCall(tool="list_member_notes", args={"member_id": "M-1"}))
    assert read.error is not None and read.error.kind == "not_permitted"
