"""An intent block: the function that makes an `Intent`, who may ask it, its family."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

from ._compose import Ids, Intent

__all__ = ["Block", "Who"]

Who = Literal["any", "employee", "contractor", "manager"]


class Block(NamedTuple):
    """One intent branch's maker."""

    make: Callable[[Ids, str, int], Intent]
    who: Who
    """``any``: a staff employee or contractor; ``employee``: staff, not a contractor."""
    family: str
