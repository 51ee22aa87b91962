"""What a resumed session shows of itself: its turns read back from the file's events.

Every turn the file holds, compacted or not (the screen shows what happened; the model's
history is rebuilt apart, agent/session/history.py): the person's message and what they
attached, then the answer's text and tool calls in order, each call with its result's size and
whether the person declined it. Nothing here is sanitized: it is the file's text, and the
front end that draws it sanitizes everything (agent/ui/replay.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from agent.messages import ImagePart, Part, TextPart
from agent.session.events import (
    ApprovalEvent,
    AssistantEvent,
    Recorded,
    ToolResultEvent,
    UserEvent,
)
from agent.text import plural

# How a result that failed begins (the loop's and the tools' convention, agent/chat/prompt.py).
ERROR_PREFIX = "Error:"
# The opening line of an attachment block (agent/chat/attachments.py): its JSON-quoted labels.
_ATTACHMENT_OPENING = re.compile(r'<attachment boundary="[0-9a-f]+" (?P<labels>[^\n]*)')
# `file=` labels an @path mention's block (agent/chat/file_attachments.py).
_LABEL = re.compile(r'(?P<key>server|uri|path|file)=(?P<value>"(?:[^"\\]|\\.)*")')


@dataclass
class ReplayedCall:
    """One tool call of an answer, with what came of it."""

    name: str
    arguments: str
    result: str | None = None  # None: no result was recorded (interrupted)
    declined: bool = False
    reason: str | None = None  # the person's, when they declined with one

    @property
    def is_error(self) -> bool:
        return self.result is not None and self.result.startswith(ERROR_PREFIX)


@dataclass
class ReplayedTurn:
    """The person's message and everything the answer did, in order."""

    message: str
    attachments: list[str] = field(default_factory=list)
    steps: list[str | ReplayedCall] = field(default_factory=list)  # answer text, calls


def replayed_turns(events: list[dict[str, Any]]) -> list[ReplayedTurn]:
    """The session's turns from its saved events; an event that cannot be read is left out
    (resume notes it already), and nothing before the first message of the person is a turn."""
    turns: list[ReplayedTurn] = []
    calls: dict[str, ReplayedCall] = {}
    for data in events:
        try:
            event = Recorded.from_json(data).event
        except ValueError:
            continue
        if isinstance(event, UserEvent):
            turns.append(ReplayedTurn(event.content, attachment_names(event.parts)))
        elif not turns:
            continue
        elif isinstance(event, AssistantEvent):
            _add_answer(turns[-1], event, calls)
        elif isinstance(event, ToolResultEvent) and event.tool_call_id in calls:
            calls[event.tool_call_id].result = event.content
        elif isinstance(event, ApprovalEvent) and event.tool_call_id in calls:
            call = calls[event.tool_call_id]
            call.declined, call.reason = not event.approved, event.reason
    return turns


def _add_answer(turn: ReplayedTurn, event: AssistantEvent, calls: dict[str, ReplayedCall]) -> None:
    if event.content:
        turn.steps.append(event.content)
    for tool_call in event.tool_calls:
        call = ReplayedCall(tool_call.name, tool_call.arguments)
        calls[tool_call.id] = call
        turn.steps.append(call)


def attachment_names(parts: tuple[Part, ...]) -> list[str]:
    """What the person attached, by name: `@server:uri`, `@path`, or an image's type."""
    names: list[str] = []
    for part in parts:
        if isinstance(part, ImagePart):
            names.append(f"an image ({part.mime_type}{', ' + part.source if part.source else ''})")
        elif isinstance(part, TextPart):
            name = _attachment_name(part.text)
            if name not in names:  # a resource of several parts is one attachment
                names.append(name)
    return names


def _attachment_name(text: str) -> str:
    opening = _ATTACHMENT_OPENING.match(text)
    if opening is None:
        return f"text ({plural(len(text), 'character')})"
    labels: dict[str, str] = {}
    for label in _LABEL.finditer(opening["labels"]):
        try:
            value = json.loads(label["value"])
        except ValueError:
            continue
        if isinstance(value, str):
            labels.setdefault(label["key"], value)
    if "server" in labels and "uri" in labels:
        return f"@{labels['server']}:{labels['uri']}"
    path = labels.get("file", labels.get("path"))
    if path is not None:
        return f"@{path}"
    return "an attachment"
