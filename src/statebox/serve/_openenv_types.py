"""Wire types of the OpenEnv server and its typed client (``openenv`` package).

Actions are flat: ``{"kind": "call_tool", "tool": ..., "args": {...}}``,
``{"kind": "message_user", "text": ...}`` or ``{"kind": "end", "text": ...}``.
Observations carry what the agent may see: the user's words, the allowlisted tool
schemas and the policy (start), tool results, and on the terminal step the binary
reward with the verdict in ``metadata`` (evaluator data, sent once the episode is over).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from statebox.serve._openenv_import import client_side

client_side()  # openenv's client modules without its server side (see _openenv_import)

from openenv.core.client_types import StepResult  # noqa: E402
from openenv.core.env_client import EnvClient  # noqa: E402
from openenv.core.env_server.types import Action, Observation, State  # noqa: E402

__all__ = ["StateboxAction", "StateboxEnvClient", "StateboxObservation", "StateboxState"]


class StateboxAction(Action):
    """One action: call a tool, message the user, or end with a final response."""

    kind: Literal["call_tool", "message_user", "end"] = Field(description="What to do.")
    tool: str = Field(default="", description="Tool name (call_tool).")
    args: dict[str, Any] = Field(default_factory=dict, description="Tool arguments (call_tool).")
    text: str = Field(default="", description="Message or final response (message_user, end).")


class StateboxObservation(Observation):
    """What the policy receives after reset or a step."""

    kind: Literal["start", "tool_result", "user_message", "done"] = Field(
        description="What happened."
    )
    episode_id: str = Field(description="Episode id; pass it back on HTTP /step.")
    task_id: str = Field(description="The task being played.")
    step: int = Field(default=0, description="Actions taken so far.")
    user_message: str | None = Field(default=None, description="The user's words.")
    tool_result: dict[str, Any] | None = Field(
        default=None, description="The last call's result: tool, ok, output, error."
    )
    tools: list[dict[str, Any]] = Field(
        default_factory=list, description="Allowlisted tools: name, description, input_schema."
    )
    policy: str = Field(
        default="",
        description="The domain policy (start only); in search mode a pointer to search_policy.",
    )
    policy_mode: Literal["prompt", "search", "both"] = Field(
        default="prompt", description="How the policy is served: prompt, search or both."
    )
    termination: str | None = Field(default=None, description="Why the episode ended.")


class StateboxState(State):
    """Server-side episode state (no evaluator data)."""

    task_id: str | None = Field(default=None, description="The task being played.")
    done: bool = Field(default=False, description="Whether the episode has ended.")


class StateboxEnvClient(EnvClient[StateboxAction, StateboxObservation, StateboxState]):
    """OpenEnv WebSocket client of the statebox environment.

    Example:
        ``async with StateboxEnvClient(base_url="http://127.0.0.1:8000/openenv") as env:``
        ``r = await env.reset(task_id="toy.transfer.train.001")``
    """

    def _step_payload(self, action: StateboxAction) -> dict[str, Any]:
        data: dict[str, Any] = action.model_dump(exclude={"metadata"})
        return data

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[StateboxObservation]:
        obs = StateboxObservation.model_validate(
            {
                **payload.get("observation", {}),
                "reward": payload.get("reward"),
                "done": payload.get("done", False),
            }
        )
        return StepResult(
            observation=obs,
            reward=payload.get("reward"),
            done=bool(payload.get("done", False)),
            metadata=payload.get("metadata"),
        )

    def _parse_state(self, payload: dict[str, Any]) -> StateboxState:
        state: StateboxState = StateboxState.model_validate(payload)
        return state
