"""Trust of a local MCP server, asked in the chat: the exact command line, working directory
and environment variable names; one key decides, and anything but y keeps it from running."""

from __future__ import annotations

from agent.mcp.trust import TrustRequest
from agent.text import sanitize_line
from agent.ui.dialog import ask_with_pages
from agent.ui.style import styled


class ChatTrustPrompt:
    """The TrustPrompt of the interactive chat."""

    async def confirm(self, request: TrustRequest) -> bool:
        # One line each: a line break inside an argument or a description must not push
        # the rest of the definition off the dialog.
        lines = [sanitize_line(line) for line in request.describe()]
        lines[0] = styled(lines[0], "bold")
        choice = await ask_with_pages(
            ["", *lines],
            "Start it and trust what it runs here? [y] yes  [n] no ",
            {"y": "y", "n": "n"},
        )
        return choice == "y"
