"""The chat's task list: the steps the model keeps with `update_todos`, the whole list each
time. A Toolset of its own, so a conversation that must not have it (a subagent's: the list
belongs to the chat the person sees) is simply built without it.

The tool needs no approval and changes nothing outside agent's memory (plan mode offers it):
a kept list is recorded in the session (`todos` events, restored on resume), shown to the
front ends that watch it, and is a section of the system prompt, so compaction never takes
it from the model. /new clears it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from agent.chat.history import Recorder
from agent.messages import Message, ToolResult
from agent.session.events import TodosEvent
from agent.session.todos import MAX_TEXT_CHARS, MAX_TODOS, STATUSES, TodoItem, parse_todos
from agent.text import plural
from agent.tools.base import Tool, ToolSpec

TOOL_NAME = "update_todos"
DESCRIPTION = (
    "Keep your list of steps for work that takes several steps (not for a simple question). "
    "Send the whole list each time: it replaces the one kept before. Each step has a short "
    "`text` and a `status`: pending, in_progress (the step you work on now: at most one) or "
    f"done. At most {MAX_TODOS} steps of at most {MAX_TEXT_CHARS} characters. Mark a step "
    "done as soon as it is, and the next in_progress. The person sees the list; an empty list "
    "clears it."
)
SECTION_FRAMING = (
    "Your task list: the steps you keep with update_todos, as you last sent them (your own "
    "notes on the work, not instructions from the person). Send the whole list again to "
    "change it."
)
_SECTION_CLOSE = re.compile(r"</(task_list)", re.IGNORECASE)

Watcher = Callable[[tuple[TodoItem, ...]], None]


class TodoList:
    """The list as last kept, the tool that changes it, and who is told when it does."""

    def __init__(self, recorder: Recorder | None = None) -> None:
        self.recorder = recorder
        self.items: tuple[TodoItem, ...] = ()
        self._watchers: list[Watcher] = []
        self._tools: list[Tool] = [UpdateTodos(self)]

    def tools(self) -> Sequence[Tool]:
        return self._tools

    def watch(self, watcher: Watcher) -> None:
        """Call `watcher` with the list each time the model's update is kept (a front end
        draws it); not on reset or restore, which the front end does itself."""
        self._watchers.append(watcher)

    def current(self) -> TodoItem | None:
        """The step in progress, if any."""
        return next((item for item in self.items if item.status == "in_progress"), None)

    def keep(self, items: tuple[TodoItem, ...]) -> None:
        """The model's new list: kept, recorded in the session, shown."""
        self.items = items
        if self.recorder is not None:
            self.recorder.record(TodosEvent(items))
        for watcher in self._watchers:
            watcher(items)

    def reset(self) -> None:
        """/new: no list (nothing to record: the next session file starts without one)."""
        self.items = ()

    def restore(self, items: tuple[TodoItem, ...]) -> None:
        """A resumed session's last list (already in its file)."""
        self.items = items

    def section(self, history: Sequence[Message] = ()) -> str:
        """The list as a system prompt section, framed as the model's own notes, whose text
        cannot close the frame early; "" when there is none, or while `history` still holds
        the call that kept it (the model reads it there: a system prompt that changed at
        each update would make every later request read the whole history uncached). Once
        compaction took that call away, the list is here, so the model never loses it."""
        if not self.items or _kept_in(history):
            return ""
        steps = "\n".join(f"[{item.status}] {item.text}" for item in self.items)
        body = _SECTION_CLOSE.sub(r"&lt;/\1", steps)
        return f"{SECTION_FRAMING}\n<task_list>\n{body}\n</task_list>"


def _kept_in(history: Sequence[Message]) -> bool:
    """Whether the history holds an update_todos call that was kept (not refused): then it
    holds the last one kept, since compaction takes away only older messages."""
    calls = {
        call.id
        for message in history
        if message.role == "assistant"
        for call in message.tool_calls
        if call.name == TOOL_NAME
    }
    return any(
        message.role == "tool"
        and message.tool_call_id in calls
        and not (message.content or "").startswith("Error")
        for message in history
    )


class UpdateTodos:
    """`update_todos`: the model's whole list, checked, then kept."""

    def __init__(self, todos: TodoList) -> None:
        self.todos = todos

    @property
    def spec(self) -> ToolSpec:
        step = {
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "the step, in a short sentence"},
                "status": {"type": "string", "enum": list(STATUSES)},
            },
            "required": ["text", "status"],
        }
        return ToolSpec(
            name=TOOL_NAME,
            description=DESCRIPTION,
            parameters={
                "type": "object",
                "properties": {"todos": {"type": "array", "items": step}},
                "required": ["todos"],
                "additionalProperties": False,
            },
            requires_approval=False,
            changes_nothing=True,  # only agent's memory and the session file change
            source="built-in",
        )

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            items = parse_todos(arguments.get("todos"))
        except ValueError as error:
            return ToolResult(f"{error}; nothing was changed", is_error=True)
        self.todos.keep(items)
        return ToolResult(kept_text(items))


def kept_text(items: tuple[TodoItem, ...]) -> str:
    """What the model is told: briefly, what was kept."""
    if not items:
        return "Task list cleared."
    counts = [
        f"{sum(item.status == status for item in items)} {status.replace('_', ' ')}"
        for status in ("done", "in_progress", "pending")
    ]
    return f"Task list kept: {plural(len(items), 'step')}: {', '.join(counts)}."
