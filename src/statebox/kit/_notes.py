"""Customer notes: an internal log of notes on a customer (or employee) record.

Writing a note needs no guard — an agent may note a failed verification attempt — but
reading the log runs the owner's guard, so notes are never disclosed to an unverified
caller. Categories are codes (compared); the body is free text (a domain's field policy
leaves it out of comparison).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

from statebox.errors import DomainError
from statebox.kit._columns import IdFormat, Row, ordered, stamp
from statebox.kit._tickets import Link, Owner
from statebox.tools import ToolError, ToolParam, ToolSpec, make_tool
from statebox.world import WorldTx

__all__ = ["NoteBook", "note_tools"]


class NoteBook(NamedTuple):
    """A note log declared as data; `note_tools` builds its tools."""

    table: str
    """Table of notes: ``id``, the owner column, the link columns, ``category``, ``body``,
    ``created_at``."""
    name: str
    """Singular tool noun: ``crm_note`` gives ``add_crm_note`` and ``list_crm_notes``."""
    ids: IdFormat
    """Id format of new notes."""
    owner: Owner
    """Whose notes; its guard runs on reads only."""
    categories: tuple[str, ...]
    """Category codes."""
    links: tuple[Link, ...] = ()
    """Objects a note may point at (optional arguments, after the body)."""
    clean_text: bool = True
    """Strip the body and refuse it empty."""
    docs: Mapping[str, str] = {}
    """Agent-facing text overrides: ``"<tool>"`` and ``"<tool>.<arg>"``."""


def note_tools(book: NoteBook) -> dict[str, ToolSpec]:
    """``add_<name>`` and ``list_<name>s`` of a note log, by name.

    Raises:
        DomainError: ``docs`` names a tool or argument the log does not have.
    """
    docs = dict(book.docs)
    owner = book.owner

    def doc(key: str, default: str) -> str:
        return docs.pop(key, default)

    def add_note(tx: WorldTx, **args: Any) -> Row:
        owner_id = args[owner.arg]
        owner.table.row(tx, owner_id)
        body = args["body"]
        if book.clean_text:
            if not body.strip():
                raise ToolError(
                    "invalid_state", "note body must not be empty", error_class="invalid_arguments"
                )
            body = body.strip()
        for link in book.links:
            if args.get(link.arg) is not None and link.lookup is not None:
                link.lookup(tx, args[link.arg])
        row = {
            "id": book.ids.next(tx, book.table),
            owner.arg: owner_id,
            **{link.arg: args.get(link.arg) for link in book.links},
            "category": args["category"],
            "body": body,
            "created_at": stamp(tx),
        }
        return ordered(tx, book.table, tx.insert(book.table, row))

    def list_notes(tx: WorldTx, **args: Any) -> list[Row]:
        owner_id = args[owner.arg]
        owner.table.row(tx, owner_id)
        if owner.guard is not None:
            owner.guard(tx, owner_id)
        return tx.query(
            f'SELECT * FROM "{book.table}" WHERE "{owner.arg}" = ? ORDER BY created_at DESC, id',
            [owner_id],
        )

    add, lst = f"add_{book.name}", f"list_{book.name}s"
    noun = owner.arg.removesuffix("_id")
    tools = {
        add: make_tool(
            add,
            doc(add, f"Add an internal note to a {noun}'s record."),
            mutates=True,
            params=[
                ToolParam(owner.arg, str, doc(f"{add}.{owner.arg}", owner.doc)),
                ToolParam(
                    "category",
                    Literal[book.categories],
                    doc(f"{add}.category", "What the note is about."),
                ),
                ToolParam("body", str, doc(f"{add}.body", "The note text.")),
                *(
                    ToolParam(link.arg, str | None, doc(f"{add}.{link.arg}", link.doc), None)
                    for link in book.links
                ),
            ],
            fn=add_note,
        ),
        lst: make_tool(
            lst,
            doc(lst, f"List a {noun}'s notes, newest first."),
            mutates=False,
            params=[ToolParam(owner.arg, str, doc(f"{lst}.{owner.arg}", owner.doc))],
            fn=list_notes,
        ),
    }
    if docs:
        raise DomainError(f"note log {book.name}: docs name nothing it has: {sorted(docs)}")
    return tools
