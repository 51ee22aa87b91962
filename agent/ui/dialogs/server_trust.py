"""The chat's one question about every server that needs trust in this project.

In a new project, each imported server whose launch depends on the project folder needs a
yes there. One dialog lists them all, one line each, read in seconds: the program it runs and
why it asks here ("npx looks in this project's node_modules first"), and anything that differs
from the launch trusted elsewhere beyond the folder. `d` shows everything each would run (the
full descriptions); a launch that is new, or changed beyond the folder, is in full at once.
The person trusts all, none, or goes through them one by one. Every key is asked through
frame.py's dialogs, so through run_dialog.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence

from agent.mcp.trust.project_folder import beyond_the_folder
from agent.mcp.trust.question import TrustRequest
from agent.text import sanitize_line
from agent.ui.dialogs.frame import ask_with_pages
from agent.ui.style import styled

ALL_QUESTION = "Start them and trust what they run here?"
ONE_QUESTION = "Start it and trust what it runs here?"
# How much of a server's line its program takes, and how long a path is before it is cut to
# its end: the rest of the line says why it asks.
_PROGRAM_COLUMNS = 48
_PATH_COLUMNS = 24


def summary(request: TrustRequest) -> str:
    """One line per server: its name and why it asks ("it runs in this project's folder, and
    you trusted it in /src/a")."""
    return sanitize_line(f"{request.server}: {request.why or request.reason()}")


def compact_line(request: TrustRequest) -> str:
    """A server on one line: the program it runs and why it asks here, then what differs
    from the launch trusted elsewhere beyond the folder ("npx -y pkg · npx looks in this
    project's node_modules first")."""
    said = [request.why_here(), *beyond_the_folder(request.changes)]
    if not request.previously_trusted:
        said.append("its launch is new")
    return sanitize_line(f"{request.server}: {_program(request)}  · {'; '.join(said)}")


def _program(request: TrustRequest) -> str:
    # The program by its name and its arguments, a long path by its end: the full paths are
    # one key away, and a different program than the one trusted elsewhere is a change, said.
    if request.tools:
        names = [tool.split(":", 1)[0] for tool in request.tools if not tool.startswith(" ")]
        return "commands " + ", ".join(names)
    words = [os.path.basename(request.executable), *request.args]
    text = " ".join(_short(word) for word in words)
    return text if len(text) <= _PROGRAM_COLUMNS else text[: _PROGRAM_COLUMNS - 1] + "…"


def _short(word: str) -> str:
    if word.startswith("/") and len(word) > _PATH_COLUMNS:
        return "…/" + shlex.quote(os.path.basename(word.rstrip("/")))
    return shlex.quote(word)


def compact_lines(requests: Sequence[TrustRequest]) -> list[str]:
    """The dialog: a heading, a line per server; a launch that is new, or differs from the
    one trusted elsewhere by more than the folder, also in full below its line."""
    lines = [_heading(requests)]
    places = {request.trusted_in for request in requests}
    if len(places) == 1 and None not in places:
        lines.append(f"You trusted {_them(requests)} in {sanitize_line(str(places.pop()))}.")
    lines.append("")
    for number, request in enumerate(requests, 1):
        lines += server_lines(number, request)
    return lines


def server_lines(number: int, request: TrustRequest) -> list[str]:
    """A server's line, and below it everything its launch runs when that launch is new, or
    differs from the one trusted elsewhere by more than the folder (the line cuts a long
    program: what it cuts is only ever what the person trusted already)."""
    lines = [styled(f"[{number}] {compact_line(request)}", "bold")]
    if not request.previously_trusted or beyond_the_folder(request.changes):
        lines += [sanitize_line(line) for line in request.describe()[1:]]
    return lines


def dialog_lines(requests: Sequence[TrustRequest]) -> list[str]:
    """The whole dialog: a heading, then each server's summary and its full description."""
    lines = [_heading(requests)]
    for number, request in enumerate(requests, 1):
        lines += ["", styled(f"[{number}] {summary(request)}", "bold")]
        # One line each: a line break in an argument must not draw a line of ours.
        lines += [sanitize_line(line) for line in request.describe()[1:]]
    return lines


def _heading(requests: Sequence[TrustRequest]) -> str:
    count = len(requests)
    noun = "server needs" if count == 1 else f"{count} servers need"
    return styled(f"MCP {noun} your trust in this project.", "bold")


def _them(requests: Sequence[TrustRequest]) -> str:
    return "it" if len(requests) == 1 else "them"


class ChatTrustChoice:
    """The chat's TrustChoice: [a] all, [n] none, [e] each in turn (y/n per server), [d] the
    full details first."""

    async def choose(self, requests: Sequence[TrustRequest]) -> frozenset[str]:
        """The names the person trusts; Esc, Ctrl-C and n trust none."""
        if not requests:
            return frozenset()
        if len(requests) == 1:
            answer = await _ask(requests, ONE_QUESTION + " [y] yes  [n] no", {"y": "y", "n": "n"})
            return frozenset({requests[0].server}) if answer == "y" else frozenset()
        keys = {"a": "a", "n": "n", "e": "e"}
        answer = await _ask(requests, ALL_QUESTION + " [a] all  [n] none  [e] decide each", keys)
        if answer == "a":
            return frozenset(request.server for request in requests)
        if answer != "e":
            return frozenset()
        return await _each(requests)


async def _ask(requests: Sequence[TrustRequest], question: str, keys: dict[str, str]) -> str:
    """The compact dialog; `d` shows the full one, which then asks the same question."""
    answer = await ask_with_pages(
        ["", *compact_lines(requests)], f"{question}  [d] details ", {**keys, "d": "d"}
    )
    if answer != "d":
        return answer
    return await ask_with_pages(["", *dialog_lines(requests)], f"{question} ", keys)


async def _each(requests: Sequence[TrustRequest]) -> frozenset[str]:
    chosen = set()
    for number, request in enumerate(requests, 1):
        # Its whole launch again at its own question: the list that showed it may be
        # screens back, and a y here starts it.
        answer = await ask_with_pages(
            ["", *server_lines(number, request)],
            f"Trust {sanitize_line(request.server)}? [y] yes  [n] no ",
            {"y": "y", "n": "n"},
        )
        if answer == "y":
            chosen.add(request.server)
    return frozenset(chosen)
