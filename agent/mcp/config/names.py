"""Server names and the model-facing tool names built from them.

Providers accept tool names matching ^[a-zA-Z0-9_-]{1,64}$. We map other characters, shorten
over-long names with a stable hash suffix, and report collisions instead of hiding them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

__all__ = [
    "ToolNameCollisionError",
    "model_tool_name",
    "model_tool_names",
    "normalize_server_name",
    "server_name_problem",
]

from agent.errors import ToolNameCollisionError
from agent.text import sanitize_line

TOOL_NAME_PREFIX = "mcp"
MAX_TOOL_NAME_LENGTH = 64
_HASH_LENGTH = 8
_PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def normalize_server_name(name: str) -> str:
    """Lower-case, NFKC, runs of other characters become one hyphen: " Context 7 " -> "context-7".

    Underscore runs collapse to one underscore, so the `__` separator in tool names stays
    unambiguous. The result may be empty; callers reject that.
    """
    text = unicodedata.normalize("NFKC", name).strip().lower()
    text = re.sub(r"[^a-z0-9_-]+", "-", text)
    text = re.sub(r"_{2,}", "_", text)
    text = re.sub(r"-{2,}", "-", text)
    return text.strip("-_")


def server_name_problem(name: str) -> str | None:
    """Why `name` cannot name a server, or None when it can.

    A server's name is printed in dialogs, listings and errors, where a line break, a bidi
    control or an invisible character would let it draw lines or read as another name.
    """
    shown = sanitize_line(name)
    if shown == name:
        return None
    found = sorted({sanitize_line(char) for char in name if sanitize_line(char) != char})
    return (
        f"the name holds control, invisible or line-break characters ({', '.join(found)}); "
        "rename the server using printable characters only"
    )


def _sanitize_tool_part(tool: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "_", unicodedata.normalize("NFKC", tool))


def model_tool_name(server: str, tool: str) -> str:
    """`mcp__<normalized server>__<tool>`, made valid for providers and at most 64 characters.

    Characters outside [a-zA-Z0-9_-] become `_`; a name over 64 characters keeps its start and
    ends with `_` plus 8 hex digits of the full name's sha256, so it is stable across runs.
    """
    full = f"{TOOL_NAME_PREFIX}__{normalize_server_name(server)}__{_sanitize_tool_part(tool)}"
    if len(full) <= MAX_TOOL_NAME_LENGTH:
        return full
    digest = hashlib.sha256(full.encode()).hexdigest()[:_HASH_LENGTH]
    keep = MAX_TOOL_NAME_LENGTH - _HASH_LENGTH - 1
    return f"{full[:keep]}_{digest}"


def model_tool_names(server: str, tools: Iterable[str]) -> dict[str, str]:
    """Map each tool of `server` to its model-facing name; a collision is an error naming both."""
    by_model_name: dict[str, str] = {}
    result: dict[str, str] = {}
    for tool in tools:
        name = model_tool_name(server, tool)
        if name in by_model_name:
            raise ToolNameCollisionError(
                f"server {server!r}: tools {by_model_name[name]!r} and {tool!r} both become "
                f"the model tool name {name!r}; rename one of them on the server"
            )
        by_model_name[name] = tool
        result[tool] = name
    return result


def is_provider_safe(name: str) -> bool:
    """True when `name` satisfies the providers' tool-name rule."""
    return _PROVIDER_NAME.fullmatch(name) is not None
