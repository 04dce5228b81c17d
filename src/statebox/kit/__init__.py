"""The shared domain toolkit: what most business backends need, declared as data.

- Column helpers (`text`, `integer`, `number`, `money`, `cents`, `stamp`, dates), id
  formats (`IdFormat`) and row lookups that refuse unknown ids alike (`Table`).
- Status transitions (`Transition`): allowed-from statuses, the status reached, the
  stamped column and the refusal's wording, for the look-up → check → write tools.
- Support tickets (`TicketDesk` → `ticket_tools`): comments, holds, escalation, status
  rules, links to other records, guards such as identity verification.
- Identity verification with a verification log (`VerificationLog`, `identity_tool`).
- Customer notes (`NoteBook` → `note_tools`).
- Confirmations and disclosures as records (`ConsentLog` → `consent_tools`).
- The field policy (`field_policy`, with `FREE_TEXT`: the reason free text is not
  compared).
- The policy as a searchable knowledge base (`PolicyBase`, `search_policy_tool`) and
  how it is served (`PolicyMode`).

Reference: docs/kit.md. Every built-in domain is written on it.
"""

from statebox.kit._columns import (
    IdFormat,
    Row,
    Table,
    Tables,
    cents,
    days_between,
    days_until,
    found,
    in_days,
    integer,
    iso_date,
    money,
    new_id,
    number,
    ordered,
    stamp,
    text,
)
from statebox.kit._consent import ConsentLog, consent_tools
from statebox.kit._fields import FREE_TEXT, field_policy
from statebox.kit._identity import (
    IdentityCheck,
    Proof,
    VerificationLog,
    identity_tool,
    matches,
    owns,
)
from statebox.kit._notes import NoteBook, note_tools
from statebox.kit._policy import (
    POLICY_MODES,
    PolicyArticle,
    PolicyBase,
    PolicyMode,
    policy_pointer,
    render_policy,
    search_policy_tool,
    split_articles,
)
from statebox.kit._ticket_tools import ticket_tools
from statebox.kit._tickets import (
    PRIORITIES,
    Comments,
    Guard,
    Hold,
    Link,
    Owner,
    TeamEscalation,
    TicketDesk,
    TierEscalation,
)
from statebox.kit._transitions import Transition

__all__ = [
    "FREE_TEXT",
    "POLICY_MODES",
    "PRIORITIES",
    "Comments",
    "ConsentLog",
    "Guard",
    "Hold",
    "IdFormat",
    "IdentityCheck",
    "Link",
    "NoteBook",
    "Owner",
    "PolicyArticle",
    "PolicyBase",
    "PolicyMode",
    "Proof",
    "Row",
    "Table",
    "Tables",
    "TeamEscalation",
    "TicketDesk",
    "TierEscalation",
    "Transition",
    "VerificationLog",
    "cents",
    "consent_tools",
    "days_between",
    "days_until",
    "field_policy",
    "found",
    "identity_tool",
    "in_days",
    "integer",
    "iso_date",
    "matches",
    "money",
    "new_id",
    "note_tools",
    "number",
    "ordered",
    "owns",
    "policy_pointer",
    "render_policy",
    "search_policy_tool",
    "split_articles",
    "stamp",
    "text",
    "ticket_tools",
]
