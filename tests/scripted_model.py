"""A ChatModel that answers from a script, at our own model seam: loop tests without HTTP.

    model = ScriptedModel([Reply("Hello there."), Reply(calls=[ToolCall("c1", "t", "{}")])])
    Conversation(model, ...)
    model.requests[-1].messages       # what the loop sent, in the OpenAI shape

Each request takes the next reply: its text streams as a few chunks, then one Completion,
as LiteLLMModel does. Every chunk passes an anyio checkpoint, as a real stream's network read
does, so a cancelled turn (Ctrl-C) stops mid-answer. A request past the end of the script
fails the test loudly. Model behaviour itself (errors, timeouts, litellm's chunk assembly)
is tested against LiteLLMModel and the fake OpenAI server, not here.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio.lowlevel

from agent.errors import AgentError
from agent.messages import Completion, ToolCall, Usage
from agent.model import TextChunk


@dataclass(frozen=True)
class Reply:
    """One scripted answer: text and tool calls, or an error the model raises instead."""

    text: str = ""
    calls: Sequence[ToolCall] = ()
    usage: Usage = field(default_factory=lambda: Usage(10, 5))
    error: AgentError | None = None
    chunks: int = 3  # how many pieces the text streams in


@dataclass(frozen=True)
class Request:
    """What the loop sent for one completion."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]


class ScriptedModel:
    """Streams the scripted replies in order and records every request."""

    def __init__(
        self, replies: Sequence[Reply], name: str = "scripted/model", vision: bool = False
    ) -> None:
        self.name = name
        self.vision = vision  # what accepts_images() answers, as litellm's model info would
        self.replies = list(replies)
        self.requests: list[Request] = []

    def accepts_images(self) -> bool:
        """Whether this scripted model takes images."""
        return self.vision

    def sent(self, index: int = -1) -> list[dict[str, Any]]:
        """The messages of one request (the last by default)."""
        return self.requests[index].messages

    async def stream(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[TextChunk | Completion]:
        """The next reply, as chunks and then a Completion (or its error)."""
        self.requests.append(Request([dict(m) for m in messages], [dict(t) for t in tools]))
        if not self.replies:
            raise AssertionError(f"no scripted reply left for request {len(self.requests)}")
        reply = self.replies.pop(0)
        await anyio.lowlevel.checkpoint()
        if reply.error is not None:
            raise reply.error
        for piece in _pieces(reply.text, reply.chunks):
            yield TextChunk(piece)
            await anyio.lowlevel.checkpoint()
        yield Completion(reply.text, tuple(reply.calls), reply.usage)


def _pieces(text: str, count: int) -> list[str]:
    """`text` cut into up to `count` non-empty pieces that join back to it."""
    size = max(1, -(-len(text) // max(1, count)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def echo_call(call_id: str, text: str, name: str = "mcp__fx__echo") -> ToolCall:
    """A call of the test echo tool with `{"text": text}`."""
    return ToolCall(call_id, name, json.dumps({"text": text}))
