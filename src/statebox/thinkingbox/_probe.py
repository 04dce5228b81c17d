"""Golden replays through the real servers: which golden calls write, and end states.

An MCP tool declares no side effects, so "is this call a write?" is answered the only
way that cannot be wrong about a given task: replay its golden calls on fresh server
processes and read the servers' state (``__reserved__geteffects``) after each one. A
call is a write when some server's ``result_db_state`` changed across it.

`state_paths` flattens a state into ``path → leaf`` for comparing end states field by
field (the mutation engine's equivalent / survived split, its survivor table).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from statebox.tasks import GoldenCall, Task
from statebox.tools import ToolCall

if TYPE_CHECKING:
    from statebox.thinkingbox._environment import ThinkingBoxEnvironment

__all__ = ["GoldenProbe", "probe_golden", "state_paths"]


class GoldenProbe(NamedTuple):
    """A task's golden calls replayed one by one on fresh servers."""

    writes: tuple[bool, ...]
    """Per golden call: whether it changed some server's state."""
    ok: tuple[bool, ...]
    """Per golden call: whether the server answered without a tool error."""
    final: dict[str, Any]
    """Server name → its ``result_db_state`` after the last call."""
    schemas: dict[str, dict[str, Any]]
    """Tool name → input JSON schema, of the tools the agent is offered."""


def _states(effects: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {name: report.get("result_db_state") for name, report in effects.items()}


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


async def probe_golden(
    env: ThinkingBoxEnvironment, task: Task, calls: Sequence[GoldenCall] | None = None
) -> GoldenProbe:
    """Replay ``calls`` (default: the task's golden calls) with a state read after each.

    Raises:
        BackendError: A server failed to start, to initialise or to answer.
    """
    session = await env.open(task)
    try:
        before = _canon(_states(await session.effects()))
        writes: list[bool] = []
        ok: list[bool] = []
        final: dict[str, Any] = {}
        for i, call in enumerate(task.golden if calls is None else calls):
            result = await session.call(ToolCall(tool=call.tool, args=dict(call.args), id=str(i)))
            ok.append(result.ok)
            final = _states(await session.effects())
            after = _canon(final)
            writes.append(after != before)
            before = after
        if not writes:
            final = _states(await session.effects())
        schemas = {t.name: dict(t.input_schema) for t in session.tools()}
        return GoldenProbe(tuple(writes), tuple(ok), final, schemas)
    finally:
        await session.aclose()


def state_paths(value: Any, prefix: str = "") -> dict[str, str]:
    """``path → canonical JSON leaf`` of a state (lists of rows keyed by their ``id``).

    A row list whose items all carry an ``id`` is keyed by it (``orders[O1].status``),
    so one inserted row does not shift every later index.
    """
    out: dict[str, str] = {}
    if isinstance(value, dict):
        if not value and prefix:
            out[prefix] = "{}"
        for key in sorted(value):
            out.update(state_paths(value[key], f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list):
        keyed = value and all(isinstance(v, dict) and "id" in v for v in value)
        if not value:
            out[prefix] = "[]"
        for i, item in enumerate(value):
            key = f"[{item['id']}]" if keyed else f"[{i}]"
            out.update(state_paths(item, prefix + key))
    else:
        out[prefix] = _canon(value)
    return out
