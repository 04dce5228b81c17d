"""What a database kind gives a backend: templates built once, clones per trial.

A `Databases` (SQLite files, `SqliteFiles`; PostgreSQL databases, `PostgresDatabases`)
builds one template per (schema, seed, task patch), records its canonical state, and
clones it for each trial. A `Clone` is one trial's database: the server is pointed at
its ``url``, the judge reads it through `Clone.world`, and it is dropped after judging.
Clones are what a warm pool keeps ready (`statebox.thinkingbox.ReadyPool`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple, Protocol

from statebox.backends._rows import Table
from statebox.tasks import StatePatch
from statebox.world import State, WorldView

__all__ = ["Clone", "Databases", "Template", "template_key"]


class Template(NamedTuple):
    """A database built once: the seed plus one task patch."""

    key: str
    """Hash of (schema, seed, patch): tasks with the same patch share a template."""
    name: str
    """The template's file path (SQLite) or database name (PostgreSQL)."""
    tables: Mapping[str, Table]
    """Its tables by state name."""
    state: State
    """Its canonical state: every trial of its tasks starts here."""


class Clone(Protocol):
    """One trial's copy of a template."""

    url: str
    """Where the server finds it: a file path (SQLite) or a ``postgresql://`` URL."""

    @property
    def alive(self) -> bool:
        """Whether it still exists (not dropped)."""
        ...

    def world(self) -> WorldView:
        """The judge's view of it (its own connection; closing it keeps the database)."""
        ...

    def as_template(self, key: str, state: State) -> Template:
        """This database as a template to clone.

        Nothing may write to it any more; it is dropped with its `Databases`, not by `close`.
        """
        ...

    def close(self) -> None:
        """Drop it in the background (idempotent)."""
        ...

    async def aclose(self) -> None:
        """Drop it and wait until it is gone."""
        ...


class Databases(Protocol):
    """One database kind's templates and clones for one backend."""

    kind: Literal["sqlite", "postgres"]
    """The kind."""

    async def template(self, patch: StatePatch) -> Template:
        """The template for a task patch, built on first use.

        Raises:
            ValueError: The patch names an unknown table or column, breaks a
                constraint or deletes a missing row (the message names the table).
        """
        ...

    async def clone(self, template: Template) -> Clone:
        """A fresh copy of ``template`` for one trial."""
        ...

    async def aclose(self) -> None:
        """Drop every template and clone this object made."""
        ...


def template_key(schema_sql: str, seed: Any, patch: StatePatch) -> str:
    """The template cache key of (schema, seed, patch); 16 hex characters."""
    text = json.dumps(
        [schema_sql, seed, patch.model_dump(mode="json")], sort_keys=True, default=str
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]
