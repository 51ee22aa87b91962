"""A chat built by build_chat as the terminal builds it, its MCP servers started by its host,
its model LiteLLMModel over HTTP to the scripted fake server: for the tests of deferred
tools and search_tools (tests/chat/test_tool_search_chat.py, tests/security/)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.events import TurnFailed

WORK_SERVERS = ("github", "gitlab", "slack", "atlassian", "notion")  # 165 tools: over 10%


@dataclass
class Approvals:
    """The person approving every call, remembering which tools asked."""

    asked: list[str] = field(default_factory=list)

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request.call.name)
        return Decision(True)


@dataclass
class Talked:
    """What a scripted chat left: failures and reports, the session file, approvals."""

    failures: list[str]
    session: Path | None
    approvals: Approvals


async def converse(
    project: Path, base_url: str, messages: Sequence[str], resume: Path | None = None
) -> Talked:
    """Send `messages` through a chat built by build_chat (resuming `resume` first)."""
    from agent.chat.build import FrontEnd, build_chat
    from agent.mcp.forms.elicitation import DeclineElicitation
    from agent.mcp.trust.question import DenyTrust

    reports: list[str] = []
    approvals = Approvals()
    front = FrontEnd(
        interactive=False,
        approver=approvals,
        trust=DenyTrust,
        elicitation=DeclineElicitation,
        report=reports.append,
    )
    chat = build_chat("openai/fake-model", base_url, project, front)
    if resume is not None:
        chat.resume(resume)
    failures: list[str] = []
    stop = anyio.Event()
    session: Path | None = None
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
        writer = chat.recorder.writer
        session = writer.path if writer is not None else None
    finally:
        chat.recorder.close()
    problems = failures + [line for line in reports if " ready (" not in line]
    return Talked(problems, session, approvals)


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of a request's tools, in order."""
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def tool_results(body: dict[str, Any]) -> list[str]:
    """The contents of a request's tool messages, in order."""
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def search(call_id: str, query: str, limit: int | None = None) -> dict[str, Any]:
    """A scripted answer calling search_tools."""
    arguments: dict[str, Any] = {"query": query}
    if limit is not None:
        arguments["limit"] = limit
    return {"tool_calls": [{"id": call_id, "name": "search_tools", "arguments": arguments}]}


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A scripted answer calling one tool."""
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}
