"""The `Task` model: x = (b0, g, T, U, C) plus a golden trajectory (docs/design.md §5).

Tasks are frozen, extra keys are errors, and every field is documented. The YAML
shape of ``initial_state`` (table keys beside an optional ``delete:``) is turned into
a `StatePatch` by a before-validator, so code sees one typed shape.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal, TypeAlias

from pydantic import (
    AwareDatetime,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from statebox._model import Model
from statebox.kit import PolicyMode
from statebox.tasks._user import UserSpec
from statebox.world import Scalar

__all__ = [
    "CheckFact",
    "Checks",
    "DontCare",
    "GoldenCall",
    "GoldenFailure",
    "ReplyCheck",
    "ResponseCheck",
    "RowSelector",
    "RubricQuestion",
    "SqlInvariant",
    "StatePatch",
    "Task",
    "TextCheck",
    "UserSpec",
]

_ID = re.compile(r"^[a-z0-9][a-z0-9_]*(\.[A-Za-z0-9][A-Za-z0-9_\-]*)+$")


GoldenFailure: TypeAlias = Literal[
    "not_found", "invalid_state", "not_permitted", "invalid_arguments"
]
"""Error kinds a golden call may be expected to fail with (`GoldenCall.fails`)."""


class GoldenCall(Model):
    """One call of a golden trajectory."""

    tool: str
    """Tool name."""
    args: dict[str, Any] = {}
    """Arguments by name."""
    fails: GoldenFailure | None = None
    """The call is refused with this error kind: the natural first attempt a task makes the
    agent recover from (a failed precondition, an unknown id). Replay checks that it is
    refused with exactly this kind, so a task claiming recovery is one that needs it."""

    @model_serializer(mode="wrap")
    def _without_unset_failure(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Left out when None, so tasks without refusals keep their bundle hashes.
        data: dict[str, Any] = handler(self)
        if data.get("fails") is None:
            data.pop("fails", None)
        return data


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


CheckFact: TypeAlias = str | int | float | tuple[str | int | float, ...]
"""A value written text or a reply must carry: a string, a number, or a tuple of
alternatives of which any one will do. Matched after normalisation (`statebox.judge`):
case, amounts (``$1,250.00`` = ``1250``), dates (ISO and common spellings), whole tokens."""


class RowSelector(Model):
    """Rows of one table whose text a check reads, in the trial's terminal state.

    Keys and ``where`` values name the golden run's ids: a trial's generated ids are
    mapped onto them first, so an agent whose note got another id is read alike.
    """

    table: str
    """Table name."""
    column: str
    """The text column read."""
    key: dict[str, Scalar] | None = None
    """One row by primary key (None: every row that ``where`` and ``rows`` select)."""
    where: dict[str, Scalar] = {}
    """Column equalities a selected row meets (e.g. ``{customer_id: CUS-1001}``)."""
    rows: Literal["written", "all"] = "written"
    """``written``: only rows the trial inserted or changed; ``all``: every matching row."""


class TextCheck(RowSelector):
    """Facts the text the agent wrote into the database must (not) carry.

    The selected rows' texts are read together; the check fails when no row is
    selected (nothing written), when a ``must_contain`` fact is absent, or when a
    ``must_not_contain`` value is present.
    """

    must_contain: tuple[CheckFact, ...] = ()
    """Facts the text must carry (a tuple: any one of its values)."""
    must_not_contain: tuple[str | int | float, ...] = ()
    """Values the text must not carry (a wrong amount, another customer's id)."""
    description: str = ""
    """What the check protects, for reports."""

    @model_validator(mode="after")
    def _says_something(self) -> TextCheck:
        if not self.must_contain and not self.must_not_contain:
            raise ValueError("a text check needs must_contain or must_not_contain")
        return self


class ReplyCheck(Model):
    """Facts the agent's replies to the user must (not) carry; deterministic, no model.

    Read over every message the agent sent the user (a fact told once was told), with
    the normalisation of text checks; a required fact counts only where the agent states
    it, not in a question it asks.
    """

    must_contain: tuple[CheckFact, ...] = ()
    """Facts the replies must carry (a tuple: any one of its values)."""
    must_not_contain: tuple[str | int | float, ...] = ()
    """Values no reply may carry."""


class RubricQuestion(Model):
    """A rubric question about text the agent wrote: the judge model sees those rows."""

    question: str
    """The yes/no question."""
    row: RowSelector
    """The written rows shown to the judge model beside the conversation."""


class ResponseCheck(Model):
    """Questions for the rubric judge model, for what only a model can judge."""

    rubric: tuple[str | RubricQuestion, ...] = ()
    """Yes/no questions; each must be answered exactly "yes". With no judge model a
    question is *unjudged* and the trial does not pass (fail-closed)."""

    @model_validator(mode="before")
    @classmethod
    def _moved(cls, data: object) -> object:
        # Task files written before reply checks existed: say where the facts go now.
        if isinstance(data, dict) and {"contains", "not_contains"} & data.keys():
            raise ValueError(
                "response.contains / response.not_contains moved: write "
                "checks.reply: {must_contain: [...], must_not_contain: [...]}"
            )
        return data


class DontCare(Model):
    """A column this task accepts with any value (the policy leaves it open)."""

    table: str
    """Table name."""
    column: str
    """Column name."""
    reason: str
    """Why any value is right here (printed with the task's validation)."""


class Checks(Model):
    """Every check gates the verdict: a trial passes only if all of them pass.

    Besides these, the judge always adds a ``termination`` check: an episode cut off by
    a limit (steps, turns, time) or a system error fails, whatever its state.
    """

    state: Literal["golden", "none"] = "golden"
    """``golden``: the terminal state must equal an accepted state under the field
    policy and ``dont_care``: the golden state, an ``alternatives`` state or an
    ``end_states`` one."""
    ordered: bool = False
    """False: rows the trial inserted are matched to golden inserts by content, so the
    order of independent inserts (and the ids it hands out) does not matter. True: the
    policy fixes the order, and rows are matched by their generated ids."""
    alternatives: tuple[tuple[GoldenCall, ...], ...] = ()
    """Other golden trajectories whose end state is also accepted."""
    end_states: tuple[dict[str, tuple[dict[str, Any], ...]], ...] = ()
    """Other accepted end states, each the golden state with these rows upserted by
    primary key (``{table: [{key..., column: value}]}``)."""
    dont_care: tuple[DontCare, ...] = ()
    """Columns compared by no state check of this task (any value accepted)."""
    invariants: tuple[SqlInvariant, ...] = ()
    """SQL predicates over the terminal state."""
    text: tuple[TextCheck, ...] = ()
    """Facts the text the agent writes must (not) carry."""
    reply: ReplyCheck | None = None
    """Facts the agent's replies must (not) carry."""
    response: ResponseCheck | None = None
    """Rubric questions for a judge model."""

    @property
    def rubric(self) -> tuple[str | RubricQuestion, ...]:
        """The rubric questions (empty when none)."""
        return self.response.rubric if self.response is not None else ()


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
    """Tool allowlist; None means every tool of the domain (its step tools only with
    ``record_steps``)."""
    policy_mode: PolicyMode | None = None
    """How the policy is served: ``prompt`` (in the prompt), ``search`` (a pointer, and the
    ``search_policy`` tool) or ``both``; None: the campaign's choice, else ``prompt``."""
    record_steps: bool = False
    """Offer the domain's step tools (verification log, confirmations, disclosures) and the
    policy text that documents them, so the golden state can require those steps."""
    golden: tuple[GoldenCall, ...]
    """The reference trajectory; replayed on a fresh world it yields the golden state."""
    checks: Checks = Checks()
    """The checks; by default the terminal state must equal the golden state."""
    reference_response: str = ""
    """A final reply that satisfies the reply and rubric checks (the oracle says it;
    never shown to an agent under evaluation)."""
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

    @field_validator("now", mode="before")
    @classmethod
    def _iso_now(cls, v: Any) -> Any:
        # pydantic would read 12345 (or "12345") as seconds since 1970: a clock that is
        # almost certainly a typo. Only an ISO 8601 timestamp is a time here.
        if isinstance(v, datetime):
            return v
        if isinstance(v, str):
            try:
                datetime.fromisoformat(v)
            except ValueError:
                pass
            else:
                return v
        raise ValueError(
            f"{v!r} is not an ISO 8601 timestamp; write one with its timezone, such as "
            "'2025-10-01T13:00:00+00:00'"
        )

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
