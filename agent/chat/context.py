"""What the next request holds, and its size in tokens: `/context` and the toolbar's figure.

One counting method for every number: the whole request (messages and tools) as the model
gets it, counted by litellm's token counter for the model (agent.model.count_tokens); a model
without one (a scripted test model) is estimated at four characters a token, and the report
says which. Each part is what it adds: the request counted up to and including it, less the
request up to the part before. So the parts sum to the total exactly, and the total is the
count of the request itself (a tokenizer may merge across a part's edges; that token goes to
the later part).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.chat.server_notes import cut_notes, fitted_notes
from agent.chat.state import ChatSession
from agent.errors import AgentError
from agent.messages import ImagePart, Message, TextPart, estimate_tokens
from agent.text import plural
from agent.tools.base import Tool

ESTIMATED = "estimated at 4 characters a token"
COUNTED = "counted by litellm's token counter"
WINDOW_SETTING = "model_limits.context_window_tokens"


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
    messages: ContextPart
    attachments: ContextPart
    total: int  # the whole request as sent: the sum of the four parts above
    window: int | None  # None: nobody knows the model's window
    window_source: str  # where the window's figure comes from
    counted: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    deferred: ContextPart | None = None  # MCP tools the tool search holds back, not in `total`

    @property
    def share(self) -> float | None:
        """The share of the model's context window the request fills; None when unknown."""
        return self.total / self.window if self.window else None


Count = Callable[[Sequence[dict[str, Any]], Sequence[dict[str, Any]]], int]


def request_counter(chat: ChatSession) -> tuple[Count, str]:
    """The one way this chat's requests are counted, and how to say it."""
    counter = getattr(chat.conversation.model, "count_tokens", None)
    if callable(counter):
        return (lambda messages, tools: int(counter(messages=messages, tools=tools))), COUNTED
    return (lambda messages, tools: estimate_tokens([*messages, *tools])), ESTIMATED


def _next_tools(chat: ChatSession) -> dict[str, Tool]:
    """The next request's tools (deferred MCP tools left out), in its order."""
    try:
        return chat.conversation.next_tools()
    except AgentError:  # a name conflict: the request would fail; nothing of the tools goes
        return {}


def _tool_specs(chat: ChatSession) -> list[dict[str, Any]]:
    return [tool.spec.to_openai() for tool in _next_tools(chat).values()]


def request_tokens(chat: ChatSession) -> int:
    """The next request's tokens, counted as `/context` counts its total (the toolbar's
    figure; may load litellm, so call it in a worker thread)."""
    count, how = request_counter(chat)
    messages = chat.conversation.request_messages(estimate=how == ESTIMATED)
    return count(messages, _tool_specs(chat))


def _ready_counter(chat: ChatSession) -> tuple[Count, str]:
    """The request counter, with litellm loaded first when it counts: the deferral's plan
    then measures the model's window, as the request itself will."""
    count, how = request_counter(chat)
    if how == COUNTED:
        count([{"role": "user", "content": "."}], [])
    return count, how


def _system_texts(chat: ChatSession) -> tuple[list[tuple[str, str]], str]:
    """The system prompt's parts by name, and the prompt they make."""
    texts = [(name or "other", text) for name, text in chat.system_parts()]
    return texts, "\n\n".join(text for _name, text in texts if text)


def measure_deferred(chat: ChatSession) -> ContextPart | None:
    """The deferred MCP tools the next request leaves out, and the tokens they would add to it:
    the one figure `/tools` and `/context` both say (may load litellm to count)."""
    count, _how = _ready_counter(chat)
    specs = _tool_specs(chat)
    _texts, prompt = _system_texts(chat)
    return _deferred(chat, [Message("system", prompt).to_openai()], specs, count)


def measure_context(chat: ChatSession) -> ContextReport:
    """The next request's parts and their tokens (may load litellm to count)."""
    conversation = chat.conversation
    count, how = _ready_counter(chat)
    estimate = how == ESTIMATED  # images by their notes: base64 is no measure of tokens
    specs = _tool_specs(chat)
    texts, prompt = _system_texts(chat)
    bare = conversation.request_messages(estimate, attachments=False, system=prompt)
    full = conversation.request_messages(estimate, system=prompt)
    system = bare[:1]

    system_parts, upto = _system_parts(chat, texts, count)
    tool_parts: list[ContextPart] = []
    offered: list[dict[str, Any]] = []
    for source, group in _by_source(chat, specs).items():
        offered.extend(group)
        tokens = count(system, offered) - upto - sum(part.tokens for part in tool_parts)
        tool_parts.append(ContextPart(source, tokens, plural(len(group), "tool"), len(group)))
    with_tools = count(system, specs)
    without_attachments = count(bare, specs)
    total = count(full, specs)
    history = list(conversation.history)
    attached = _attachments(history)
    window = chat.context_window()
    return ContextReport(
        model=chat.model_name,
        system=tuple(system_parts),
        system_tokens=upto,
        tools=tuple(tool_parts),
        tools_tokens=with_tools - upto,
        messages=ContextPart(
            "messages", without_attachments - with_tools, plural(len(history), "message")
        ),
        attachments=ContextPart("attachments", total - without_attachments, attached),
        total=total,
        window=window,
        window_source=chat.window_source() if window else "",
        counted=how,
        notes=tuple(_notes(chat)),
        deferred=_deferred(chat, system, specs, count),
    )


