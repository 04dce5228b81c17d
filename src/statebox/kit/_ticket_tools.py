"""The ticket tools of a `TicketDesk`: its operations, and the tools built on them.

`ticket_tools` turns a desk (`statebox.kit._tickets`) into tools: arguments, their
agent-facing lines and each tool's description come from the desk (or its ``docs``
overrides); the operations below keep the rules the desk's docstring lists.
"""

from __future__ import annotations

from typing import Any, Literal

from statebox.errors import DomainError
from statebox.kit._columns import Row, ordered, stamp, text
from statebox.kit._tickets import TeamEscalation, TicketDesk
from statebox.tools import REQUIRED, ToolError, ToolParam, ToolSpec, make_tool
from statebox.world import WorldTx

__all__ = ["ticket_tools"]


def _lit(values: tuple[str, ...]) -> Any:
    return Literal[values]


class _Desk:
    """The operations of one desk; the tools call these."""

    def __init__(self, desk: TicketDesk) -> None:
        self.d = desk
        self.table = desk.tickets.name

    def owner_row(self, tx: WorldTx, owner_id: str) -> Row:
        row = self.d.owner.table.row(tx, owner_id)
        if self.d.owner.guard is not None:
            self.d.owner.guard(tx, owner_id)
        return row

    def ticket(self, tx: WorldTx, ticket_id: str) -> Row:
        row = self.d.tickets.row(tx, ticket_id)
        if self.d.owner.guard is not None:
            self.d.owner.guard(tx, text(row[self.d.owner.arg]))
        return row

    def writable(self, tx: WorldTx, ticket_id: str) -> Row:
        row = self.ticket(tx, ticket_id)
        if self.d.final is not None and row["status"] == self.d.final:
            raise ToolError(
                "invalid_state", f"ticket {ticket_id} is {self.d.final}; {self.d.final_hint}"
            )
        return row

    def clean(self, value: str, what: str) -> str:
        if not self.d.clean_text:
            return value
        if not value.strip():
            raise ToolError(
                "invalid_state", f"{what} must not be empty", error_class="invalid_arguments"
            )
        return value.strip()

    def change(self, tx: WorldTx, row: Row, values: dict[str, Any]) -> dict[str, Any]:
        values["updated_at"] = stamp(tx)
        tx.update(self.table, {"id": row["id"]}, values)
        return {**row, **values}

    def get(self, tx: WorldTx, ticket_id: str) -> dict[str, Any]:
        row = self.ticket(tx, ticket_id)
        c = self.d.comments
        if c is None:
            return row
        cols = ", ".join(c.columns) if c.columns else "*"
        log = tx.query(
            f'SELECT {cols} FROM "{c.table}" WHERE ticket_id = ? ORDER BY created_at, id',
            [ticket_id],
        )
        return {**row, f"{c.noun}s": log}

    def list(self, tx: WorldTx, **args: str) -> list[dict[str, Any]]:
        owner_id = args[self.d.owner.arg]
        self.owner_row(tx, owner_id)
        cols = ", ".join(self.d.list_columns) if self.d.list_columns else "*"
        order = "created_at DESC, id" if self.d.newest_first else "id"
        return tx.query(
            f'SELECT {cols} FROM "{self.table}" WHERE "{self.d.owner.arg}" = ? ORDER BY {order}',
            [owner_id],
        )

    def create(self, tx: WorldTx, **args: Any) -> dict[str, Any]:
        d = self.d
        owner_id = args[d.owner.arg]
        self.owner_row(tx, owner_id)
        for link in d.links:
            value = args.get(link.arg)
            if value is None or link.lookup is None:
                continue
            linked = link.lookup(tx, value)
            if link.owner_column is not None and linked[link.owner_column] != owner_id:
                raise ToolError(link.refusal, link.message.format(id=value))
        now = stamp(tx)
        row: dict[str, Any] = {
            "id": d.ids.next(tx, self.table),
            d.owner.arg: owner_id,
            **{link.arg: args.get(link.arg) for link in d.links},
            "subject": self.clean(args["subject"], "subject"),
            "category": args["category"],
            "status": "open",
            "hold_reason": None,
            "escalation_reason": None,
            "created_at": now,
            "updated_at": now,
        }
        if d.priorities is not None:
            row["priority"] = args["priority"]
        if d.team is not None:
            row["team"] = d.team
        return ordered(tx, self.table, tx.insert(self.table, row))

    def update(
        self, tx: WorldTx, ticket_id: str, status: str | None = None, priority: str | None = None
    ) -> dict[str, Any]:
        row = self.writable(tx, ticket_id)
        values: dict[str, Any] = {}
        if status is not None and status != row["status"]:
            values["status"] = status
            if row["status"] == self.d.hold.status:
                values["hold_reason"] = None
        if priority is not None and priority != row["priority"]:
            values["priority"] = priority
        if not values:
            raise ToolError(
                "invalid_state",
                "nothing to change: give a different status or priority",
                error_class="conflict",
            )
        return self.change(tx, row, values)

    def resolve(self, tx: WorldTx, ticket_id: str) -> dict[str, Any]:
        row = self.writable(tx, ticket_id)
        return self.change(tx, row, {"status": self.d.resolved, "hold_reason": None})

    def hold(self, tx: WorldTx, ticket_id: str, reason: str) -> dict[str, Any]:
        h = self.d.hold
        row = self.writable(tx, ticket_id)
        if row["status"] in h.blocked_by:
            raise ToolError(
                "invalid_state", f"ticket {ticket_id} is {row['status']}; reopen it first"
            )
        if h.refuse_repeat and row["status"] == h.status and row["hold_reason"] == reason:
            raise ToolError(
                "invalid_state",
                f"ticket {ticket_id} is already on hold for {reason}",
                error_class="conflict",
            )
        return self.change(tx, row, {"status": h.status, "hold_reason": reason})

    def escalate(
        self, tx: WorldTx, ticket_id: str, reason: str, team: str | None = None
    ) -> dict[str, Any]:
        e = self.d.escalation
        row = self.writable(tx, ticket_id)
        if isinstance(e, TeamEscalation):
            if row["team"] == team:
                raise ToolError(
                    "invalid_state",
                    f"ticket {ticket_id} is already with {team}",
                    error_class="conflict",
                )
            values = {
                "team": team,
                "escalation_reason": reason,
                "status": "open",
                "hold_reason": None,
            }
            return self.change(tx, row, values)
        if row["status"] in (*e.refused_in, e.status):
            # Escalating an escalated ticket again repeats what is done: a conflict.
            again = row["status"] == e.status
            raise ToolError(
                "invalid_state",
                f"ticket {ticket_id} is {row['status']}",
                error_class="conflict" if again else None,
            )
        values = {
            "status": e.status,
            "escalation_reason": reason,
            "priority": "urgent" if reason in e.urgent else "high",
            "hold_reason": None,
        }
        return self.change(tx, row, values)

    def comment(self, tx: WorldTx, ticket_id: str, body: str, public: bool = False) -> Row:
        c = self.d.comments
        assert c is not None  # the tool exists only with a comment log
        self.writable(tx, ticket_id)
        now = stamp(tx)
        row: dict[str, Any] = {
            "id": c.ids.next(tx, c.table),
            "ticket_id": ticket_id,
            "body": self.clean(body, f"{c.noun} body"),
            "created_at": now,
        }
        if c.author is not None:
            row["author"] = c.author
        if c.public:
            row["public"] = int(public)
        out = ordered(tx, c.table, tx.insert(c.table, row))
        tx.update(self.table, {"id": ticket_id}, {"updated_at": now})
        return out


