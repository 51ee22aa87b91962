"""A one-key question under lines it asks about, drawn so that every line is on screen.

The window is sized from the rows the lines take AFTER splitting at line breaks and wrapping
at the terminal's width, never from how many strings were passed: a name holding thirty line
breaks, or a 2000-character description, must not push what is asked about off the dialog.
What does not fit one screen is paged, and the pager says where it is; the answer keys are
accepted only on the last page, so everything has been on screen before a yes. Only keys
pressed after a page is drawn count, and only once typing stopped if it appeared mid-typing
(agent.ui.dialogs.fresh_keys).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import ANSI, FormattedText
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Layout
from prompt_toolkit.layout.containers import HSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.screen import Char
from prompt_toolkit.utils import get_cwidth

from agent.ui.dialogs.fresh_keys import Arming, run_dialog

# Our own styling (agent.ui.style): SGR sequences, which take no columns. Text from elsewhere
# is sanitized before it gets here, so every escape left in a line is one of these.
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_INDENT = "    "  # continuation rows are indented
# Where the question will be while keys typed as it appeared are still arriving. Styled unlike
# the question so that drawing the question over it rewrites every cell.
_NOT_YET = FormattedText([("italic", "(a question: stop typing to see it)")])


def screen_rows(lines: Sequence[str], width: int) -> list[str]:
    """The rows `lines` take on a terminal `width` columns wide: split at line breaks, then
    cut to fit, each character counted as wide as prompt_toolkit draws it (wide characters
    double, a tab as its two-column `^I`, our colour codes nothing)."""
    limit = max(width - 1, 10)
    rows: list[str] = []
    for line in lines:
        for part in line.split("\n"):
            rows.extend(_wrap(part, limit))
    return rows


def _wrap(line: str, limit: int) -> list[str]:
    rows: list[str] = []
    row, used = "", 0
    position = 0
    for match in [*_SGR.finditer(line), None]:
        end = match.start() if match else len(line)
        for char in line[position:end]:
            size = _drawn_width(char)
            if used + size > limit:
                rows.append(row)
                row, used = _INDENT, len(_INDENT)
            row += char
            used += size
        if match:
            row += match.group(0)
            position = match.end()
    rows.append(row)
    return rows


def _drawn_width(char: str) -> int:
    # prompt_toolkit draws a control character as its caret or hex form (a tab is `^I`, two
    # columns, where get_cwidth says 0): a row measured any other way is drawn wider than
    # counted, wraps once more, and pushes the dialog's last lines out of its window.
    return get_cwidth(Char.display_mappings.get(char, char))


async def single_key(question: str, keys: dict[str, str], lines: Sequence[str] = ()) -> str:
    """Show `lines` and the question, then wait for one of `keys`; Esc and Ctrl-C answer "n".

    The lines are part of the dialog itself (not printed before it), so they are on screen
    exactly when the question is, and stay there after the answer. Callers keep the rows
    within one screen (ask_with_pages does).
    """
    bindings = KeyBindings()
    arming = Arming()  # a question that appears while keys are arriving waits for a pause
    armed = Condition(lambda: arming.armed)

    def answer(result: str) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            event.app.exit(result=result)

        return handler

    for key, result in keys.items():
        bindings.add(key, filter=armed)(answer(result))
    bindings.add(Keys.Any, filter=~armed)(lambda event: arming.absorb())
    bindings.add("escape", eager=True)(answer("n"))
    bindings.add("c-c")(answer("n"))
    bindings.add("c-d")(answer("n"))
    bindings.add("enter")(lambda event: arming.absorb())  # Enter alone decides nothing
    width = shutil.get_terminal_size((80, 24)).columns
    windows = []
    rows = screen_rows(lines, width)
    if rows:
        windows.append(_rows_window(rows))
    question_rows = len(screen_rows([question], width))
    asked = FormattedText([("bold", question)])
    windows.append(
        Window(
            FormattedTextControl(lambda: asked if arming.armed else _NOT_YET),
            height=question_rows,
            wrap_lines=True,
        )
    )
    app: Application[str] = Application(
        layout=Layout(HSplit(windows)), key_bindings=bindings, full_screen=False
    )
    return await run_dialog(app, arming)  # only keys pressed once it is drawn answer it


def _rows_window(rows: list[str]) -> Window:
    # Every row already fits the width, so the height is exact; wrapping stays on as a
    # safety net should the terminal shrink while the question is open.
    return Window(FormattedTextControl(ANSI("\n".join(rows))), height=len(rows), wrap_lines=True)


async def ask_with_pages(lines: Sequence[str], question: str, keys: dict[str, str]) -> str:
    """Show every line, a screenful at a time when they do not fit (nothing is ever cut),
    then the question: its keys count only once the last page is on screen."""
    size = shutil.get_terminal_size((80, 24))
    rows = screen_rows(lines, size.columns)
    question_rows = len(screen_rows([question], size.columns))
    page = max(size.lines - question_rows - 2, 5)
    start = 0
    while len(rows) - start > page:
        shown = f"{start + 1}-{start + page}"
        choice = await single_key(
            f"-- lines {shown} of {len(rows)}: space shows more, n declines --",
            {" ": "more", "n": "n"},
            rows[start : start + page],
        )
        if choice == "n":
            return "n"
        start += page
    return await single_key(question, keys, rows[start:])
