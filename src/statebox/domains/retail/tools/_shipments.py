"""Shipment tools: carrier tracking events and carrier exceptions of an order."""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any

from statebox.domains.retail.tools._records import order_row
from statebox.tools import tool
from statebox.world import WorldTx

__all__ = ["get_shipment_tracking"]


@tool(mutates=False)
def get_shipment_tracking(tx: WorldTx, order_id: str) -> list[dict[str, Any]]:
    """Get an order's shipments with their carrier tracking events and carrier exceptions.

    A carrier exception with status 'open' is still being investigated by the carrier;
    a resolved one has a resolution ('delivered', 'lost' or 'returned_to_sender').

    Args:
        order_id: Order id, such as 'ORD-10000020'.
    """
    order_row(tx, order_id)
    out = []
    for shipment in tx.query("SELECT * FROM shipments WHERE order_id = ? ORDER BY id", [order_id]):
        sid = shipment["id"]
        out.append(
            {
                **shipment,
                "events": tx.query(
                    "SELECT occurred_at, code, location, description FROM tracking_events "
                    "WHERE shipment_id = ? ORDER BY occurred_at, id",
                    [sid],
                ),
                "carrier_exceptions": tx.query(
                    "SELECT * FROM carrier_exceptions WHERE shipment_id = ? ORDER BY id", [sid]
                ),
            }
        )
    return out