def ticket_tools(desk: TicketDesk) -> dict[str, ToolSpec]:
    """The desk's tools by name; a domain lists the ones it offers, in its own order.

    Built: ``get_ticket``, ``list_<owner>_tickets``, ``create_ticket``, ``hold_ticket``,
    ``escalate_ticket``; ``update_ticket`` when the desk has settable ``statuses``,
    ``resolve_ticket`` when it has a ``resolved`` status, ``add_ticket_<noun>`` when it
    has a comment log.

    Args:
        desk: The desk.

    Returns:
        Tool name → tool.

    Raises:
        DomainError: ``create_args`` is not an order of create_ticket's arguments, or
            ``docs`` names a tool or argument the desk does not have.
    """
    ops = _Desk(desk)
    d = desk
    docs = dict(d.docs)
    owner_noun = d.owner.arg.removesuffix("_id")
    comments = d.comments

    def doc(key: str, default: str) -> str:
        return docs.pop(key, default)

    ticket_id = ToolParam("ticket_id", str, f"Ticket id, such as {d.tickets.example!r}.")

    def tid(tool: str) -> ToolParam:
        return ticket_id._replace(doc=doc(f"{tool}.ticket_id", ticket_id.doc))

    tools: dict[str, ToolSpec] = {}

    def add(name: str, summary: str, mutates: bool, params: list[ToolParam], fn: Any) -> None:
        tools[name] = make_tool(name, doc(name, summary), mutates=mutates, params=params, fn=fn)

    get_summary = (
        f"Get a support ticket with its {comments.noun}s."
        if comments
        else ("Get a support ticket.")
    )
    add("get_ticket", get_summary, False, [tid("get_ticket")], ops.get)
    list_name = f"list_{owner_noun}_tickets"
    add(
        list_name,
        f"List a {owner_noun}'s support tickets, newest first."
        if d.newest_first
        else f"List a {owner_noun}'s support tickets.",
        False,
        [ToolParam(d.owner.arg, str, doc(f"{list_name}.{d.owner.arg}", d.owner.doc))],
        ops.list,
    )

    create: dict[str, ToolParam] = {
        d.owner.arg: ToolParam(d.owner.arg, str, d.owner.doc),
        "category": ToolParam("category", _lit(d.categories), "What the ticket is about."),
        "subject": ToolParam("subject", str, "One-line summary."),
        **{link.arg: ToolParam(link.arg, str | None, link.doc, None) for link in d.links},
    }
    if d.priorities is not None:
        create["priority"] = ToolParam(
            "priority",
            _lit(d.priorities),
            "Ticket priority.",
            REQUIRED if d.default_priority is None else d.default_priority,
        )
    order = d.create_args or tuple(create)
    if sorted(order) != sorted(create):
        raise DomainError(f"ticket desk: create_args must order exactly {sorted(create)}")
    team_note = f", team {d.team}" if d.team else ""
    add(
        "create_ticket",
        f"Open a support ticket (status 'open'{team_note}).",
        True,
        [create[a]._replace(doc=doc(f"create_ticket.{a}", create[a].doc)) for a in order],
        ops.create,
    )

    if d.statuses:
        status_type: Any = _lit(d.statuses)
        status = (
            ToolParam("status", status_type, doc("update_ticket.status", "New status."))
            if d.status_required
            else ToolParam(
                "status",
                status_type | None,
                doc("update_ticket.status", "New status; null to keep it."),
                None,
            )
        )
        params = [tid("update_ticket"), status]
        if d.priorities is not None:
            params.append(
                ToolParam(
                    "priority",
                    _lit(d.priorities) | None,
                    doc("update_ticket.priority", "New priority; null to keep it."),
                    None,
                )
            )
        add(
            "update_ticket",
            "Change a ticket's status and/or priority. To put a ticket on hold use hold_ticket.",
            True,
            params,
            ops.update,
        )
    if d.resolved is not None:
        add(
            "resolve_ticket",
            f"Mark a ticket {d.resolved} (final).",
            True,
            [tid("resolve_ticket")],
            ops.resolve,
        )

    add(
        "hold_ticket",
        "Put a ticket on hold until someone else acts.",
        True,
        [
            tid("hold_ticket"),
            ToolParam(
                "reason",
                _lit(d.hold.reasons),
                doc("hold_ticket.reason", "Who the ticket is waiting for."),
            ),
        ],
        ops.hold,
    )

    e = d.escalation
    reason = ToolParam(
        "reason", _lit(e.reasons), doc("escalate_ticket.reason", "Why the ticket is escalated.")
    )
    if isinstance(e, TeamEscalation):
        add(
            "escalate_ticket",
            "Hand a ticket to a specialist team; it becomes 'open' in that team's queue.",
            True,
            [
                tid("escalate_ticket"),
                ToolParam(
                    "team", _lit(e.teams), doc("escalate_ticket.team", "The team that takes over.")
                ),
                reason,
            ],
            ops.escalate,
        )
    else:
        add(
            "escalate_ticket",
            f"Escalate a ticket one tier; its status becomes {e.status!r}.",
            True,
            [tid("escalate_ticket"), reason],
            ops.escalate,
        )

    if comments is not None:
        name = f"add_ticket_{comments.noun}"
        params = [
            tid(name),
            ToolParam("body", str, doc(f"{name}.body", f"The {comments.noun} text.")),
        ]
        if comments.public:
            params.append(
                ToolParam(
                    "public",
                    bool,
                    doc(
                        f"{name}.public",
                        "True when the customer can see it; false for an internal note.",
                    ),
                )
            )
        add(name, f"Add a {comments.noun} to a ticket.", True, params, ops.comment)
    if docs:
        raise DomainError(f"ticket desk: docs name no tool or argument of it: {sorted(docs)}")
    return tools
