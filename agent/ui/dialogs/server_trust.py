"""The chat's one question about every server that needs trust in this project.

In a new project, each imported server whose launch depends on the project folder needs a
yes there. One dialog lists them all, each with what differs from where it was trusted (or
that its launch is new) and everything it would run; the person trusts all, none, or goes
through them one by one. Every key is asked through frame.py's dialogs, so through run_dialog.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.mcp.trust.question import TrustRequest
from agent.text import sanitize_line
from agent.ui.dialogs.frame import ask_with_pages, single_key
from agent.ui.style import styled

ALL_QUESTION = "Start them and trust what they run here?"
ONE_QUESTION = "Start it and trust what it runs here?"


def summary(request: TrustRequest) -> str:
    """One line per server: its name and why it asks ("it runs in this project's folder, and
    you trusted it in /src/a")."""
    return sanitize_line(f"{request.server}: {request.why or request.reason()}")


def dialog_lines(requests: Sequence[TrustRequest]) -> list[str]:
    """The whole dialog: a heading, then each server's summary and its full description."""
    count = len(requests)
    noun = "server needs" if count == 1 else f"{count} servers need"
    lines = [styled(f"MCP {noun} your trust in this project.", "bold")]
    for number, request in enumerate(requests, 1):
        lines += ["", styled(f"[{number}] {summary(request)}", "bold")]
        # One line each: a line break in an argument must not draw a line of ours.
        lines += [sanitize_line(line) for line in request.describe()[1:]]
    return lines


class ChatTrustChoice:
    """The chat's TrustChoice: [a] all, [n] none, [e] each in turn (y/n per server)."""

    async def choose(self, requests: Sequence[TrustRequest]) -> frozenset[str]:
        """The names the person trusts; Esc, Ctrl-C and n trust none."""
        if not requests:
            return frozenset()
        lines = ["", *dialog_lines(requests)]
        if len(requests) == 1:
            keys = {"y": "y", "n": "n"}
            answer = await ask_with_pages(lines, f"{ONE_QUESTION} [y] yes  [n] no ", keys)
            return frozenset({requests[0].server}) if answer == "y" else frozenset()
        keys = {"a": "a", "n": "n", "e": "e"}
        question = f"{ALL_QUESTION} [a] all  [n] none  [e] decide each "
        answer = await ask_with_pages(lines, question, keys)
        if answer == "a":
            return frozenset(request.server for request in requests)
        if answer != "e":
            return frozenset()
        return await _each(requests)


async def _each(requests: Sequence[TrustRequest]) -> frozenset[str]:
    chosen = set()
    for number, request in enumerate(requests, 1):
        line = styled(f"[{number}] {summary(request)}", "bold")
        answer = await single_key(
            f"Trust {sanitize_line(request.server)}? [y] yes  [n] no ", {"y": "y", "n": "n"}, [line]
        )
        if answer == "y":
            chosen.add(request.server)
    return frozenset(chosen)
