"""Status transitions as data: the statuses a row may leave, where it goes, what is stamped.

Most mutating tools of a business backend have one shape: look the row up (refusing an
unknown id), refuse it unless its status allows the action, set the new status and stamp
the time, and answer the row as it now is. `Transition` holds what differs — the table,
the statuses allowed, the status reached, the stamped column and the refusal's wording —
so every tool refuses and writes alike.

Example:
    >>> RELEASE = Transition(
    ...     Table("licences", "licence", "LIC-00004"),
    ...     allowed=("active",),
    ...     to="released",
    ...     stamp="released_at",
    ... )
    >>> # RELEASE.apply(tx, "LIC-00004") on a released licence refuses invalid_state:
    >>> #   licence LIC-00004 is released
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from statebox.kit._columns import Row, Table, stamp
from statebox.tools import ToolError, ToolErrorKind
from statebox.world import WorldTx

__all__ = ["Transition"]


class Transition(NamedTuple):
    """One status change of a table's rows.

    A row may make it when its status is one of ``allowed`` (None: any status) and none
    of ``refused``; otherwise the tool refuses with ``kind`` and ``refusal`` filled in
    with ``{noun}`` (the table's), ``{id}`` (the row's key) and ``{status}`` (its status).
    The write sets ``column`` to ``to`` (None: the status stays), ``stamp`` to the frozen
    clock's timestamp and ``today`` to its date, plus the values the tool gives.
    """

    table: Table
    """The table whose rows change."""
    allowed: tuple[str, ...] | None
    """Statuses a row may be in to make the change; None: any status not ``refused``."""
    to: str | None = None
    """The status the row reaches; None: the status column is not written."""
    stamp: str | None = None
    """A column set to the episode clock (ISO timestamp); None: none."""
    today: str | None = None
    """A column set to the episode's date (ISO date); None: none."""
    refusal: str = "{noun} {id} is {status}"
    """The refusal's message, with ``{noun}``, ``{id}`` and ``{status}`` filled in."""
    refused: tuple[str, ...] = ()
    """Statuses refused whatever ``allowed`` says (``("cancelled",)``: "already cancelled")."""
    column: str = "status"
    """The status column."""
    kind: ToolErrorKind = "invalid_state"
    """The refusal's kind."""

    def check(self, row: Row) -> Row:
        """``row`` when its status allows the change.

        Raises:
            ToolError: ``kind``, with ``refusal`` filled in, when it does not.
        """
        status = row[self.column]
        if status in self.refused or (self.allowed is not None and status not in self.allowed):
            message = self.refusal.format(
                noun=self.table.noun, id=row[self.table.key], status=status
            )
            raise ToolError(self.kind, message)
        return row

    def row(self, tx: WorldTx, key: str) -> Row:
        """The row with key ``key``, when it exists and its status allows the change.

        Raises:
            ToolError: ``not_found`` (the table's refusal) or the transition's refusal.
        """
        return self.check(self.table.row(tx, key))

    def values(self, tx: WorldTx, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """What the change writes: the status, the stamps, then ``extra``."""
        out: dict[str, Any] = {} if self.to is None else {self.column: self.to}
        if self.stamp is not None:
            out[self.stamp] = stamp(tx)
        if self.today is not None:
            out[self.today] = tx.today.isoformat()
        return {**out, **(extra or {})}

    def write(self, tx: WorldTx, row: Row, extra: Mapping[str, Any] | None = None) -> Row:
        """Make the change on ``row`` (already checked); the row as it now is."""
        return self.table.update(tx, row, self.values(tx, extra))

    def apply(self, tx: WorldTx, key: str, extra: Mapping[str, Any] | None = None) -> Row:
        """Look the row up, check it and make the change; the row as it now is.

        Raises:
            ToolError: ``not_found`` or the transition's refusal; nothing is written.
        """
        return self.write(tx, self.row(tx, key), extra)
