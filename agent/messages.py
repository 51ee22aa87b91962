"""The shared vocabulary of a chat: messages, tool calls, tool results, usage. No I/O here."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.depth import MAX_DEPTH, too_deep

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """One tool call proposed by the model; `arguments` is the raw JSON text it sent."""

    id: str
    name: str
    arguments: str = "{}"

    def to_openai(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class ToolResult:
    """What a tool gives back to the model: text, and whether it is an error the model sees."""

    text: str
    is_error: bool = False


@dataclass(frozen=True)
class Message:
    """One message of the history, in the OpenAI chat shape litellm accepts for every provider."""

    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None  # for role "tool": the call this answers

    def to_openai(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        return data


def user_message(text: str) -> Message:
    """A message the person typed."""
    return Message("user", text)


def tool_message(call: ToolCall, result: ToolResult) -> Message:
    """The answer to one tool call, as the model will read it."""
    text = f"Error: {result.text}" if result.is_error else result.text
    return Message("tool", text, tool_call_id=call.id)


@dataclass(frozen=True)
class Usage:
    """Tokens (and cost in USD when the price is known) of one model request or a sum of them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def __add__(self, other: Usage) -> Usage:
        cost = None
        if self.cost_usd is not None or other.cost_usd is not None:
            cost = (self.cost_usd or 0.0) + (other.cost_usd or 0.0)
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            cost,
        )

    def to_json(self) -> dict[str, Any]:
        """The usage fields as session files and one-shot JSON output hold them."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
        }


@dataclass(frozen=True)
class Completion:
    """A whole assistant reply: its text, its tool calls, and what it cost."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)

    def message(self) -> Message:
        return Message("assistant", self.text or None, self.tool_calls)


def parse_arguments(call: ToolCall) -> dict[str, Any]:
    """The call's arguments as an object; ValueError says what is wrong with them."""
    text = call.arguments.strip() or "{}"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"arguments are not valid JSON ({error.msg} at column {error.colno})"
        ) from None
    except RecursionError:  # nested deeper than the decoder's stack: hostile, never real
        raise ValueError(f"arguments nest more than {MAX_DEPTH} levels deep") from None
    if not isinstance(value, dict):
        raise ValueError("arguments must be a JSON object")
    # Shown to the person, validated and sent on by code that recurses: keep it shallow.
    if too_deep(value):
        raise ValueError(f"arguments nest more than {MAX_DEPTH} levels deep")
    return value
