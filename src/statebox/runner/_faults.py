"""What a write-perturbing agent (the fault agent) needs from a backend, and its warnings.

A statebox domain's tools say whether they write (``@tool(mutates=...)``). An external
environment's do not (MCP tools carry no such flag), so a golden call there is a write
when it changes the backend's state in the golden replay: an environment that can
tell offers ``golden_writes(task)`` (ThinkingBox's replays the golden calls on fresh
servers, once per task). Where a fault kind cannot apply — an environment that cannot
tell, a task with no write, a write with no argument to change — a warning says so,
once per task, instead of the fault agent silently becoming the oracle there.
"""

from __future__ import annotations

import logging
from typing import Any

from statebox.agents import AgentFactory, TrialContext
from statebox.domains import Domain
from statebox.tasks import Task

__all__ = ["golden_write_calls", "warn_inapplicable_faults"]

_log = logging.getLogger("statebox.runner")
_warned: set[tuple[str, str]] = set()


async def golden_write_calls(
    backend: Any, task: Task, agent: AgentFactory
) -> frozenset[int] | None:
    """Indices of the golden calls that write, for an agent that asks and a backend that tells.

    Returns:
        None for a statebox domain (its tools say), an agent that does not perturb
        writes, or an environment that cannot tell.

    Raises:
        BackendError: The backend's golden replay failed.
    """
    if isinstance(backend, Domain) or not getattr(agent, "needs_golden_writes", False):
        return None
    probe = getattr(backend, "golden_writes", None)
    if probe is None:
        return None
    writes = await probe(task)
    return frozenset(i for i, w in enumerate(writes) if w)


def warn_inapplicable_faults(agent: AgentFactory, ctx: TrialContext, backend: Any) -> None:
    """Warn (once per agent and task) where the agent's write faults cannot apply.

    On external environments only: a statebox domain's tools declare their writes and
    its read-only tasks say so, so nothing there is silently inert.
    """
    if not getattr(agent, "needs_golden_writes", False) or isinstance(backend, Domain):
        return
    from statebox.agents._oracle import inapplicable_faults

    key = (agent.agent_id, ctx.task.id)
    if key in _warned:
        return
    if ctx.write_calls is None and not ctx.mutating_tools:
        reasons = [
            f"environment {ctx.task.domain!r} cannot tell which calls write: skip_write, "
            "wrong_value and extra_write cannot apply"
        ]
    else:
        reasons = inapplicable_faults(ctx)
    _warned.add(key)
    for reason in reasons:
        _log.warning("%s on task %s: %s", agent.name, ctx.task.id, reason)