def _deferred(
    chat: ChatSession, system: list[dict[str, Any]], specs: list[dict[str, Any]], count: Count
) -> ContextPart | None:
    """The deferred MCP tools not sent (found ones are in the tools above): what they would
    add to the request, in tokens."""
    deferral = chat.conversation.deferral
    hidden = deferral.plan_now.hidden() if deferral is not None else {}
    if not hidden:
        return None
    servers = dict.fromkeys(str(tool.spec.server) for tool in hidden.values())
    held = [tool.spec.to_openai() for tool in hidden.values()]
    tokens = count(system, [*specs, *held]) - count(system, specs)
    detail = f"{plural(len(hidden), 'tool')} of {', '.join(servers)}; search_tools finds them"
    return ContextPart("deferred (not sent)", tokens, detail, len(hidden))


def _system_parts(
    chat: ChatSession, texts: list[tuple[str, str]], count: Count
) -> tuple[list[ContextPart], int]:
    """Each part of the system prompt with what it adds (its blank-line separator too), and
    the system message's own count."""
    parts = []
    shown: list[str] = []
    before = 0
    for name, text in texts:
        if text:
            shown.append(text)
        upto = count([Message("system", "\n\n".join(shown)).to_openai()], [])
        parts.append(ContextPart(name, upto - before, _detail(chat, name)))
        before = upto
    return parts, before


def _detail(chat: ChatSession, name: str) -> str:
    if name == "instruction files" and chat.instructions is not None:
        used, _left_out = chat.instructions.fitted()
        return ", ".join(f.file.label for f in used)
    if name == "server instructions":
        return ", ".join(note.server for note in fitted_notes(chat.host.server_instructions()))
    if name == "task list" and chat.todos.items:
        steps = plural(len(chat.todos.items), "step")
        if not chat.todos.section(chat.conversation.history):
            return f"{steps} (in the messages; here once compacted)"
        return steps
    return ""


def _by_source(chat: ChatSession, specs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    source = {name: tool.spec.source for name, tool in _next_tools(chat).items()}
    groups: dict[str, list[dict[str, Any]]] = {}
    for spec in specs:
        groups.setdefault(source.get(spec["function"]["name"], "other"), []).append(spec)
    return groups


def _attachments(history: list[Message]) -> str:
    parts = [part for message in history for part in message.parts]
    texts = sum(1 for part in parts if isinstance(part, TextPart))
    images = sum(1 for part in parts if isinstance(part, ImagePart))
    said = [plural(texts, "resource")] if texts else []
    said += [plural(images, "image")] if images else []
    return ", ".join(said) if said else "none"


def _notes(chat: ChatSession) -> list[str]:
    notes: list[str | None] = [_pending_note(chat), _window_note(chat)]
    if chat.instructions is not None:
        notes += [chat.instructions.cut_note(), chat.instructions.untrusted_note()]
    notes += cut_notes(chat.host.server_instructions())
    return [note for note in notes if note]


def _window_note(chat: ChatSession) -> str:
    if chat.context_window():
        return ""
    return (
        f"{chat.model_name}'s context window is unknown (litellm does not know this model), so "
        f"no share is shown; set {WINDOW_SETTING} in settings.yaml to the window your model "
        "server gives it"
    )


def _pending_note(chat: ChatSession) -> str:
    # The request waits for servers still starting and will carry their tools: say so, since
    # the numbers above cannot count them yet.
    names = chat.host.still_starting()
    if not names:
        return ""
    return f"waiting for: {', '.join(names)} (still starting; their tools are not counted yet)"


@dataclass(frozen=True)
class ContextFigure:
    """The toolbar's figure: the next request's tokens and the window (None: unknown)."""

    tokens: int
    window: int | None

    @property
    def share(self) -> float | None:
        """The share of the window the request fills; None when the window is unknown."""
        return self.tokens / self.window if self.window else None


def context_figure(chat: ChatSession) -> ContextFigure | None:
    """The next request's size for the toolbar, counted as `/context` counts its total; None
    until it was counted. The prompt never waits for it: litellm must be loaded already, and
    the count runs in a thread (the tokenizer loads on first use, and a long history takes a
    while) whenever the request changed; the toolbar shows the last count meanwhile."""
    model = chat.conversation.model
    ready = getattr(model, "counter_ready", False)
    if not ready or not callable(getattr(model, "count_tokens", None)):
        return None  # no tokenizer (a scripted model), or litellm still loading
    history = chat.conversation.history
    last = history[-1].to_openai(images=False) if len(history) else None
    # The history only grows, or starts over: its length and last message tell a change.
    key = json.dumps(
        [len(history), chat.conversation.system_prompt(), last, [s["function"]["name"]
         for s in _tool_specs(chat)], chat.context_window()],
        ensure_ascii=False, default=str,
    )  # fmt: skip
    cache = chat.share_cache
    figure = cache.get("figure")  # the last count, read before a new one may start
    running = cache.get("thread")
    if cache.get("key") != key and not (
        isinstance(running, threading.Thread) and running.is_alive()
    ):
        window = chat.context_window()

        def count() -> None:
            try:
                counted: ContextFigure | None = ContextFigure(request_tokens(chat), window)
            except Exception:  # a count that fails shows nothing; the chat goes on
                counted = None
            cache.update(key=key, figure=counted)

        thread = threading.Thread(target=count, name="count-context", daemon=True)
        cache["thread"] = thread
        thread.start()
    return figure if isinstance(figure, ContextFigure) else None
