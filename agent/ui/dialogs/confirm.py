"""One yes/no dialog in the chat for what needs consent before it runs: a local MCP server's
launch, a project's skills and instruction files. The request's lines are drawn, then one key
decides."""

from __future__ import annotations

from typing import Protocol

from agent.text import sanitize_line
from agent.ui.dialogs.frame import ask_with_pages
from agent.ui.style import styled

TRUST_QUESTION = "Start it and trust what it runs here?"
SKILLS_QUESTION = "Use these skills in this project?"


class Describable(Protocol):
    """A request that can say what it asks about, one line per item."""

    def describe(self) -> list[str]:
        """Lines for the dialog; the first is the heading."""
        ...


class ChatConfirm:
    """The chat's TrustPrompt and SkillTrust: anything but y (n, Esc, Ctrl-C) says no."""

    def __init__(self, question: str) -> None:
        self._question = question

    async def confirm(self, request: Describable) -> bool:
        """Draw the request's lines (paged when long) and ask the question."""
        # One line each: a line break inside an argument or a description must not push
        # the rest of the definition off the dialog.
        lines = [sanitize_line(line) for line in request.describe()]
        lines[0] = styled(lines[0], "bold")
        # A request may word its own question (project skills and instruction files).
        question = getattr(request, "question", self._question)
        choice = await ask_with_pages(
            ["", *lines], f"{question} [y] yes  [n] no ", {"y": "y", "n": "n"}
        )
        return choice == "y"
