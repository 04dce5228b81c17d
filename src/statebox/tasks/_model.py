"""The `Task` model: x = (b0, g, T, U, C) plus a golden trajectory (DESIGN.md §4).

Tasks are frozen, extra keys are errors, and every field is documented. The YAML
shape of ``initial_state`` (table keys beside an optional ``delete:``) is turned into
a `StatePatch` by a before-validator, so code sees one typed shape.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import AwareDatetime, Field, ValidationInfo, field_validator, model_validator

from statebox._model import Model
from statebox.tasks._user import UserSpec
from statebox.world import Scalar

__all__ = [
    "Checks",
    "GoldenCall",
    "ResponseCheck",
    "SqlInvariant",
    "StatePatch",
    "Task",
    "UserSpec",
]

_ID = re.compile(r"^[a-z0-9][a-z0-9_]*(\.[A-Za-z0-9][A-Za-z0-9_\-]*)+$")


class GoldenCall(Model):
    """One call of a golden trajectory."""

    tool: str
    """Tool name."""
    args: dict[str, Any] = {}
    """Arguments by name."""


class StatePatch(Model):
    """The task's change to the domain seed: upserts by primary key, then deletes."""

    upsert: dict[str, tuple[dict[str, Any], ...]] = {}
    """table → rows; a row whose key exists updates the columns given, else it is inserted."""
    delete: dict[str, tuple[dict[str, Any], ...]] = {}
    """table → primary-key mappings of rows removed after the upserts."""


class SqlInvariant(Model):
    """A SQL predicate over the terminal state: the query returns one row of one column."""

    sql: str
    """A read-only query returning exactly one row with one column."""
    equals: Scalar
    """The value that column must equal (canonical comparison: ``25`` equals ``25.0``)."""
    description: str = ""
    """What the invariant protects, for reports."""


class ResponseCheck(Model):
    """Checks on the agent's final response to the user."""

    contains: tuple[str, ...] = ()
    """Substrings the final response must contain (case-insensitive)."""
    not_contains: tuple[str, ...] = ()
    """Substrings the final response must not contain (case-insensitive)."""
    rubric: tuple[str, ...] = ()
    """Yes/no questions for the rubric judge; each must be answered exactly "yes"."""


class Checks(Model):
    """Every check gates the verdict: a trial passes only if all of them pass.

    Besides these, the judge always adds a ``termination`` check: an episode cut off by
    a limit (steps, turns, time) or a system error fails, whatever its state.
    """

    state: Literal["golden", "none"] = "golden"
    """``golden``: the terminal state must equal the golden state under the field policy."""
    alternatives: tuple[tuple[GoldenCall, ...], ...] = ()
    """Other golden trajectories whose end state is also accepted."""
    invariants: tuple[SqlInvariant, ...] = ()
    """SQL predicates over the terminal state."""
    response: ResponseCheck | None = None
    """Checks on the final response."""


class Task(Model):
    """One task: initial state patch, user, allowlist, golden trajectory and checks."""

    id: str
    """Stable id ``<domain>.<family>.<variant>...``, e.g. ``retail.delivery-exception.hold.003``."""
    domain: str
    """Domain name; the id must start with it."""
    split: Literal["test", "train"] = "test"
    """``test`` tasks are for evaluation; ``train`` tasks may be served for RL."""
    family: str = ""
    """Workflow family; defaults to the id's second segment."""
    description: str = ""
    """What the task exercises, for authors and reports (never shown to the agent)."""
    now: AwareDatetime
    """The frozen clock every tool reads (timezone-aware)."""
    read_only: bool = False
    """True when the correct end state is no change (a refusal or a lookup)."""
    initial_state: StatePatch = StatePatch()
    """The patch over the domain seed (YAML: table keys plus an optional ``delete:``)."""
    user: UserSpec
    """The simulated user."""
    tools: tuple[str, ...] | None = None
    """Tool allowlist; None means every tool of the domain."""
    golden: tuple[GoldenCall, ...]
    """The reference trajectory; replayed on a fresh world it yields the golden state."""
    checks: Checks = Checks()
    """The checks; by default the terminal state must equal the golden state."""
    reference_response: str = ""
    """A final reply that satisfies the response checks (the oracle says it; never shown
    to an agent under evaluation)."""
    tags: tuple[str, ...] = Field(default=())
    """Free labels (``user-fact``, ``refusal``...)."""

    # Cross-field rules are field validators on the later field (fields validate in
    # declaration order), so an error names the field to fix, not the whole task.
    @field_validator("domain")
    @classmethod
    def _id_starts_with_domain(cls, v: str, info: ValidationInfo) -> str:
        task_id = info.data.get("id")
        if isinstance(task_id, str) and not task_id.startswith(v + "."):
            raise ValueError(f"the id {task_id!r} must start with the domain name {v!r}")
        return v

    @field_validator("golden")
    @classmethod
    def _golden_fits(
        cls, v: tuple[GoldenCall, ...], info: ValidationInfo
    ) -> tuple[GoldenCall, ...]:
        tools = info.data.get("tools")
        if tools is not None:
            missing = sorted({c.tool for c in v} - set(tools))
            if missing:
                raise ValueError(f"golden uses tools outside the allowlist (tools): {missing}")
        if not v and not info.data.get("read_only", False):
            raise ValueError("golden is empty: declare read_only: true for a no-change task")
        return v

    @field_validator("id")
    @classmethod
    def _check_id(cls, v: str) -> str:
        if not _ID.match(v):
            raise ValueError("must look like <domain>.<family>.<variant> (letters, digits, - _)")
        return v

    @model_validator(mode="before")
    @classmethod
    def _yaml_shapes(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        init = data.get("initial_state")
        if isinstance(init, dict) and not ({"upsert", "delete"} >= set(init) and "upsert" in init):
            rest = {k: v for k, v in init.items() if k != "delete"}
            data["initial_state"] = {"upsert": rest, "delete": init.get("delete") or {}}
        if isinstance(data.get("id"), str) and not data.get("family"):
            parts = data["id"].split(".")
            if len(parts) >= 2:
                data["family"] = parts[1]
        return data
