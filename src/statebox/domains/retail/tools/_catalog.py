"""Catalog tools: products and stock."""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.kit import integer
from statebox.tools import ToolError, tool
from statebox.world import WorldTx

__all__ = ["check_inventory", "get_product", "search_products"]

Category = Literal["electronics", "kitchen", "home", "apparel", "outdoors", "toys"]


def _available(tx: WorldTx, product_id: str) -> dict[str, Any]:
    row = tx.one("SELECT * FROM inventory WHERE product_id = ?", [product_id])
    if row is None:
        raise ToolError("not_found", f"no product {product_id!r} (ids look like 'PRD-0001')")
    return {**row, "available": integer(row["on_hand"]) - integer(row["reserved"])}


@tool(mutates=False)
def get_product(tx: WorldTx, product_id: str) -> dict[str, Any]:
    """Get a product: name, category, price, warranty months, whether it is returnable, stock.

    Args:
        product_id: Product id, such as 'PRD-0001'.
    """
    row = tx.one("SELECT * FROM products WHERE id = ?", [product_id])
    if row is None:
        raise ToolError("not_found", f"no product {product_id!r} (ids look like 'PRD-0001')")
    return {**row, "available": _available(tx, product_id)["available"]}


@tool(mutates=False)
def search_products(
    tx: WorldTx, category: Category, name_contains: str = ""
) -> list[dict[str, Any]]:
    """List products of a category, optionally filtered by a name fragment.

    Args:
        category: Product category.
        name_contains: Case-insensitive fragment of the product name; empty for all.
    """
    return tx.query(
        "SELECT id, name, price, returnable, warranty_months FROM products "
        "WHERE category = ? AND lower(name) LIKE '%' || lower(?) || '%' ORDER BY id",
        [category, name_contains.strip()],
    )


@tool(mutates=False)
def check_inventory(tx: WorldTx, product_id: str) -> dict[str, Any]:
    """Check stock of a product: units on hand, reserved for open orders, and available.

    Args:
        product_id: Product id, such as 'PRD-0001'.
    """
    return _available(tx, product_id)
