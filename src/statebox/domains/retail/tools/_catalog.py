"""Catalog tools: products and stock."""

# The world transaction `tx` is hidden from the agent, so tool docstrings omit it.

from __future__ import annotations

from typing import Any, Literal

from statebox.kit import Table, integer
from statebox.tools import tool
from statebox.world import WorldTx

__all__ = ["check_inventory", "get_product", "search_products"]

Category = Literal["electronics", "kitchen", "home", "apparel", "outdoors", "toys"]


_PRODUCTS = Table("products", "product", "PRD-0001")
_STOCK = _PRODUCTS._replace(name="inventory", key="product_id")
"""Stock rows, one per product: an unknown product is refused as the product lookup is."""


def _available(tx: WorldTx, product_id: str) -> dict[str, Any]:
    row = _STOCK.row(tx, product_id)
    return {**row, "available": integer(row["on_hand"]) - integer(row["reserved"])}


@tool(mutates=False)
def get_product(tx: WorldTx, product_id: str) -> dict[str, Any]:
    """Get a product: name, category, price, warranty months, whether it is returnable, stock.

    Args:
        product_id: Product id, such as 'PRD-0001'.
    """
    row = _PRODUCTS.row(tx, product_id)
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
