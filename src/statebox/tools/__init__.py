"""Tools: typed functions over a world, their schemas, and the allowlisted dispatcher."""

from statebox.tools._dispatch import Dispatcher, ToolCall, ToolFailure, ToolResult, tool_map
from statebox.tools._errors import DispatchErrorKind, ToolError, ToolErrorKind
from statebox.tools._spec import (
    INT64_MAX,
    INT64_MIN,
    REQUIRED,
    RESERVED_TOOL_NAMES,
    ToolParam,
    ToolSpec,
    make_tool,
    tool,
)

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "REQUIRED",
    "RESERVED_TOOL_NAMES",
    "DispatchErrorKind",
    "Dispatcher",
    "ToolCall",
    "ToolError",
    "ToolErrorKind",
    "ToolFailure",
    "ToolParam",
    "ToolResult",
    "ToolSpec",
    "make_tool",
    "tool",
    "tool_map",
]
