"""The shared vocabulary of a chat: messages, tool calls, tool results. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolResult:
    """What a tool gives back to the model: text, and whether it is an error the model sees."""

    text: str
    is_error: bool = False


@dataclass(frozen=True)
class ToolCall:
    """One tool call proposed by the model."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
