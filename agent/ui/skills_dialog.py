"""The project-skills trust dialog in the chat: the skills, what changed, one key decides."""

from __future__ import annotations

from agent.skills.trust import SkillTrustRequest
from agent.text import sanitize_line
from agent.ui.dialog import ask_with_pages
from agent.ui.style import styled


class TerminalSkillTrust:
    """Asks in the chat's terminal; Esc, Ctrl-C and n keep the project's skills off."""

    async def confirm(self, request: SkillTrustRequest) -> bool:
        # One line each: a line break inside an argument or a description must not push
        # the rest of the definition off the dialog.
        lines = [sanitize_line(line) for line in request.describe()]
        lines[0] = styled(lines[0], "bold")
        choice = await ask_with_pages(
            ["", *lines], "Use these skills in this project? [y] yes  [n] no ", {"y": "y", "n": "n"}
        )
        return choice == "y"
