"""Chat message types the ThinkingBox test files name."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Text"]


@dataclass
class Text:
    """One chat message: a role and its text."""

    role: str
    """``system``, ``user`` or ``assistant``."""
    content: str
    """The message text."""
