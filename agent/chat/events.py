"""What a turn yields to its front end: streamed text, tool calls, approvals, usage, the end."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent.chat.approval import ApprovalRequest, Decision
from agent.messages import ToolCall, ToolResult, Usage
from agent.tools.base import ToolSpec


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    call: ToolCall
    spec: ToolSpec | None  # None: the model named a tool that does not exist
    # The person was asked about it: an approval dialog has shown the call, its arguments
    # included, so a front end need not show them again.
    asked: bool = False


@dataclass(frozen=True)
class ApprovalAsked:
    request: ApprovalRequest


@dataclass(frozen=True)
class ApprovalAnswered:
    call: ToolCall
    decision: Decision


@dataclass(frozen=True)
class ToolFinished:
    call: ToolCall
    result: ToolResult


@dataclass(frozen=True)
class UsageReported:
    request: Usage
    session: Usage


@dataclass(frozen=True)
class Notice:
    text: str


@dataclass(frozen=True)
class TurnFailed:
    message: str


@dataclass(frozen=True)
class TurnEnded:
    reason: Literal["answered", "round_limit", "error", "stopped"]


Event = (
    TextDelta
    | ToolCallStarted
    | ApprovalAsked
    | ApprovalAnswered
    | ToolFinished
    | UsageReported
    | Notice
    | TurnFailed
    | TurnEnded
)
