"""The pydantic base every statebox boundary model uses.

Frozen, extra keys forbidden, attribute docstrings as field descriptions: a task file
or a results line with an unknown key is an error, never silently dropped.
"""

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = ["Model", "validation_line"]


class Model(BaseModel):
    """Frozen, strict-keyed pydantic base for statebox's data models."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


def validation_line(exc: ValidationError) -> str:
    """A validation error in one line: each field and what is wrong with it.

    Pydantic's own text spreads each error over lines, with its input and a link to its
    docs: as a command's error, the one-line messages the CLI promises read better.
    """
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(x) for x in err["loc"])
        message = err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)
