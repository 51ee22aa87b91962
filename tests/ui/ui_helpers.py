"""Helpers for the chat UI tests: a stream that says it is a terminal, what a terminal would
show for some output, and a chat whose parts are real but whose model is never asked."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from agent.approval import DenyAll
from agent.chat_session import ChatSession
from agent.loop import Conversation
from agent.mcp.host import McpHost
from agent.messages import Completion
from agent.model import TextChunk
from agent.session.recorder import SessionRecorder
from agent.skills.model import Discovery, Skill
from agent.skills.tools import SkillSession
from agent.skills.trust import SkillTrustStore
from agent.ui.chat import ChatParts

MODEL = "openai/fake-model"


class TerminalText(io.StringIO):
    """A StringIO that says it is a terminal, as a pty would."""

    def isatty(self) -> bool:
        return True


def screen(output: str) -> list[str]:
    """The lines a terminal shows for `output`: a carriage return lets the line be overwritten
    (spaces included), as the spinner relies on. Trailing spaces are dropped."""
    lines: list[str] = []
    for raw in output.split("\n"):
        line: list[str] = []
        column = 0
        for char in raw:
            if char == "\r":
                column = 0
                continue
            if column < len(line):
                line[column] = char
            else:
                line.append(char)
            column += 1
        lines.append("".join(line).rstrip())
    return lines


class UnusedModel:
    """The chat's model in tests that never start a turn."""

    name = MODEL

    async def stream(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[TextChunk | Completion]:
        raise AssertionError("this test sends nothing to a model")
        yield  # pragma: no cover


def chat_parts(project: Path, skills: Sequence[Skill] = ()) -> ChatParts:
    """ChatParts as the chat builds them, with `skills` usable and an MCP host not yet up."""
    conversation = Conversation(UnusedModel(), [], DenyAll(), lambda: "")
    recorder = SessionRecorder(project, MODEL)
    chat = ChatSession(
        conversation=conversation,
        skills=SkillSession(skills),
        recorder=recorder,
        project=project,
        model_name=MODEL,
        discovery=Discovery(tuple(skills)),
        trust_store=SkillTrustStore(),
        context_window=lambda: 100_000,
    )
    host = McpHost(lambda: None, report=lambda line: None)  # type: ignore[arg-type,return-value]
    return ChatParts(conversation, host, chat)
