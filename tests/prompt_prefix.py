"""A scripted conversation through the real chat engine, to measure how much of each request
repeats the previous request's prefix byte for byte (what a provider's prompt cache can
reuse). Shared by bench/prompt_prefix.py (20 turns, printed) and tests/test_prompt_prefix.py.

The chat is wired by build_chat as the terminal wires it: built-in tools, the skills (one
user skill, activated by the model in the first turn), and one trusted stdio MCP server with
50 tools, started by the chat's McpHost; the model is LiteLLMModel over HTTP to the scripted
fake OpenAI-compatible server. Every MCP call is approved (ApproveAll, the Approver seam).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.events import TurnFailed
from tests.fixtures.mcp_fixtures import save_trusted_stdio_server, server_command

MCP_TOOLS = 50
BASE_TOOLS = 16  # tools_server's own; --tools adds the rest
SKILL = "house-style"
SKILL_BODY = "Answer in the house style: short sentences, no jargon, one example each.\n"


class ApproveAll:
    """The person approving every call."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(True)


@dataclass(frozen=True)
class Places:
    """Where the scripted chat lives: the person's home (a user skill), the project."""

    home: Path
    agent_home: Path
    project: Path


async def prepare(root: Path, agent_home: Path) -> Places:
    """A home with one user skill, a project with a file, and the MCP server saved and its
    tools listed once (as `agent mcp add` does: every tool selected)."""
    home, project = root / "home", root / "project"  # HOME is `home` already: trust covers it
    skill = home / ".agents" / "skills" / SKILL
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {SKILL}\ndescription: How answers are written here.\n---\n{SKILL_BODY}"
    )
    project.mkdir()
    (project / "notes.md").write_text("The release is on Friday.\n")
    command = server_command("tools_server.py", "--tools", str(MCP_TOOLS - BASE_TOOLS))
    save_trusted_stdio_server(agent_home, "fx", command, os.environ, selected=None)
    from agent.mcp.runtime import McpRuntime
    from agent.mcp.store import McpStore
    from agent.settings import McpLimits

    limits = McpLimits(
        startup_timeout_seconds=60, tool_timeout_seconds=60, output_limit_chars=10**5
    )
    store = McpStore(agent_home / "mcp-servers.json")
    with anyio.fail_after(60):
        async with McpRuntime(store, limits, logs_dir=agent_home, project_dir=project) as runtime:
            await runtime.discover("fx")
    return Places(home, agent_home, project)


def script(turns: int) -> tuple[list[str], list[dict[str, Any]]]:
    """The person's messages and the model's answers for `turns` turns: the skill is activated
    in the first; MCP calls and file reads come now and then."""
    messages, answers = [], []
    for turn in range(1, turns + 1):
        messages.append(f"question number {turn}: what next?")
        if turn == 1:
            call = {"id": "t1", "name": "activate_skill", "arguments": {"name": SKILL}}
            answers.append({"tool_calls": [call]})
        elif turn % 3 == 0:
            call = {"id": f"t{turn}", "name": "mcp__fx__echo", "arguments": {"text": f"n{turn}"}}
            answers.append({"tool_calls": [call]})
        elif turn % 4 == 0:
            call = {"id": f"t{turn}", "name": "read_file", "arguments": {"path": "notes.md"}}
            answers.append({"tool_calls": [call]})
        answers.append({"text": f"Answer number {turn}, in the house style."})
    return messages, answers


async def converse(places: Places, base_url: str, messages: Sequence[str]) -> list[str]:
    """Send `messages` through a chat built by build_chat; returns the errors it reported."""
    from agent.chat.build import FrontEnd, build_chat
    from agent.mcp.forms.elicitation import DeclineElicitation
    from agent.mcp.trust.question import DenyTrust

    reports: list[str] = []
    front = FrontEnd(
        interactive=False,
        approver=ApproveAll(),
        trust=DenyTrust,
        elicitation=DeclineElicitation,
        report=reports.append,
    )
    chat = build_chat("openai/fake-model", base_url, places.project, front)
    failures: list[str] = []
    stop = anyio.Event()
    try:
        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(chat.host.serve, stop)
                await chat.host.wait_for_servers(lambda names: None)
                for text in messages:
                    async with chat.host.request_scope():
                        async for event in chat.conversation.turn(text):
                            if isinstance(event, TurnFailed):
                                failures.append(event.message)
                stop.set()
    finally:
        chat.recorder.close()  # the app leaves that to its exit; a test must not
    return failures + [line for line in reports if "ready" not in line]


def request_text(body: dict[str, Any]) -> str:
    """A request as a provider's cache sees it: the tools first, then the messages."""
    return json.dumps(body.get("tools", [])) + json.dumps(body["messages"])


def prefix_shares(bodies: Sequence[dict[str, Any]]) -> list[float | None]:
    """For each request, the share of it that repeats the previous request's beginning byte
    for byte (None for the first)."""
    shares: list[float | None] = [None]
    texts = [request_text(body).encode() for body in bodies]
    for before, now in itertools.pairwise(texts):
        shares.append(common_prefix_length(before, now) / len(now))
    return shares


def common_prefix_length(first: bytes, second: bytes) -> int:
    """How many bytes the two begin with in common (a bisection over slice comparisons)."""
    low, high = 0, min(len(first), len(second))
    while low < high:
        middle = (low + high + 1) // 2
        if first[:middle] == second[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
