"""Tools: typed functions over a world, their schemas, and the allowlisted dispatcher."""

from statebox.tools._dispatch import Dispatcher, ToolCall, ToolFailure, ToolResult, tool_map
from statebox.tools._errors import (
    ERROR_CLASSES,
    ERROR_HINTS,
    DispatchErrorKind,
    ErrorClass,
    ToolError,
    ToolErrorKind,
    error_class_for,
)
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
    "ERROR_CLASSES",
    "ERROR_HINTS",
    "INT64_MAX",
    "INT64_MIN",
    "REQUIRED",
    "RESERVED_TOOL_NAMES",
    "DispatchErrorKind",
    "Dispatcher",
    "ErrorClass",
    "ToolCall",
    "ToolError",
    "ToolErrorKind",
    "ToolFailure",
    "ToolParam",
    "ToolResult",
    "ToolSpec",
    "error_class_for",
    "make_tool",
    "tool",
    "tool_map",
]
