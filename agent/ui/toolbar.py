"""The bottom toolbar under the prompt: model, tokens and cost so far, MCP servers by state."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.messages import Usage
from agent.text import plural, sanitize_line

if TYPE_CHECKING:
    from agent.chat.context import ContextFigure
    from agent.chat.state import ChatSession
    from agent.mcp.host import ServerCounts


def status_text(
    model: str,
    usage: Usage,
    servers: str,
    context: ContextFigure | None = None,
    mode: str = "",
) -> str:
    """` openai/gpt-4.1 · 1,234 tokens · $0.0123 · context 3,665 tokens (3%) · MCP 2 ready `:
    the session's tokens so far, then the next request's as `/context` counts its total, with
    its share of the model's window only when the window is known. `mode`: the chat's mode
    when it is not the normal one (`plan mode`), first."""
    tokens = usage.prompt_tokens + usage.completion_tokens
    parts = [mode] if mode else []
    parts += [sanitize_line(model), plural(tokens, "token")]
    if usage.cost_usd is not None:
        parts.append(f"${usage.cost_usd:.4f}")
    if context is not None:
        share = f" ({context.share:.0%})" if context.share is not None else ""
        parts.append(f"context {plural(context.tokens, 'token')}{share}")
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
        return status_text(
            chat.model_name, chat.conversation.usage, servers, _figure(chat), mode_text(chat)
        )


def mode_text(chat: ChatSession) -> str:
    """`plan mode` (`plan mode + MCP` with MCP tools allowed); "" in the normal mode."""
    state = chat.conversation.plan.state
    if not state.on:
        return ""
    return "plan mode + MCP" if state.mcp else "plan mode"


def _figure(chat: ChatSession) -> ContextFigure | None:
    from agent.chat.context import context_figure

    try:
        return context_figure(chat)
    except Exception:  # the count is a nicety: the prompt must be drawn whatever happens
        return None
