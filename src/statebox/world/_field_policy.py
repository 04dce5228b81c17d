"""A domain's field policy: which columns are left out of state comparison, and why.

Nothing is excluded silently: every exclusion carries a reason, reports print the
list, and a mutant that only touches an excluded field is a survivor unless a text
check catches it (it is never set aside).
"""

from __future__ import annotations

from statebox._model import Model

__all__ = ["ExcludedField", "FieldPolicy"]


class ExcludedField(Model):
    """One column left out of state comparison."""

    table: str
    """Table name."""
    column: str
    """Column name."""
    reason: str
    """Why the column is not compared (e.g. "free text: text checks read its facts")."""


class FieldPolicy(Model):
    """The set of columns a domain leaves out of state comparison."""

    excluded: tuple[ExcludedField, ...] = ()
    """Excluded columns, each with its reason."""

    def is_excluded(self, table: str, column: str) -> bool:
        """Whether ``table.column`` is left out of comparison."""
        return any(e.table == table and e.column == column for e in self.excluded)

    def reason(self, table: str, column: str) -> str | None:
        """The reason ``table.column`` is excluded, or None when it is compared."""
        for e in self.excluded:
            if e.table == table and e.column == column:
                return e.reason
        return None
