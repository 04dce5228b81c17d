"""The error a trainer sees when statebox, not the policy, failed a rollout."""

from __future__ import annotations

from statebox.errors import StateboxError

__all__ = ["TrialSystemError"]


class TrialSystemError(StateboxError):
    """A rollout statebox could not run: no reward exists for it; re-run it.

    Args:
        trial_id: The rollout's trial id (``<task id>/<n>``).
        message: What broke.
    """

    def __init__(self, trial_id: str, message: str) -> None:
        super().__init__(f"system_error in trial {trial_id}: {message}")
        self.trial_id = trial_id
        """The trial that could not run."""
