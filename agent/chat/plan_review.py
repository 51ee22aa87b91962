"""`present_plan`: the model hands its plan to the person, who carries it out, keeps planning
with a comment, or stops the turn.

The engine asks through `PlanReviewer`, which each front end implements (the chat's dialog in
agent/ui/dialogs/plan_review.py); a front end without a person declines (`NoPersonReviews`),
and the chat stays in plan mode. Whatever goes wrong while asking keeps plan mode too: only
the person's "carry it out" leaves it, and then every change still asks as usual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from agent.chat.plan_mode import PRESENT_PLAN, PlanMode
from agent.messages import ToolResult
from agent.tools.base import ToolSpec

Choice = Literal["carry_out", "keep_planning", "stop", "declined"]


@dataclass(frozen=True)
class PlanVerdict:
    """The person's answer to a plan; `comment`: what they typed for the model."""

    choice: Choice
    comment: str = ""


class PlanReviewer(Protocol):
    """Shows a plan (the model's Markdown) to the person and takes their choice."""

    async def review(self, plan: str) -> PlanVerdict: ...


class NoPersonReviews:
    """Nobody is at a terminal to review a plan (`agent -p` resuming a session in plan mode)."""

    async def review(self, plan: str) -> PlanVerdict:
        return PlanVerdict("declined")


ACCEPTED = (
    "The person accepted the plan. Plan mode is off: carry out the plan now. Every file "
    "change, command and MCP call still asks the person before it runs."
)
STOPPED = "The person stopped the turn at the plan. The chat is still in plan mode."
NO_PERSON = (
    "Nobody is at a terminal to review the plan; the chat stays in plan mode. Give the plan "
    "as your answer instead."
)
NOT_IN_PLAN_MODE = "not shown: the chat is not in plan mode (a plan was accepted already)"
REVIEW_FAILED = "the plan could not be shown to the person; the chat stays in plan mode"


def keep_planning(comment: str) -> str:
    said = f" Their comment: {comment}" if comment.strip() else " They gave no comment."
    return f"The person wants to keep planning; the chat stays in plan mode.{said}"


class PresentPlan:
    """The tool plan mode offers beside the read-only ones: the person reviews the plan.

    `stop_requested` tells the conversation, after the call, that the person stopped the turn
    (`take_stop`)."""

    def __init__(self, mode: PlanMode, reviewer: PlanReviewer) -> None:
        self.mode = mode
        self.reviewer = reviewer
        self._stop = False
        self.spec = ToolSpec(
            name=PRESENT_PLAN,
            description=(
                "Present your plan to the person for review, as Markdown (plan mode only). "
                "They choose to carry it out (plan mode ends and you go on with the "
                "changes, each still asked), to keep planning (their comment comes back as "
                "this tool's result), or to stop."
            ),
            parameters={
                "type": "object",
                "properties": {"plan": {"type": "string", "description": "The plan, in Markdown."}},
                "required": ["plan"],
                "additionalProperties": False,
            },
            requires_approval=False,
            source="built-in",
        )

    def take_stop(self) -> bool:
        """Whether the last review stopped the turn (asked once per call)."""
        stop, self._stop = self._stop, False
        return stop

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        if not self.mode.on:
            return ToolResult(NOT_IN_PLAN_MODE, is_error=True)
        try:
            verdict = await self.reviewer.review(str(arguments["plan"]))
        except Exception:  # the dialog broke: nothing was decided, so plan mode stays
            return ToolResult(REVIEW_FAILED, is_error=True)
        if verdict.choice == "carry_out":
            self.mode.leave()
            self.mode.settle()  # mid-turn: the file already exists
            return ToolResult(ACCEPTED)
        if verdict.choice == "keep_planning":
            return ToolResult(keep_planning(verdict.comment.strip()))
        if verdict.choice == "stop":
            self._stop = True
            return ToolResult(STOPPED, is_error=True)
        return ToolResult(NO_PERSON, is_error=True)
