"""The pydantic base every statebox boundary model uses.

Frozen, extra keys forbidden, attribute docstrings as field descriptions: a task file
or a results line with an unknown key is an error, never silently dropped.
"""

from pydantic import BaseModel, ConfigDict

__all__ = ["Model"]


class Model(BaseModel):
    """Frozen, strict-keyed pydantic base for statebox's data models."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)
