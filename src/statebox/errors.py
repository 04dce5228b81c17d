"""The statebox exception tree.

Every error a user can cause is a `StateboxError` whose message names the object at
fault and what to do about it. `ToolError` (in `statebox.tools`) stands apart: it is a
refusal meant for the agent inside an episode, not a failure of statebox.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "BackendError",
    "ConfigError",
    "DomainError",
    "GoldenReplayError",
    "JudgeError",
    "ModelEndpointError",
    "ResultsFormatError",
    "StateboxError",
    "TaskSpecError",
]


class StateboxError(Exception):
    """Base of every error statebox raises on purpose; the CLI prints it without a traceback."""


class ConfigError(StateboxError):
    """A setting, flag or option is invalid or missing."""


class BackendError(StateboxError):
    """An external tool backend (an MCP server process) failed to start, set up or answer.

    Inside a trial it is a system error, never the agent's fault.
    """


class DomainError(StateboxError):
    """A domain is malformed (schema, seed, tool declaration) or cannot be found."""


class TaskSpecError(StateboxError):
    """A task file or task is invalid.

    Attributes:
        file: The task file (or None for tasks built in code).
        task_id: The task's id, or None when it could not be read.
        field: Dotted path of the offending field, or None for the whole task.
        reason: What is wrong.
    """

    def __init__(
        self,
        reason: str,
        *,
        file: Path | str | None = None,
        task_id: str | None = None,
        field: str | None = None,
    ) -> None:
        self.file = str(file) if file is not None else None
        self.task_id = task_id
        self.field = field
        self.reason = reason
        where = [
            f"file {self.file}" if self.file else None,
            f"task {task_id}" if task_id else None,
            f"field {field}" if field else None,
        ]
        prefix = ", ".join(w for w in where if w)
        super().__init__(f"{prefix}: {reason}" if prefix else reason)


class GoldenReplayError(StateboxError):
    """A golden tool call failed, so the task is invalid (never a shorter golden trajectory).

    Attributes:
        task_id: The task whose golden trajectory failed.
        step: Zero-based index of the failing call in the trajectory.
        tool: Name of the tool that failed.
        reason: The tool's error.
    """

    def __init__(self, task_id: str, step: int, tool: str, reason: str) -> None:
        self.task_id = task_id
        self.step = step
        self.tool = tool
        self.reason = reason
        super().__init__(
            f"task {task_id}: golden call {step} ({tool}) failed: {reason}; "
            "fix the golden trajectory or the task's initial_state"
        )


class ModelEndpointError(StateboxError):
    """A model endpoint could not be reached or kept failing after retries."""


class JudgeError(StateboxError):
    """The judge could not reach a verdict (e.g. a rubric answer that is not exactly yes or no)."""


class ResultsFormatError(StateboxError):
    """A results file is malformed or from an unknown schema version.

    Attributes:
        path: The file.
        line: One-based line number, or None for the whole file.
        version: The schema version found, if any.
    """

    def __init__(
        self, reason: str, *, path: Path | str, line: int | None = None, version: int | None = None
    ) -> None:
        self.path = str(path)
        self.line = line
        self.version = version
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {reason}")
