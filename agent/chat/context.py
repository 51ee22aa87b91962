"""What the next request holds, and its size in tokens: `/context` and the toolbar's share.

Measured on what the request sends: the same system prompt parts, the same tools (combined
as the request combines them) and the same history messages. Counted with litellm's token
counter for the model (agent.model.count_tokens); a model without one (a scripted test model)
is estimated at four characters a token, and the report says which.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.chat.server_notes import cut_notes, fitted_notes
from agent.chat.state import ChatSession
from agent.errors import AgentError
from agent.messages import estimate_tokens

ESTIMATED = "estimated at 4 characters a token"
COUNTED = "counted by litellm's token counter"


@dataclass(frozen=True)
class ContextPart:
    """One part of the request: its name, its tokens, and a detail (files, tool count)."""

    name: str
    tokens: int
    detail: str = ""
    count: int = 0  # tools or messages it holds


@dataclass(frozen=True)
class ContextReport:
    """The next request, part by part, as `/context` shows it."""

    model: str
    system: tuple[ContextPart, ...]
    system_tokens: int
    tools: tuple[ContextPart, ...]
    tools_tokens: int
    history: ContextPart
    total: int  # the whole request: messages and tools together, as sent
    window: int
    counted: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    deferred: ContextPart | None = None  # MCP tools the tool search holds back, not in `total`

    @property
    def share(self) -> float:
        """The share of the model's context window the request fills."""
        return self.total / self.window if self.window else 0.0


class _Counter:
    def __init__(self, chat: ChatSession) -> None:
        counter = getattr(chat.conversation.model, "count_tokens", None)
        self._count = counter if callable(counter) else None
        self.how = COUNTED if self._count else ESTIMATED

    def messages(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> int:
        if self._count is not None:
            return int(self._count(messages=messages, tools=tools))
        return estimate_tokens([*messages, *tools])

    def text(self, text: str) -> int:
        if not text:
            return 0
        if self._count is not None:
            return int(self._count(text=text))
        return len(text) // 4

    def tools(self, tools: Sequence[dict[str, Any]]) -> int:
        if not tools:
            return 0
        return self.text(json.dumps(list(tools), ensure_ascii=False))


def measure_context(chat: ChatSession) -> ContextReport:
    """The next request's parts and their tokens (may load litellm to count)."""
    conversation = chat.conversation
    counter = _Counter(chat)
    if counter.how == COUNTED:
        counter.text(".")  # litellm loaded first: deferral then measures the model's own window
    try:
        tools = conversation.next_tools()
    except AgentError:  # a name conflict: the request would fail; nothing of the tools goes
        tools = {}
    messages = conversation.request_messages()  # after the tools: the prompt names deferrals
    specs = [tool.spec.to_openai() for tool in tools.values()]
    system = tuple(_system_parts(chat, counter))
    by_source: dict[str, list[dict[str, Any]]] = {}
    for tool in tools.values():
        by_source.setdefault(tool.spec.source, []).append(tool.spec.to_openai())
    tool_parts = tuple(
        ContextPart(source, counter.tools(group), _count_of(len(group), "tool"), len(group))
        for source, group in by_source.items()
    )
    history = messages[1:]
    return ContextReport(
        model=chat.model_name,
        system=system,
        system_tokens=counter.text(str(messages[0]["content"])),
        tools=tool_parts,
        tools_tokens=counter.tools(specs),
        history=ContextPart(
            "history", counter.messages(history, []), _count_of(len(history), "message")
        ),
        total=counter.messages(messages, specs),
        window=chat.context_window(),
        counted=counter.how,
        notes=tuple(_notes(chat)),
        deferred=_deferred(chat, counter),
    )


def _deferred(chat: ChatSession, counter: _Counter) -> ContextPart | None:
    """The deferred MCP tools not sent (found ones are in the tools above), in tokens."""
    deferral = chat.conversation.deferral
    hidden = deferral.plan_now.hidden() if deferral is not None else {}
    if not hidden:
        return None
    servers = dict.fromkeys(str(tool.spec.server) for tool in hidden.values())
    specs = [tool.spec.to_openai() for tool in hidden.values()]
    detail = f"{_count_of(len(hidden), 'tool')} of {', '.join(servers)}; search_tools finds them"
    return ContextPart("deferred (not sent)", counter.tools(specs), detail, len(hidden))


def _system_parts(chat: ChatSession, counter: _Counter) -> list[ContextPart]:
    # Each part counts what it adds to the prompt as rendered (its blank-line separator too):
    # tokens of the prompt up to it, less those before it. So the rows sum to the system
    # prompt's own count exactly, though a tokenizer may merge across a part's edges.
    parts = []
    shown: list[str] = []
    before = 0
    for name, text in chat.system_parts():
        if text:
            shown.append(text)
        upto = counter.text("\n\n".join(shown))
        tokens, before = upto - before, upto
        detail = ""
        if name == "instruction files" and chat.instructions is not None:
            used, _left_out = chat.instructions.fitted()
            detail = ", ".join(f.file.label for f in used)
        elif name == "server instructions":
            detail = ", ".join(
                note.server for note in fitted_notes(chat.host.server_instructions())
            )
        parts.append(ContextPart(name or "other", tokens, detail))
    return parts


def _notes(chat: ChatSession) -> list[str]:
    notes: list[str | None] = [_pending_note(chat)]
    if chat.instructions is not None:
        notes += [chat.instructions.cut_note(), chat.instructions.untrusted_note()]
    notes += cut_notes(chat.host.server_instructions())
    return [note for note in notes if note]


def _pending_note(chat: ChatSession) -> str:
    # The request waits for servers still starting and will carry their tools: say so, since
    # the numbers above cannot count them yet.
    names = chat.host.still_starting()
    if not names:
        return ""
    return f"waiting for: {', '.join(names)} (still starting; their tools are not counted yet)"


def _count_of(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def context_share(chat: ChatSession) -> float | None:
    """The share of the window the next request fills, for the toolbar; None until it was
    counted. The prompt never waits for it: litellm must be loaded already, and the count
    runs in a thread (the tokenizer loads on first use, and a long history takes a while)
    whenever the request changed; the toolbar shows the last count meanwhile."""
    model = chat.conversation.model
    ready = getattr(model, "counter_ready", False)
    if not ready or not callable(getattr(model, "count_tokens", None)):
        return None  # no tokenizer (a scripted model), or litellm still loading
    try:
        tools = chat.conversation.next_tools()
        messages = chat.conversation.request_messages(estimate=True)
    except AgentError:
        return None
    specs = [tool.spec.to_openai() for tool in tools.values()]
    # The history only grows, or starts over: its length and last message tell a change.
    key = json.dumps(
        [len(messages), messages[0], messages[-1], list(tools)], ensure_ascii=False, default=str
    )
    cache = chat.share_cache
    share = cache.get("share")  # the last count, read before a new one may start
    running = cache.get("thread")
    if cache.get("key") != key and not (
        isinstance(running, threading.Thread) and running.is_alive()
    ):
        counter, window = _Counter(chat), chat.context_window()

        def count() -> None:
            try:
                counted = counter.messages(messages, specs) / window if window else None
            except Exception:  # a count that fails shows nothing; the chat goes on
                counted = None
            cache.update(key=key, share=counted)

        thread = threading.Thread(target=count, name="count-context", daemon=True)
        cache["thread"] = thread
        thread.start()
    return share if isinstance(share, float) else None
