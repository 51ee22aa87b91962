"""The tool approval dialog: one key decides. y approves once; n, Esc or Ctrl-C deny; r denies
with a reason for the model. There is no "always" for MCP tools: every call asks."""

from __future__ import annotations

import contextlib
import shutil
import sys
import termios
from collections.abc import Callable, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import ANSI, FormattedText
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout
from prompt_toolkit.layout.containers import HSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.shortcuts import PromptSession
from prompt_toolkit.utils import get_cwidth

from agent.approval import ApprovalRequest, Decision
from agent.text import sanitize
from agent.ui.render import pretty_arguments
from agent.ui.style import styled

_HINTS = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")
_HINT_WORDS = {
    "read_only_hint": ("read-only", "may change things"),
    "destructive_hint": ("destructive", "not destructive"),
    "idempotent_hint": ("idempotent", "not idempotent"),
    "open_world_hint": ("reaches the outside world", "closed world"),
}


def describe_request(request: ApprovalRequest) -> list[str]:
    """The lines shown above the question: names, hints and the complete arguments."""
    spec = request.spec
    lines = [styled("Allow this tool call?", "bold")]
    lines.append(f"  tool:   {sanitize(spec.name)}")
    if spec.server is not None:
        lines.append(f"  server: {sanitize(spec.server)}")
        lines.append(f"  server's tool: {sanitize(spec.original_name or '')}")
    hints = _annotation_words(spec.annotations or {})
    if hints:
        lines.append(f"  server says: {', '.join(hints)}  (hints from the server, not guarantees)")
    lines.append("  arguments:")
    lines.extend(
        "    " + line for line in sanitize(pretty_arguments(request.arguments)).splitlines()
    )
    return lines


def _annotation_words(annotations: dict[str, object]) -> list[str]:
    words = []
    for key in _HINTS:
        camel = "".join(part.title() if i else part for i, part in enumerate(key.split("_")))
        value = annotations.get(key, annotations.get(camel))
        if isinstance(value, bool):
            words.append(_HINT_WORDS[key][0 if value else 1])
    return words


async def single_key(question: str, keys: dict[str, str], lines: Sequence[str] = ()) -> str:
    """Show `lines` and the question, then wait for one of `keys`; Esc and Ctrl-C answer "n".

    The lines are part of the dialog itself (not printed before it), so they are on screen
    exactly when the question is, and stay there after the answer.
    """
    bindings = KeyBindings()

    def answer(result: str) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            event.app.exit(result=result)

        return handler

    for key, result in keys.items():
        bindings.add(key)(answer(result))
    bindings.add("escape", eager=True)(answer("n"))
    bindings.add("c-c")(answer("n"))
    bindings.add("c-d")(answer("n"))
    bindings.add("enter")(lambda event: None)  # Enter alone decides nothing
    windows = []
    if lines:
        windows.append(Window(FormattedTextControl(ANSI("\n".join(lines))), height=len(lines)))
    windows.append(Window(FormattedTextControl(FormattedText([("bold", question)])), height=1))
    app: Application[str] = Application(
        layout=Layout(HSplit(windows)), key_bindings=bindings, full_screen=False
    )
    _discard_typeahead()
    # The chat owns SIGINT (it cancels the turn); in raw mode Ctrl-C arrives here as a key.
    return await app.run_async(handle_sigint=False)


def _discard_typeahead() -> None:
    """Drop keys typed before the question was on screen (say, a `y` typed while the answer
    streamed): only a key pressed after reading the question may decide."""
    if sys.stdin.isatty():
        with contextlib.suppress(OSError, termios.error):
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


def wrap_for_screen(lines: Sequence[str], width: int) -> list[str]:
    """Each line cut into rows that fit `width` columns (wide characters count double), so a
    long argument is shown whole instead of running off the screen."""
    rows: list[str] = []
    limit = max(width - 1, 10)
    for line in lines:
        if "\x1b" in line or get_cwidth(line) <= limit:
            rows.append(line)
            continue
        row, used = "", 0
        for char in line:
            size = get_cwidth(char)
            if used + size > limit:
                rows.append(row)
                row, used = "    ", 4  # continuation rows are indented
            row += char
            used += size
        rows.append(row)
    return rows


async def ask_with_pages(lines: Sequence[str], question: str, keys: dict[str, str]) -> str:
    """Show every line, a screenful at a time when they do not fit (nothing is ever cut),
    then the question."""
    size = shutil.get_terminal_size((80, 24))
    lines = wrap_for_screen(lines, size.columns)
    page = max(size.lines - 3, 5)
    start = 0
    while len(lines) - start > page:
        remaining = len(lines) - start - page
        choice = await single_key(
            f"-- {remaining} more lines: space shows more, n declines --",
            {" ": "more", "n": "n"},
            lines[start : start + page],
        )
        if choice == "n":
            return "n"
        start += page
    return await single_key(question, keys, lines[start:])


class TerminalApprover:
    """Asks in the terminal, one call at a time."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        choice = await ask_with_pages(
            ["", *describe_request(request)],
            "Approve? [y] yes once  [n] no  [r] no, with a reason for the model ",
            {"y": "y", "n": "n", "r": "r"},
        )
        if choice == "y":
            return Decision(True)
        if choice == "r":
            try:
                reason = await PromptSession[str]().prompt_async(
                    "Reason for the model: ", handle_sigint=False
                )
            except (KeyboardInterrupt, EOFError):
                reason = ""
            return Decision(False, reason.strip() or None)
        return Decision(False)
