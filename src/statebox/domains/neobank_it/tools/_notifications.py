"""Notification tool: an email from a template about a related object.

Notifications record recipient, template code and the related object (business facts);
the body is free text.
"""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.kit import new_id, stamp
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["send_notification"]

Template = Literal[
    "access_granted",
    "access_rejected",
    "access_revoked",
    "access_extended",
    "approval_needed",
    "licence_assigned",
    "licence_reclaimed",
    "order_placed",
    "order_cancelled",
    "incident_ack",
    "account_unlocked",
    "offboarding_complete",
]


@tool(mutates=True)
def send_notification(
    tx: WorldTx, recipient: str, template: Template, related_id: str, body: str = ""
) -> dict[str, Any]:
    """Send an email notification from a template.

    Args:
        recipient: Recipient's work email, such as 'avery.hollis@neobank.example.com'.
        template: Template code; it fixes the subject line.
        related_id: Id of the object the email is about, such as 'AR-00001' or 'INC-00501'.
        body: Optional free-text addition to the template.
    """
    if not tx.one("SELECT id FROM employees WHERE email = ?", [recipient]):
        raise ToolError("not_found", f"{recipient!r} is not an employee's work email")
    row = {
        "id": new_id(tx, "notifications", "NTF-"),
        "recipient": recipient,
        "template": template,
        "related_id": related_id,
        "body": body.strip(),
        "sent_at": stamp(tx),
    }
    return tx.insert("notifications", row)
