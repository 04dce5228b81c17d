"""Support tickets: one desk declared as data, its tools built from it.

A `TicketDesk` says what differs between businesses — who owns a ticket (a customer,
an employee) and how the owner is checked, the id format, categories, priorities, the
desk's own queue, the statuses an agent may set, which status is final, why a ticket may
wait, how it is escalated (to a named team, or up one tier with a priority bump), what a
ticket may point at (an order, a booking, a policy) and its comment log — and
`ticket_tools` builds the tools from that, so every domain refuses, stamps and records
tickets the same way.

Rules every desk keeps: a ticket in the ``final`` status refuses every write; holding
needs a reason code and escalating a reason code (and a team, for team desks), so the
state records why, not only what; a status change away from the hold status clears the
hold reason; every write stamps ``updated_at`` with the frozen clock.

The agent-facing text — each tool's description and each argument's line — has a
default built from the desk and may be overridden per domain in ``docs`` (keys
``"<tool>"`` and ``"<tool>.<argument>"``): wording is the domain's, behaviour the kit's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from statebox.kit._columns import IdFormat, Row, Table
from statebox.tools import ToolErrorKind
from statebox.world import WorldTx

__all__ = [
    "PRIORITIES",
    "Comments",
    "Guard",
    "Hold",
    "Link",
    "Owner",
    "TeamEscalation",
    "TicketDesk",
    "TierEscalation",
]

PRIORITIES = ("low", "normal", "high", "urgent")
"""The usual priority scale."""

Guard = Callable[[WorldTx, str], None]
"""Called with an owner's id before anything of theirs is read or written; raises a
`ToolError` to refuse (e.g. "not verified in this conversation")."""


class Owner(NamedTuple):
    """Whose records these are: the argument (and column) naming them and how they are checked."""

    arg: str
    """Argument and column name, e.g. ``customer_id`` (tool names use ``customer``)."""
    table: Table
    """Where owners are looked up (unknown ids are refused ``not_found``)."""
    doc: str
    """The argument's agent-facing line, e.g. "Customer id, such as 'CUS-0001'."."""
    guard: Guard | None = None
    """Run after the lookup (e.g. a required identity verification); None: no check."""


class Link(NamedTuple):
    """An object a new ticket may point at (an order, a booking, a policy, a claim)."""

    arg: str
    """Argument and column name, e.g. ``order_id``; optional, null when none."""
    doc: str
    """The argument's agent-facing line."""
    lookup: Callable[[WorldTx, str], Row] | None = None
    """Returns the row or refuses (``not_found``, a guard); None: only the schema's
    foreign key checks it."""
    owner_column: str | None = None
    """Column of the looked-up row that must equal the ticket's owner; None: not checked."""
    refusal: ToolErrorKind = "invalid_state"
    """Kind of the refusal when the object belongs to someone else."""
    message: str = "{id} belongs to another customer"
    """Its message; ``{id}`` is the object's id."""


class Hold(NamedTuple):
    """Why and when a ticket may wait for someone else."""

    reasons: tuple[str, ...]
    """Hold reason codes."""
    status: str = "hold"
    """The status of a held ticket."""
    blocked_by: tuple[str, ...] = ()
    """Statuses in which a hold is refused (reopen first)."""
    refuse_repeat: bool = True
    """Refuse holding a ticket already held for the same reason."""


class TeamEscalation(NamedTuple):
    """Escalation hands a ticket to a named team's queue, where it is open again."""

    teams: tuple[str, ...]
    """Teams that can take a ticket."""
    reasons: tuple[str, ...]
    """Escalation reason codes."""


class TierEscalation(NamedTuple):
    """Escalation moves a ticket up one tier: its status and priority change, no team is named."""

    reasons: tuple[str, ...]
    """Escalation reason codes."""
    status: str = "escalated"
    """The status of an escalated ticket (escalating it again is refused)."""
    urgent: tuple[str, ...] = ()
    """Reasons whose tickets become ``urgent``; the others become ``high``."""
    refused_in: tuple[str, ...] = ()
    """Other statuses in which escalation is refused."""


class Comments(NamedTuple):
    """A ticket's comment (or note) log."""

    table: str
    """Table of comments; it has ``id``, ``ticket_id``, ``body``, ``created_at``."""
    noun: str
    """``comment`` or ``note``: names the tool (``add_ticket_note``) and the list in get_ticket."""
    ids: IdFormat
    """Id format of new comments."""
    public: bool = True
    """Comments are public or internal (a ``public`` column and argument)."""
    author: str | None = "agent"
    """Value of the ``author`` column for the agent's comments; None: no such column."""
    columns: tuple[str, ...] | None = None
    """Columns get_ticket shows per comment; None: all."""


class TicketDesk(NamedTuple):
    """A support desk: everything that differs between domains' tickets (see module docs)."""

    tickets: Table
    """The tickets table, its noun in messages and an example id."""
    ids: IdFormat
    """Id format of new tickets."""
    owner: Owner
    """Who a ticket is for."""
    categories: tuple[str, ...]
    """Category codes."""
    hold: Hold
    """Hold rules."""
    escalation: TeamEscalation | TierEscalation
    """Escalation rules."""
    priorities: tuple[str, ...] | None = PRIORITIES
    """Priority codes; None: tickets have no priority."""
    default_priority: str | None = "normal"
    """Priority of a new ticket when the agent gives none; None: the agent must give one."""
    team: str | None = None
    """The desk's own queue, where new tickets land; None: tickets have no team column."""
    statuses: tuple[str, ...] = ()
    """Statuses update_ticket may set; empty: no update_ticket tool."""
    status_required: bool = False
    """update_ticket's status must be given (else it is optional, null to keep)."""
    resolved: str | None = None
    """Status resolve_ticket sets; None: no resolve_ticket tool."""
    final: str | None = None
    """A ticket in this status refuses every write; None: no final status."""
    final_hint: str = "create a new ticket"
    """What the refusal of a write to a final ticket tells the agent to do instead."""
    links: tuple[Link, ...] = ()
    """Objects a new ticket may point at."""
    comments: Comments | None = None
    """The comment log; None: none."""
    clean_text: bool = True
    """Strip free text (subject, comment body) and refuse it empty."""
    list_columns: tuple[str, ...] | None = None
    """Columns the owner's ticket list shows; None: all."""
    newest_first: bool = True
    """The owner's ticket list runs newest first (else by id)."""
    create_args: tuple[str, ...] | None = None
    """create_ticket's argument order; None: owner, category, subject, links, priority."""
    docs: Mapping[str, str] = {}
    """Agent-facing text overrides: ``"<tool>"`` → description, ``"<tool>.<arg>"`` → line."""
