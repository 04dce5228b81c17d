"""A YAML parse error in one line, saying where in the file.

PyYAML's own text spans several lines and names the text it read ``"<unicode
string>"``; the caller names the file, this says the line, column and problem.
"""

from __future__ import annotations

import yaml

__all__ = ["yaml_problem"]


def yaml_problem(exc: yaml.YAMLError) -> str:
    """``not valid YAML at line L, column C: PROBLEM`` (the position when PyYAML knows it)."""
    mark = getattr(exc, "problem_mark", None)
    at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    return f"not valid YAML{at}: {problem}"
