"""A subagent is never a way around the person (issue 41). Driven through the chat as
build_chat wires it (the real model client over HTTP to the scripted server, real files), with
the person at our Approver seam:

- two subagents running at once ask one question at a time, each naming who asks, and only a
  yes runs a call (a subagent has no approver of its own);
- an explore subagent is read-only by mechanism: a changing tool, another subagent, or an MCP
  tool of a server its task did not name is refused when the model calls it anyway, before
  anyone is asked, and nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.build import FrontEnd, build_chat
from agent.chat.subagents import MAX_RUNNING
from agent.mcp.forms.elicitation import DeclineElicitation
from agent.mcp.trust.question import DenyTrust
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.anyio
OVERLAP_WAIT = 2.0  # how long a question waits to see whether another is asked meanwhile


@dataclass
class Person:
    """Answers y to calls whose arguments hold `yes_to`, n to the rest; notes who asked and
    whether a question was asked while another was open."""

    yes_to: str = "\u0000"
    asked: list[ApprovalRequest] = field(default_factory=list)
    open_now: int = 0
    most_open: int = 0

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        self.open_now += 1
        self.most_open = max(self.most_open, self.open_now)
        try:
            # Were questions not queued, the other subagent's would arrive during this wait.
            with anyio.move_on_after(OVERLAP_WAIT):
                while self.open_now < 2:
                    await anyio.sleep(0.01)
            return Decision(self.yes_to in request.call.arguments)
        finally:
            self.open_now -= 1


def delegate(call_id: str, kind: str, task: str) -> dict[str, Any]:
    return {"id": call_id, "name": "delegate", "arguments": {"kind": kind, "task": task}}


def first_user(body: dict[str, Any]) -> str:
    return str(next(m["content"] for m in body["messages"] if m["role"] == "user"))


async def take_turn(project: Path, turns: list[dict[str, Any]], person: Person) -> FakeOpenAI:
    front = FrontEnd(False, person, DenyTrust, DeclineElicitation, lambda line: None)
    with FakeOpenAI(turns) as fake:
        chat = build_chat("openai/fake-model", fake.base_url, project, front)
        try:
            with anyio.fail_after(120):
                async for _event in chat.conversation.turn("PARENT: go"):
                    pass
        finally:
            chat.recorder.close()
    return fake


async def test_subagents_at_once_ask_one_question_at_a_time_naming_who_asks(
    tmp_path: Path, agent_home: Path
) -> None:
    def write(name: str) -> dict[str, Any]:
        arguments = {"path": f"{name}.txt", "content": name}
        return {"id": f"w-{name}", "name": "write_file", "arguments": arguments}

    turns = [
        {"when": "PARENT", "tool_calls": [delegate("d1", "general", "SUB-A: write a"),
                                          delegate("d2", "general", "SUB-B: write b")]},
        {"when": "SUB-A", "wait_for": "SUB-B", "tool_calls": [write("a")]},
        {"when": "SUB-B", "wait_for": "SUB-A", "tool_calls": [write("b")]},
        {"when": "SUB-A", "text": "a done"},
        {"when": "SUB-B", "text": "b done"},
        {"when": "PARENT", "text": "both done"},
    ]  # fmt: skip
    person = Person(yes_to='"a.txt"')
    await take_turn(tmp_path, turns, person)

    assert person.most_open == 1
    assert sorted(request.asker or "" for request in person.asked) == ["general #1", "general #2"]
    assert (tmp_path / "a.txt").read_text() == "a"
    assert not (tmp_path / "b.txt").exists()


async def test_an_explore_subagent_cannot_change_anything_whatever_its_model_calls(
    tmp_path: Path, agent_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "keep.txt").write_text("kept\n")
    named_anyway = [
        ("write_file", {"path": "new.txt", "content": "x"}),
        ("edit_file", {"path": "keep.txt", "old_text": "kept", "new_text": "gone"}),
        ("run_command", {"command": ["touch", "ran.txt"]}),
        ("delegate", {"kind": "general", "task": "SUB-DEEPER: write it"}),
        ("mcp__fx__echo", {"text": "a server the task did not name"}),
    ]
    calls = [
        {"id": f"c{n}", "name": name, "arguments": arguments}
        for n, (name, arguments) in enumerate(named_anyway)
    ]
    turns = [
        {"when": "PARENT", "tool_calls": [delegate("d1", "explore", "SUB-X: look around")]},
        {"when": "SUB-X", "tool_calls": calls},
        {"when": "SUB-X", "text": "nothing I could change"},
        {"when": "PARENT", "text": "fine"},
    ]
    person = Person(yes_to="")  # would say yes to anything it were asked
    fake = await take_turn(project, turns, person)

    assert person.asked == []
    assert sorted(p.name for p in project.iterdir()) == ["keep.txt"]
    assert (project / "keep.txt").read_text() == "kept\n"
    sub = [r["body"] for r in fake.requests if first_user(r["body"]).startswith("SUB-X")]
    results = [m["content"] for m in sub[-1]["messages"] if m["role"] == "tool"]
    assert len(results) == len(named_anyway)
    for (name, _), result in zip(named_anyway, results, strict=True):
        assert f"there is no tool named {name!r}" in result
    assert not [r for r in fake.requests if first_user(r["body"]).startswith("SUB-DEEPER")]


async def test_a_skill_a_subagent_activates_reaches_its_prompt_never_the_chats(
    tmp_path: Path, agent_home: Path
) -> None:
    activate = {"id": "a1", "name": "activate_skill", "arguments": {"name": "skill-author"}}
    turns = [
        {"when": "PARENT", "tool_calls": [delegate("d1", "explore", "SUB-S: use the skill")]},
        {"when": "SUB-S", "tool_calls": [activate]},
        {"when": "SUB-S", "text": "used it"},
        {"when": "PARENT", "text": "fine"},
    ]
    fake = await take_turn(tmp_path, turns, Person())

    sub = [r["body"] for r in fake.requests if first_user(r["body"]).startswith("SUB-S")]
    parent = [r["body"] for r in fake.requests if first_user(r["body"]).startswith("PARENT")]
    body_line = "# Authoring an Agent Skill"
    assert body_line in sub[-1]["messages"][0]["content"]  # its own prompt has it
    assert body_line not in parent[-1]["messages"][0]["content"]  # the chat's never does
    assert body_line not in str(parent[-1]["messages"])


async def test_one_answer_cannot_start_more_subagents_at_once_than_the_bound(
    tmp_path: Path, agent_home: Path
) -> None:
    count = MAX_RUNNING + 3
    calls = [delegate(f"d{n}", "explore", f"SUB-{n:02}: look") for n in range(count)]
    turns: list[dict[str, Any]] = [{"when": "PARENT", "tool_calls": calls}]
    turns += [{"when": f"SUB-{n:02}", "text": f"answer {n}"} for n in range(count)]
    turns += [{"when": "PARENT", "text": "fine"}]
    fake = await take_turn(tmp_path, turns, Person())

    started = {first_user(r["body"])[:6] for r in fake.requests}
    assert len(started - {"PARENT"}) == MAX_RUNNING
    results = [m["content"] for m in fake.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert sum("subagents are running already" in text for text in results) == 3
