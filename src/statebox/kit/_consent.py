"""Confirmations and disclosures: the conversation steps a policy mandates, as rows.

"Get the customer's explicit yes before cancelling" and "tell the customer the fee
before charging it" leave no trace in business tables, so the state check cannot see
whether they happened. A `ConsentLog` gives the agent two tools that record them —
``record_confirmation`` (what the customer confirmed) and ``record_disclosure`` (what
the agent told them) — each naming a topic code and the record it concerns, stamped
with the frozen clock. A task can then require the row like any other effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

from statebox.errors import DomainError
from statebox.kit._columns import IdFormat, Row, Table, ordered, stamp
from statebox.kit._tickets import Owner
from statebox.tools import ToolError, ToolParam, ToolSpec, make_tool
from statebox.world import WorldTx

__all__ = ["ConsentLog", "consent_tools"]


class ConsentLog(NamedTuple):
    """Where confirmations and disclosures go, and which topics a domain has."""

    subject: Owner
    """Who confirmed or was told (its guard, if any, runs first)."""
    related: tuple[Table, ...]
    """The records a step may concern; ``related_id`` must name a row of one of them."""
    confirmations: tuple[str, ...] = ()
    """Topics the customer may confirm; empty: no record_confirmation tool."""
    disclosures: tuple[str, ...] = ()
    """Topics the agent must disclose; empty: no record_disclosure tool."""
    docs: Mapping[str, str] = {}
    """Agent-facing text overrides: ``"<tool>"`` and ``"<tool>.<arg>"``."""
    table: str = "consent_log"
    """Table: ``id``, the subject column, ``kind`` ('confirmation'/'disclosure'),
    ``topic``, ``related_id``, ``created_at``."""
    ids: IdFormat = IdFormat("CNS-")
    """Id format of new rows."""

    def schema(self) -> str:
        """The table's DDL, for a domain whose schema does not declare it itself."""
        topics = ", ".join(
            f"'{t}'" for t in dict.fromkeys((*self.confirmations, *self.disclosures))
        )
        return (
            f'CREATE TABLE "{self.table}" (\n'
            f"    id TEXT PRIMARY KEY,  -- '{self.ids.prefix}{self.ids.start:0{self.ids.width}d}'\n"
            f'    "{self.subject.arg}" TEXT NOT NULL REFERENCES "{self.subject.table.name}"(id),\n'
            "    kind TEXT NOT NULL CHECK (kind IN ('confirmation', 'disclosure')),\n"
            f"    topic TEXT NOT NULL CHECK (topic IN ({topics})),\n"
            "    related_id TEXT NOT NULL,\n"
            "    created_at TEXT NOT NULL\n"
            ");\n"
        )


def consent_tools(log: ConsentLog) -> dict[str, ToolSpec]:
    """``record_confirmation`` and/or ``record_disclosure`` of ``log``, by name.

    Raises:
        DomainError: No topic at all, or ``docs`` names nothing the log has.
    """
    if not (log.confirmations or log.disclosures):
        raise DomainError(f"consent log {log.table}: give confirmation or disclosure topics")
    docs = dict(log.docs)
    subject = log.subject
    examples = ", ".join(repr(t.example) for t in log.related)

    def doc(key: str, default: str) -> str:
        return docs.pop(key, default)

    def recorder(kind: str) -> Any:
        def record(tx: WorldTx, **args: Any) -> Row:
            subject_id, related_id = args[subject.arg], args["related_id"]
            subject.table.row(tx, subject_id)
            if subject.guard is not None:
                subject.guard(tx, subject_id)
            if log.related and not any(t.get(tx, related_id) for t in log.related):
                raise ToolError("not_found", f"no record {related_id!r} (ids look like {examples})")
            row = {
                "id": log.ids.next(tx, log.table),
                subject.arg: subject_id,
                "kind": kind,
                "topic": args["topic"],
                "related_id": related_id,
                "created_at": stamp(tx),
            }
            return ordered(tx, log.table, tx.insert(log.table, row))

        return record

    tools: dict[str, ToolSpec] = {}
    for kind, topics, summary, topic_doc in (
        (
            "confirmation",
            log.confirmations,
            "Record that the customer explicitly confirmed an action before you took it.",
            "What the customer confirmed.",
        ),
        (
            "disclosure",
            log.disclosures,
            "Record that you told the customer what the policy requires you to tell them.",
            "What you told the customer.",
        ),
    ):
        if not topics:
            continue
        name = f"record_{kind}"
        tools[name] = make_tool(
            name,
            doc(name, summary),
            mutates=True,
            params=[
                ToolParam(subject.arg, str, doc(f"{name}.{subject.arg}", subject.doc)),
                ToolParam("topic", Literal[topics], doc(f"{name}.topic", topic_doc)),
                ToolParam(
                    "related_id",
                    str,
                    doc(f"{name}.related_id", f"The record it concerns, such as {examples}."),
                ),
            ],
            fn=recorder(kind),
        )
    if docs:
        raise DomainError(f"consent log {log.table}: docs name nothing it has: {sorted(docs)}")
    return tools
