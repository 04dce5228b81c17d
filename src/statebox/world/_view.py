"""`WorldView`: what the judge reads and edits in a trial's terminal world, whatever holds it.

statebox's own worlds are in-memory SQLite databases (`World`); an external backend's
are databases statebox owns (a SQLite file, a PostgreSQL database: `statebox.backends`).
The judge needs the same four things from each: the canonical state, read-only queries
for invariants, and, for mutation testing, a column's values and a way to change one
field. Keeping them behind one protocol is what lets every check apply to both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from statebox.world._canonical import Scalar
from statebox.world._state import State

__all__ = ["WorldQueryError", "WorldView"]


class WorldQueryError(Exception):
    """A judge query failed on an external database (bad SQL, a refused write).

    statebox's SQLite worlds raise `sqlite3.Error` instead; the judge treats both alike
    (a check that could not be evaluated).
    """


class WorldView(Protocol):
    """A trial's live world as the judge sees it."""

    def state(self, base: State | None = None) -> State:
        """The canonical snapshot of every table (sharing unchanged tables with ``base``)."""
        ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Scalar]]:
        """A read-only query's rows as canonical values.

        Raises:
            sqlite3.Error | WorldQueryError: Bad SQL, or an attempt to write.
        """
        ...

    def column_values(self, table: str, column: str, limit: int) -> list[Scalar]:
        """Up to ``limit`` distinct non-null values of a column, in the database's order."""
        ...

    def set_value(self, table: str, key: Mapping[str, Scalar], column: str, value: Scalar) -> bool:
        """Set one field of the row with primary key ``key``; False when the schema refuses."""
        ...

    def close(self) -> None:
        """Release the world."""
        ...
