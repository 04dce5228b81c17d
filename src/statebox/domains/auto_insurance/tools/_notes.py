"""Auto insurance's CRM notes: internal notes on a customer, read only once they are verified.

Writing a note needs no verification (an agent may note a failed attempt); the rules
live in `statebox.kit.NoteBook`.
"""

from __future__ import annotations

from statebox.domains.auto_insurance.tools._records import CUSTOMERS, require_verified
from statebox.kit import IdFormat, Link, NoteBook, Owner, note_tools

__all__ = ["NOTE_TOOLS"]

NOTE_TOOLS = note_tools(
    NoteBook(
        "crm_notes",
        "crm_note",
        IdFormat("NOTE-"),
        Owner("customer_id", CUSTOMERS, "Customer id, such as 'CUS-1001'.", require_verified),
        ("verification", "billing", "policy_change", "claim", "cancellation", "complaint"),
        links=(Link("policy_id", "The related policy, such as 'POL-300001'; null when none."),),
        docs={
            "add_crm_note": "Add an internal note to a customer's CRM record.",
            "list_crm_notes": "List a verified customer's CRM notes, newest first.",
        },
    )
)
