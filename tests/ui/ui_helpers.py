"""Helpers for the chat UI tests: a stream that says it is a terminal, what a terminal would
show for some output, and a chat whose parts are real but whose model is never asked."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from agent.chat.approval import DenyAll
from agent.chat.conversation import Conversation
from agent.chat.state import ChatSession
from agent.mcp.host import McpHost
from agent.messages import Completion
from agent.model import TextChunk
from agent.session.recorder import SessionRecorder
from agent.skills.model import Discovery, Skill
from agent.skills.tools import SkillSession
from agent.skills.trust import SkillTrustStore

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


def chat_state(
    project: Path, skills: Sequence[Skill] = (), host: McpHost | None = None
) -> ChatSession:
    """A chat as the app builds it, with `skills` usable and an MCP host (by default one that
    is never served, so it stays not yet up)."""
    if host is None:
        host = McpHost(lambda: None, report=lambda line: None)  # type: ignore[arg-type,return-value]
    conversation = Conversation(UnusedModel(), [host], DenyAll(), lambda: "")
    recorder = SessionRecorder(project, MODEL)
    return ChatSession(
        conversation=conversation,
        host=host,
        skills=SkillSession(skills),
        recorder=recorder,
        project=project,
        model_name=MODEL,
        discovery=Discovery(tuple(skills)),
        trust_store=SkillTrustStore(),
        context_window=lambda: 100_000,
    )
