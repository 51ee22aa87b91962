"""The events a session file records: one dataclass per kind, each with its JSON shape.

`to_json` gives exactly the fields (and their order) the file has always held, so files
written before these classes existed load unchanged. `from_json` checks every field's type
and raises ValueError for a malformed event; readers turn that into a "skipped" note.
A kind this version does not know comes back as UnknownEvent, so nothing read is dropped.
The writer adds the stamps (`at`, and `n` for messages); `Recorded` reads them back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from agent.messages import Message, Part, ToolCall, Usage, part_from_json
from agent.session.todos import TodoItem, parse_todos
from agent.skills.activation import SkillSnapshot

Json = dict[str, Any]


def _field(data: Json, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
    """`data[key]` when it has the expected type; `default` when absent or null."""
    value = data.get(key)
    if value is None:
        if default is None and not _allows_none(kind):
            raise ValueError(f"{key!r} is missing")
        return default
    # bool is an int to Python, never to a session file.
    if isinstance(value, bool) and bool not in _kinds(kind):
        raise ValueError(f"{key!r} must be {_names(kind)}, not a boolean")
    if not isinstance(value, kind):
        raise ValueError(f"{key!r} must be {_names(kind)}, not {type(value).__name__}")
    return value


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _allows_none(kind: type | tuple[type, ...]) -> bool:
    return type(None) in _kinds(kind)


def _names(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in _kinds(kind) if k is not type(None))


_OPTIONAL_STR = (str, type(None))


def _parts_json(parts: tuple[Part, ...]) -> Json:
    """The "parts" field, present only when there are parts (older files have none)."""
    return {"parts": [part.to_json() for part in parts]} if parts else {}


def _parts(data: Json) -> tuple[Part, ...]:
    return tuple(part_from_json(part) for part in _field(data, "parts", list, []))


@dataclass(frozen=True)
class UserEvent:
    """A message the person typed, with what they attached (resources, a prompt's parts)."""

    content: str
    parts: tuple[Part, ...] = ()
    kind: ClassVar[str] = "user"

    def to_json(self) -> Json:
        return {"type": self.kind, "content": self.content, **_parts_json(self.parts)}

    @classmethod
    def from_json(cls, data: Json) -> UserEvent:
        return cls(_field(data, "content", str, ""), _parts(data))

    def message(self) -> Message:
        return Message("user", self.content, parts=self.parts)


@dataclass(frozen=True)
class AssistantEvent:
    """A model reply: its text (None when it only called tools) and its tool calls."""

    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    kind: ClassVar[str] = "assistant"

    def to_json(self) -> Json:
        data: Json = {"type": self.kind, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls
            ]
        return data

    @classmethod
    def from_json(cls, data: Json) -> AssistantEvent:
        calls = _field(data, "tool_calls", list, [])
        return cls(_field(data, "content", _OPTIONAL_STR), tuple(_tool_call(c) for c in calls))

    def message(self) -> Message:
        # An empty arguments text is sent on as "{}": providers reject "".
        calls = tuple(ToolCall(c.id, c.name, c.arguments or "{}") for c in self.tool_calls)
        return Message("assistant", self.content, calls)


def _tool_call(data: object) -> ToolCall:
    if not isinstance(data, dict):
        raise ValueError("a tool call must be an object")
    return ToolCall(
        _field(data, "id", str), _field(data, "name", str), _field(data, "arguments", str, "{}")
    )


@dataclass(frozen=True)
class ToolResultEvent:
    """A tool call's result as the model read it."""

    tool_call_id: str
    content: str
    parts: tuple[Part, ...] = ()  # its images
    kind: ClassVar[str] = "tool_result"

    def to_json(self) -> Json:
        return {
            "type": self.kind,
            "tool_call_id": self.tool_call_id,
            "content": self.content,
            **_parts_json(self.parts),
        }

    @classmethod
    def from_json(cls, data: Json) -> ToolResultEvent:
        return cls(
            _field(data, "tool_call_id", str), _field(data, "content", str, ""), _parts(data)
        )

    def message(self) -> Message:
        return Message("tool", self.content, tool_call_id=self.tool_call_id, parts=self.parts)


@dataclass(frozen=True)
class ApprovalEvent:
    """The person's answer to one tool call."""

    tool_call_id: str
    tool: str
    approved: bool
    reason: str | None = None
    kind: ClassVar[str] = "approval"

    def to_json(self) -> Json:
        return {
            "type": self.kind,
            "tool_call_id": self.tool_call_id,
            "tool": self.tool,
            "approved": self.approved,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, data: Json) -> ApprovalEvent:
        return cls(
            _field(data, "tool_call_id", str, ""),
            _field(data, "tool", str, ""),
            _field(data, "approved", bool, False),
            _field(data, "reason", _OPTIONAL_STR),
        )


@dataclass(frozen=True)
class UsageEvent:
    """What one model request cost."""

    usage: Usage
    kind: ClassVar[str] = "usage"

    def to_json(self) -> Json:
        return {"type": self.kind, **self.usage.to_json()}

    @classmethod
    def from_json(cls, data: Json) -> UsageEvent:
        cost = _field(data, "cost_usd", (int, float, type(None)))
        return cls(
            Usage(
                _field(data, "prompt_tokens", int, 0),
                _field(data, "completion_tokens", int, 0),
                None if cost is None else float(cost),
            )
        )


@dataclass(frozen=True)
class SkillActivationEvent:
    """A skill's instructions as the model saw them, frozen at activation."""

    snapshot: SkillSnapshot
    kind: ClassVar[str] = "skill_activation"

    def to_json(self) -> Json:
        return {"type": self.kind, "snapshot": self.snapshot.to_json()}

    @classmethod
    def from_json(cls, data: Json) -> SkillActivationEvent:
        snapshot = _field(data, "snapshot", dict)
        for key in ("name", "scope", "path", "body_sha256", "body"):
            _field(snapshot, key, str)
        return cls(SkillSnapshot.from_json(snapshot))


@dataclass(frozen=True)
class CompactionEvent:
    """Session memory replacing the messages numbered up to `through`."""

    summary: str
    through: int | None
    kind: ClassVar[str] = "compaction"

    def to_json(self) -> Json:
        return {"type": self.kind, "summary": self.summary, "through": self.through}

    @classmethod
    def from_json(cls, data: Json) -> CompactionEvent:
        return cls(_field(data, "summary", str, ""), _field(data, "through", (int, type(None))))


@dataclass(frozen=True)
class ModelChangeEvent:
    """The rest of the session uses another model."""

    previous: str | None
    to: str
    kind: ClassVar[str] = "model_change"

    def to_json(self) -> Json:
        return {"type": self.kind, "from": self.previous, "to": self.to}

    @classmethod
    def from_json(cls, data: Json) -> ModelChangeEvent:
        return cls(_field(data, "from", _OPTIONAL_STR), _field(data, "to", str))


@dataclass(frozen=True)
class ToolsFoundEvent:
    """Deferred tools a search returned: offered in every later request of the session."""

    names: tuple[str, ...]
    kind: ClassVar[str] = "tools_found"

    def to_json(self) -> Json:
        return {"type": self.kind, "names": list(self.names)}

    @classmethod
    def from_json(cls, data: Json) -> ToolsFoundEvent:
        names = _field(data, "names", list)
        if not all(isinstance(name, str) for name in names):
            raise ValueError("'names' must be a list of tool names")
        return cls(tuple(names))


@dataclass(frozen=True)
class FileChangeEvent:
    """A change write_file or edit_file made, numbered in the session: the file's content
    before (None: there was no file) and after, by SHA-256; the contents are kept in the
    session's blob folder (agent.session.blobs), so /undo works after a resume."""

    number: int
    path: str  # relative to the session's project
    tool: str
    action: str  # "created", "overwrote" or "edited"
    before: str | None
    after: str
    # How many of the path's deepest folders the write made: /undo takes them away again when
    # empty (only folders on the path, below the project: a forged count reaches no other).
    folders_made: int = 0
    kind: ClassVar[str] = "file_change"

    def to_json(self) -> Json:
        data: Json = {
            "type": self.kind,
            "number": self.number,
            "path": self.path,
            "tool": self.tool,
            "action": self.action,
            "before": self.before,
            "after": self.after,
        }
        if self.folders_made:
            data["folders_made"] = self.folders_made
        return data

    @classmethod
    def from_json(cls, data: Json) -> FileChangeEvent:
        return cls(
            _field(data, "number", int),
            _field(data, "path", str),
            _field(data, "tool", str, ""),
            _field(data, "action", str, ""),
            _field(data, "before", _OPTIONAL_STR),
            _field(data, "after", str),
            max(0, _field(data, "folders_made", int, 0)),
        )


@dataclass(frozen=True)
class UndoEvent:
    """The person's /undo of one file change, by its number."""

    number: int
    path: str
    kind: ClassVar[str] = "undo"

    def to_json(self) -> Json:
        return {"type": self.kind, "number": self.number, "path": self.path}

    @classmethod
    def from_json(cls, data: Json) -> UndoEvent:
        return cls(_field(data, "number", int), _field(data, "path", str, ""))


@dataclass(frozen=True)
class SubagentStartEvent:
    """A subagent began: its number in the session (its id), who it is (`explore #2`), the
    task it was given, its model, and the subagent that started it (None: the chat); `call_id`
    is kept for the tool call it answers, which this version does not record. Its own events
    follow as SubagentEvents."""

    agent: int
    label: str
    agent_kind: str
    task: str
    model: str
    parent: int | None = None
    call_id: str = ""
    kind: ClassVar[str] = "subagent_start"

    def to_json(self) -> Json:
        return {
            "type": self.kind,
            "agent": self.agent,
            "label": self.label,
            "agent_kind": self.agent_kind,
            "task": self.task,
            "model": self.model,
            "parent": self.parent,
            "call_id": self.call_id,
        }

    @classmethod
    def from_json(cls, data: Json) -> SubagentStartEvent:
        return cls(
            _field(data, "agent", int),
            _field(data, "label", str),
            _field(data, "agent_kind", str, ""),
            _field(data, "task", str, ""),
            _field(data, "model", str, ""),
            _field(data, "parent", (int, type(None))),
            _field(data, "call_id", str, ""),
        )


@dataclass(frozen=True)
class SubagentEvent:
    """One event of a subagent's own conversation (its messages, approvals, usage), kept
    under its id: never part of the chat's history, which receives only its answer."""

    agent: int
    event: SessionEvent
    kind: ClassVar[str] = "subagent"

    def to_json(self) -> Json:
        return {"type": self.kind, "agent": self.agent, "event": self.event.to_json()}

    @classmethod
    def from_json(cls, data: Json) -> SubagentEvent:
        inner = _field(data, "event", dict)
        if inner.get("type") in _WRAPPERS:  # one level: a nested subagent has its own id
            raise ValueError("a subagent event cannot hold another")
        return cls(_field(data, "agent", int), event_from_json(inner))


@dataclass(frozen=True)
class SubagentEndEvent:
    """A subagent ended: how (answered, stopped, failed, round_limit, interrupted), the answer
    its parent received, and what its requests cost."""

    agent: int
    status: str
    answer: str
    usage: Usage
    kind: ClassVar[str] = "subagent_end"

    def to_json(self) -> Json:
        return {
            "type": self.kind,
            "agent": self.agent,
            "status": self.status,
            "answer": self.answer,
            **self.usage.to_json(),
        }

    @classmethod
    def from_json(cls, data: Json) -> SubagentEndEvent:
        cost = _field(data, "cost_usd", (int, float, type(None)))
        usage = Usage(
            _field(data, "prompt_tokens", int, 0),
            _field(data, "completion_tokens", int, 0),
            None if cost is None else float(cost),
        )
        return cls(_field(data, "agent", int), _field(data, "status", str, ""),
                   _field(data, "answer", str, ""), usage)  # fmt: skip


@dataclass(frozen=True)
class TodosEvent:
    """The model's task list as update_todos kept it: the whole list, each time (the last
    one is the list a resumed chat continues with)."""

    items: tuple[TodoItem, ...]
    kind: ClassVar[str] = "todos"

    def to_json(self) -> Json:
        return {"type": self.kind, "todos": [item.to_json() for item in self.items]}

    @classmethod
    def from_json(cls, data: Json) -> TodosEvent:
        # Held to the tool's own check: a file edited by hand cannot restore a list the
        # model could not have kept (thousands of steps, two current ones).
        return cls(parse_todos(_field(data, "todos", list)))


@dataclass(frozen=True)
class PlanModeEvent:
    """The chat's mode from here on: plan mode on or off, and whether the person allowed MCP
    tools in it (`/plan mcp`); resume restores the last one."""

    on: bool
    mcp: bool = False
    kind: ClassVar[str] = "plan_mode"

    def to_json(self) -> Json:
        return {"type": self.kind, "on": self.on, "mcp": self.mcp}

    @classmethod
    def from_json(cls, data: Json) -> PlanModeEvent:
        return cls(_field(data, "on", bool), _field(data, "mcp", bool, False))


@dataclass(frozen=True)
class UnknownEvent:
    """An event of a kind this version does not know (from a newer one, say), kept as saved
    (without its time stamp)."""

    fields: Json

    @property
    def kind(self) -> object:
        return self.fields.get("type")

    def to_json(self) -> Json:
        return dict(self.fields)


MessageEvent = UserEvent | AssistantEvent | ToolResultEvent
SessionEvent = (
    UserEvent
    | AssistantEvent
    | ToolResultEvent
    | ApprovalEvent
    | UsageEvent
    | SkillActivationEvent
    | CompactionEvent
    | ModelChangeEvent
    | ToolsFoundEvent
    | FileChangeEvent
    | UndoEvent
    | SubagentStartEvent
    | SubagentEvent
    | SubagentEndEvent
    | TodosEvent
    | PlanModeEvent
    | UnknownEvent
)
MESSAGE_EVENTS = (UserEvent, AssistantEvent, ToolResultEvent)

_KINDS: dict[str, Any] = {
    cls.kind: cls
    for cls in (
        UserEvent,
        AssistantEvent,
        ToolResultEvent,
        ApprovalEvent,
        UsageEvent,
        SkillActivationEvent,
        CompactionEvent,
        ModelChangeEvent,
        ToolsFoundEvent,
        FileChangeEvent,
        UndoEvent,
        SubagentStartEvent,
        SubagentEvent,
        SubagentEndEvent,
        TodosEvent,
        PlanModeEvent,
    )
}
_WRAPPERS = {SubagentStartEvent.kind, SubagentEvent.kind, SubagentEndEvent.kind}


def event_from_json(data: Json) -> SessionEvent:
    """The typed event a file line holds; ValueError says what is malformed."""
    kind = data.get("type")
    cls = _KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        return UnknownEvent({k: v for k, v in data.items() if k != "at"})
    event: SessionEvent = cls.from_json(data)
    return event


def message_event(message: Message) -> MessageEvent:
    """A history message as a session event."""
    if message.role == "user":
        return UserEvent(message.content or "", message.parts)
    if message.role == "assistant":
        return AssistantEvent(message.content, message.tool_calls)
    if message.role == "tool" and message.tool_call_id is not None:
        return ToolResultEvent(message.tool_call_id, message.content or "", message.parts)
    raise ValueError(f"a {message.role!r} message is not recorded in a session")


@dataclass(frozen=True)
class Recorded:
    """An event read back from a file with the writer's stamps: when, and a message's number."""

    event: SessionEvent
    at: str | None = None
    n: int | None = None

    @classmethod
    def from_json(cls, data: Json) -> Recorded:
        """ValueError when the event or a stamp is malformed."""
        return cls(event_from_json(data), _field(data, "at", _OPTIONAL_STR), _number(data))


def _number(data: Json) -> int | None:
    n: int | None = _field(data, "n", (int, type(None)))
    return n
