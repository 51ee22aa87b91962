"""The bottom toolbar under the prompt: model, tokens and cost so far, MCP servers by state."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.messages import Usage
from agent.text import sanitize_line

if TYPE_CHECKING:
    from agent.chat.state import ChatSession
    from agent.mcp.host import ServerCounts


def status_text(model: str, usage: Usage, servers: str, share: float | None = None) -> str:
    """` openai/gpt-4.1 · 1,234 tokens · $0.0123 · context 3% · MCP 2 ready, 1 starting `."""
    tokens = usage.prompt_tokens + usage.completion_tokens
    parts = [sanitize_line(model), f"{tokens:,} tokens"]
    if usage.cost_usd is not None:
        parts.append(f"${usage.cost_usd:.4f}")
    if share is not None:  # the next request's share of the model's context window
        parts.append(f"context {share:.0%}")
    parts.append(servers)
    return " " + " · ".join(parts) + " "


def describe_servers(servers: ServerCounts | None) -> str:
    """`MCP 2 ready, 1 offline`; `MCP starting` before the MCP side is up; `no MCP servers`."""
    if servers is None:
        return "MCP starting"
    counts = [
        (servers.ready, "ready"),
        (servers.starting, "starting"),
        (servers.offline, "offline"),
        (servers.untrusted, "untrusted"),
    ]
    shown = [f"{count} {word}" for count, word in counts if count]
    return "MCP " + ", ".join(shown) if shown else "no MCP servers"


class StatusToolbar:
    """prompt_toolkit's `bottom_toolbar`: computed afresh each time the prompt is drawn."""

    def __init__(self, chat: Callable[[], ChatSession | None]) -> None:
        self._chat = chat  # None until the chat is set up

    def __call__(self) -> str:
        chat = self._chat()
        if chat is None:
            return " starting… "
        try:
            servers = describe_servers(chat.host.server_counts())
        except Exception:  # a toolbar must never break the prompt (say, a broken config file)
            servers = "MCP status unknown"
        return status_text(chat.model_name, chat.conversation.usage, servers, _share(chat))


def _share(chat: ChatSession) -> float | None:
    from agent.chat.context import context_share

    try:
        return context_share(chat)
    except Exception:  # the count is a nicety: the prompt must be drawn whatever happens
        return None
