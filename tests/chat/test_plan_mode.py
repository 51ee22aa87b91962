"""Plan mode in the engine, with the scripted model (our model seam): a tool that plan mode
offers in a restricted form (`PlanModeTool`, the hook the subagents' `delegate` uses), a front
end without a person, and a review that breaks. The person's side is tested through the real
chat in tests/ui/test_plan_mode_pty.py and tests/security/test_plan_mode_attacks.py."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.conversation import Conversation
from agent.chat.events import Event
from agent.chat.plan_review import NO_PERSON, REVIEW_FAILED, PlanVerdict
from agent.messages import ToolCall, ToolResult
from agent.tools.base import PlanModeTool, Tool, ToolSpec
from tests.scripted_model import Reply, ScriptedModel

pytestmark = pytest.mark.anyio


@dataclass
class Asked:
    requests: list[ApprovalRequest] = field(default_factory=list)

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return Decision(True)


@dataclass
class Delegate:
    """Like the subagents' `delegate`: any kind normally, only `explore` in plan mode."""

    kinds: tuple[str, ...] = ("explore", "general")
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def spec(self) -> ToolSpec:
        parameters = {
            "type": "object",
            "properties": {"kind": {"type": "string", "enum": list(self.kinds)}},
            "required": ["kind"],
        }
        explore_only = self.kinds == ("explore",)
        return ToolSpec(
            "delegate", "Hand a task to a subagent.", parameters, requires_approval=False,
            source="built-in", changes_nothing=explore_only,
        )  # fmt: skip

    def in_plan_mode(self) -> Tool | None:
        return Delegate(("explore",), self.runs)

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        self.runs.append(arguments)
        return ToolResult("subagent answer")


@dataclass
class Changer:
    """A tool that changes something and does not vouch otherwise."""

    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec("change_it", "Changes.", {"type": "object"}, False, "built-in")

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        self.runs.append(arguments)
        return ToolResult("changed")


class Tools:
    def __init__(self, *tools: Tool) -> None:
        self._tools = tools

    def tools(self) -> list[Tool]:
        return list(self._tools)


class BrokenReviewer:
    async def review(self, plan: str) -> PlanVerdict:
        raise RuntimeError("the terminal went away")


def call(call_id: str, name: str, **arguments: Any) -> ToolCall:
    return ToolCall(call_id, name, json.dumps(arguments))


def names(tools: list[dict[str, Any]]) -> list[str]:
    return [tool["function"]["name"] for tool in tools]


def results(model: ScriptedModel) -> list[str]:
    return [str(m["content"]) for m in model.sent() if m["role"] == "tool"]


async def turn(conversation: Conversation, text: str) -> list[Event]:
    return [event async for event in conversation.turn(text)]


async def test_a_plan_mode_tool_is_offered_restricted_and_a_tool_that_changes_is_refused() -> None:
    delegate, changer = Delegate(), Changer()
    model = ScriptedModel(
        [
            Reply(calls=[call("d1", "delegate", kind="explore"), call("c1", "change_it")]),
            Reply(calls=[call("d2", "delegate", kind="general")]),
            Reply("done"),
        ]
    )
    asked = Asked()
    conversation = Conversation(model, [Tools(delegate, changer)], asked, lambda: "s")
    assert isinstance(delegate, PlanModeTool)
    conversation.plan.enter()

    await turn(conversation, "plan")

    offered = model.requests[0].tools
    assert names(offered) == ["delegate", "present_plan"]
    assert offered[0]["function"]["parameters"]["properties"]["kind"]["enum"] == ["explore"]
    first = [str(m["content"]) for m in model.sent(1) if m["role"] == "tool"]
    assert first[0] == "subagent answer"
    assert first[1].startswith("Error: not run: the chat is in plan mode, where 'change_it'")
    # general is no kind of the restricted form
    assert results(model)[-1].startswith("Error: invalid arguments for delegate")
    assert delegate.runs == [{"kind": "explore"}]
    assert changer.runs == [] and asked.requests == []


async def test_without_a_person_or_when_the_review_breaks_the_chat_stays_in_plan_mode() -> None:
    plan = call("p1", "present_plan", plan="# Plan")
    for reviewer, said in ((None, NO_PERSON), (BrokenReviewer(), REVIEW_FAILED)):
        model = ScriptedModel([Reply(calls=[plan]), Reply("ok")])
        conversation = Conversation(
            model, [Tools(Changer())], Asked(), lambda: "s", plan_reviewer=reviewer
        )
        conversation.plan.enter()

        await turn(conversation, "plan")

        assert results(model) == [f"Error: {said}"]
        assert conversation.plan.on
        assert names(model.requests[1].tools) == ["present_plan"]


async def test_present_plan_is_unknown_outside_plan_mode() -> None:
    model = ScriptedModel([Reply(calls=[call("p1", "present_plan", plan="x")]), Reply("ok")])
    conversation = Conversation(model, [Tools(Changer())], Asked(), lambda: "s")

    await turn(conversation, "hello")

    assert names(model.requests[0].tools) == ["change_it"]
    assert results(model)[0].startswith("Error: there is no tool named 'present_plan'")
