"""Identity verification with a verification log: every attempt is a row.

A `VerificationLog` records each attempt (passed or failed) with the frozen clock, so a
mandatory "verify the caller first" step leaves a trace the state check can require,
and `require` lets other tools refuse until a verification passed *in this
conversation* (a row stamped with the episode clock; seeded rows are older).

`identity_tool` builds a verification tool from proofs: each proof is an optional
argument (an email, an order id, a full name) and a check that it matches the subject;
``methods`` lists the combinations that identify a caller. The tool never says which
proof failed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from statebox.kit._columns import IdFormat, Row, ordered, stamp
from statebox.kit._tickets import Owner
from statebox.tools import ToolError, ToolParam, ToolSpec, make_tool
from statebox.world import WorldTx

__all__ = ["IdentityCheck", "Proof", "VerificationLog", "identity_tool", "matches", "owns"]


class VerificationLog(NamedTuple):
    """The table verification attempts go to, and the rule that reads it."""

    subject: str = "customer_id"
    """Column naming who was verified (``customer_id``: a customer)."""
    tool: str | None = None
    """The tool a refusal tells the agent to call; None: ``verify_<subject>``."""
    table: str = "verification_log"
    """Table: ``id``, the subject column, ``method``, ``result`` ('passed'/'failed'),
    ``created_at``, plus any columns a domain records beside them."""
    ids: IdFormat = IdFormat("VER-")
    """Id format of new rows."""

    @property
    def noun(self) -> str:
        """What the subject is called in messages (``customer``)."""
        return self.subject.removesuffix("_id")

    def schema(self, subject_table: str) -> str:
        """The table's DDL, for a domain whose schema does not declare it itself.

        Args:
            subject_table: The table the subject column references.
        """
        return (
            f'CREATE TABLE "{self.table}" (\n'
            f"    id TEXT PRIMARY KEY,  -- '{self.ids.prefix}{self.ids.start:0{self.ids.width}d}'\n"
            f'    "{self.subject}" TEXT NOT NULL REFERENCES "{subject_table}"(id),\n'
            "    method TEXT NOT NULL,\n"
            "    result TEXT NOT NULL CHECK (result IN ('passed', 'failed')),\n"
            "    created_at TEXT NOT NULL\n"
            ");\n"
        )

    def record(
        self, tx: WorldTx, subject_id: str | None, *, method: str, passed: bool, **columns: Any
    ) -> Row:
        """Insert one attempt and return the row as stored (columns in table order)."""
        row = {
            "id": self.ids.next(tx, self.table),
            self.subject: subject_id,
            **columns,
            "method": method,
            "result": "passed" if passed else "failed",
            "created_at": stamp(tx),
        }
        return ordered(tx, self.table, tx.insert(self.table, row))

    def passed(self, tx: WorldTx, subject_id: str) -> bool:
        """Whether the subject passed a verification in this conversation."""
        return (
            tx.one(
                f'SELECT id FROM "{self.table}" WHERE "{self.subject}" = ? '
                "AND result = 'passed' AND created_at = ?",
                [subject_id, stamp(tx)],
            )
            is not None
        )

    def require(self, tx: WorldTx, subject_id: str) -> None:
        """Refuse unless the subject passed a verification in this conversation.

        Raises:
            ToolError: ``not_permitted``, naming the tool to call.
        """
        if not self.passed(tx, subject_id):
            raise ToolError(
                "not_permitted",
                f"{self.noun} {subject_id} is not verified in this conversation; "
                f"call {self.tool or 'verify_' + self.noun} first",
            )


Check = Callable[[WorldTx, str, str], bool]
"""(tx, subject id, the value the caller gave) → whether it matches the subject."""


class Proof(NamedTuple):
    """One thing a caller can say to prove who they are."""

    arg: str
    """Argument name (optional in the tool, null when not given)."""
    doc: str
    """The argument's agent-facing line."""
    check: Check
    """Whether the value matches the subject."""


def matches(table: str, expression: str, *, key: str = "id") -> Check:
    """A check that the subject's ``expression`` (a column or SQL expression) equals the value.

    Compared case-insensitively, the value stripped: ``matches("customers", "email")``.
    """

    def check(tx: WorldTx, subject_id: str, value: str) -> bool:
        row = tx.one(
            f'SELECT 1 FROM "{table}" WHERE "{key}" = ? AND lower({expression}) = lower(?)',
            [subject_id, value.strip()],
        )
        return row is not None

    return check


def owns(table: str, owner_column: str, *, key: str = "id") -> Check:
    """A check that a row of ``table`` whose ``key`` is the value (any case) is the subject's."""

    def check(tx: WorldTx, subject_id: str, value: str) -> bool:
        row = tx.one(
            f'SELECT 1 FROM "{table}" WHERE lower("{key}") = lower(?) AND "{owner_column}" = ?',
            [value.strip(), subject_id],
        )
        return row is not None

    return check


class IdentityCheck(NamedTuple):
    """A verification tool declared as data (see module docs)."""

    name: str
    """Tool name, e.g. ``verify_customer``."""
    description: str
    """Agent-facing description."""
    subject: Owner
    """Who is being verified: the argument, the table, its line (the guard is unused)."""
    proofs: tuple[Proof, ...]
    """What a caller may give."""
    methods: tuple[tuple[str, ...], ...]
    """Accepted combinations of proofs (argument names, in ``proofs`` order)."""
    log: VerificationLog
    """Where every attempt is recorded."""


def identity_tool(check: IdentityCheck) -> ToolSpec:
    """The verification tool of ``check``.

    The tool refuses (``invalid_state``, nothing recorded) a set of proofs that is no
    accepted method; otherwise it records the attempt and answers ``verified`` true or
    false, never which proof failed.
    """
    subject = check.subject
    accepted = {tuple(m) for m in check.methods}
    ways = " or ".join(" + ".join(m) for m in check.methods)

    def verify(tx: WorldTx, **args: Any) -> dict[str, Any]:
        subject_id = args[subject.arg]
        subject.table.row(tx, subject_id)
        given = tuple(p.arg for p in check.proofs if args.get(p.arg) is not None)
        if given not in accepted:
            raise ToolError("invalid_state", f"verify with {ways}")
        passed = all(p.check(tx, subject_id, args[p.arg]) for p in check.proofs if p.arg in given)
        event = check.log.record(tx, subject_id, method="+".join(given), passed=passed)
        return {"verified": passed, "event_id": event["id"], subject.arg: subject_id}

    return make_tool(
        check.name,
        check.description,
        mutates=True,
        params=[
            ToolParam(subject.arg, str, subject.doc),
            *(ToolParam(p.arg, str | None, p.doc, None) for p in check.proofs),
        ],
        fn=verify,
    )
