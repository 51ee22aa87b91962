"""A chat wired by build_chat as the terminal wires it, driven turn by turn in this process:
the chat's McpHost with the saved servers, LiteLLMModel over real HTTP to the scripted fake
OpenAI-compatible server, every MCP call approved (ApproveAll, the Approver seam)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.events import ToolFinished, TurnFailed
from agent.chat.state import ChatSession


class ApproveAll:
    """The person approving every call."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(True)


@dataclass
class ChatRun:
    """What one chat said and did: its reports (notices), failures and tool results."""

    reports: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    results: list[str] = field(default_factory=list)


async def chat(
    project: Path,
    base_url: str,
    messages: Sequence[str],
    between: Callable[[ChatSession, int], Awaitable[None]] | None = None,
) -> ChatRun:
    """Send `messages` through one chat (its servers started first, as a request waits for
    them); `between(chat, index)` runs before each message after the first (awaited)."""
    from agent.chat.build import FrontEnd, build_chat
    from agent.mcp.forms.elicitation import DeclineElicitation
    from agent.mcp.trust.question import DenyTrust

    run = ChatRun()
    front = FrontEnd(
        interactive=False,
        approver=ApproveAll(),
        trust=DenyTrust,
        elicitation=DeclineElicitation,
        report=run.reports.append,
    )
    session = build_chat("openai/fake-model", base_url, project, front)
    stop = anyio.Event()
    try:
        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(session.host.serve, stop)
                await session.host.wait_for_servers(lambda names: None)
                for index, text in enumerate(messages):
                    if index and between is not None:
                        await between(session, index)
                    async with session.host.request_scope():
                        async for event in session.conversation.turn(text):
                            if isinstance(event, TurnFailed):
                                run.failures.append(event.message)
                            elif isinstance(event, ToolFinished):
                                run.results.append(event.result.text)
                stop.set()
    finally:
        session.recorder.close()  # the app leaves that to its exit; a test must not
    return run
