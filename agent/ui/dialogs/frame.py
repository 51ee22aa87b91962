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

import os
import re
from collections.abc import Callable, Sequence

from prompt_toolkit.application import Application, get_app_session
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


def terminal_size() -> os.terminal_size:
    """The size of the terminal the dialog is drawn on: the app session's output, which is the
    chat's terminal or, for `agent -p`, /dev/tty (never a pipe's COLUMNS or its 80 by 24)."""
    try:
        size = get_app_session().output.get_size()
    except Exception:  # an output that cannot say (not a terminal): the usual default
        return os.terminal_size((80, 24))
    return os.terminal_size((size.columns or 80, size.rows or 24))


def screen_rows(lines: Sequence[str], width: int) -> list[str]:
    """The rows `lines` take on a terminal `width` columns wide: split at line breaks, then
    cut to fit, each character counted as wide as prompt_toolkit draws it (wide characters
    double, a tab as its two-column `^I`, our colour codes nothing)."""
    rows: list[str] = []
    for line in lines:
        for part in line.split("\n"):
            rows.extend(wrap(part, width))
    return rows


def wrap(line: str, width: int, continuation: str = _INDENT) -> list[str]:
    """`line` as rows that fit `width` columns: broken after a space where one is in the
    second half of the row (so words stay whole), else mid-word; rows after the first start
    with `continuation`, which says that they go on the row above."""
    limit = max(width - 1, 10)
    start = len(continuation)
    rows: list[str] = []
    row: list[tuple[str, int]] = []  # pieces with their drawn widths (colour codes: 0)
    used = 0
    for piece in _pieces(line):
        size = 0 if piece.startswith("\x1b") else _drawn_width(piece)
        if used + size > limit:
            cut = _last_space(row, minimum=max(limit // 2, start + 1))
            rows.append("".join(text for text, _ in row[:cut]))
            rest = row[cut:]
            row = [(continuation, len(continuation)), *rest]
            used = sum(width for _, width in row)
        row.append((piece, size))
        used += size
    rows.append("".join(text for text, _ in row))
    return rows


def _pieces(line: str) -> list[str]:
    """The line's characters, each of our colour codes one piece."""
    pieces: list[str] = []
    position = 0
    for match in _SGR.finditer(line):
        pieces.extend(line[position : match.start()])
        pieces.append(match.group(0))
        position = match.end()
    pieces.extend(line[position:])
    return pieces


def _last_space(row: list[tuple[str, int]], minimum: int) -> int:
    """Where to break `row`: just after its last space past `minimum` columns, else at its end."""
    used = 0
    cut = len(row)
    for index, (text, size) in enumerate(row):
        used += size
        if text == " " and used > minimum:
            cut = index + 1
    return cut


def _drawn_width(char: str) -> int:
    # prompt_toolkit draws a control character as its caret or hex form (a tab is `^I`, two
    # columns, where get_cwidth says 0): a row measured any other way is drawn wider than
    # counted, wraps once more, and pushes the dialog's last lines out of its window.
    return get_cwidth(Char.display_mappings.get(char, char))


async def single_key(
    question: str,
    keys: dict[str, str],
    lines: Sequence[str] = (),
    cancel: str = "n",
    *,
    hints: dict[str, str] | None = None,
    answered: Callable[[str], str] | None = None,
) -> str:
    """Show `lines` and the question, then wait for one of `keys`; Esc, Ctrl-C and Ctrl-D
    answer `cancel` ("n" unless the caller gives them a meaning of their own).

    `hints`: keys that answer nothing here, each with the words that then replace the question
    (why the key did nothing and what to do), so a key that does nothing never goes unexplained.
    `answered`: what the question's line says once answered, left on the screen.

    The lines are part of the dialog itself (not printed before it), so they are on screen
    exactly when the question is, and stay there after the answer. Callers keep the rows
    within one screen (ask_with_pages does).
    """
    bindings = KeyBindings()
    arming = Arming()  # a question that appears while keys are arriving waits for a pause
    armed = Condition(lambda: arming.armed)
    # A hint, then the answer, in place of the question's words; each styled unlike the
    # question so that drawing it over the question rewrites every cell.
    said: list[tuple[str, str]] = []

    def answer(result: str) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            if answered is not None:
                said[:] = [("", answered(result))]
            event.app.exit(result=result)

        return handler

    def hint(words: str) -> Callable[[KeyPressEvent], None]:
        return lambda event: said.__setitem__(slice(None), [("italic", words)])

    for key, words in (hints or {}).items():
        bindings.add(key, filter=armed)(hint(words))
    for key, result in keys.items():
        bindings.add(key, filter=armed)(answer(result))
    bindings.add(Keys.Any, filter=~armed)(lambda event: arming.absorb())
    bindings.add("escape", eager=True)(answer(cancel))
    bindings.add("c-c")(answer(cancel))
    bindings.add("c-d")(answer(cancel))
    bindings.add("enter")(lambda event: arming.absorb())  # Enter alone decides nothing
    width = terminal_size().columns
    windows = []
    rows = screen_rows(lines, width)
    if rows:
        windows.append(_rows_window(rows))
    shown = [question, *(hints or {}).values()]
    windows.append(_question_window(question, shown, said, arming, width))
    app: Application[str] = Application(
        layout=Layout(HSplit(windows)), key_bindings=bindings, full_screen=False
    )
    return await run_dialog(app, arming)  # only keys pressed once it is drawn answer it


def _question_window(
    question: str, shown: list[str], said: list[tuple[str, str]], arming: Arming, width: int
) -> Window:
    """The question's line: what `said` holds in its place (a hint, the answer) once there is
    one, and nothing of it until the question is armed. As tall as the tallest of `shown`."""
    height = max(len(screen_rows([text], width)) for text in shown)
    return Window(
        FormattedTextControl(
            lambda: FormattedText(said or [("bold", question)]) if arming.armed else _NOT_YET
        ),
        height=height,
        wrap_lines=True,
    )


def _rows_window(rows: list[str]) -> Window:
    # Every row already fits the width, so the height is exact; wrapping stays on as a
    # safety net should the terminal shrink while the question is open.
    return Window(FormattedTextControl(ANSI("\n".join(rows))), height=len(rows), wrap_lines=True)


async def ask_with_pages(
    lines: Sequence[str],
    question: str,
    keys: dict[str, str],
    cancel: str = "n",
    cancel_words: str = "",
    *,
    early: str | None = None,
    pager_no: tuple[str, str] = ("n", "n declines"),
    answered: Callable[[str], str] | None = None,
) -> str:
    """Show every line, a screenful at a time when they do not fit (nothing is ever cut),
    then the question: its keys count only once the last page is on screen. Esc and Ctrl-C
    answer `cancel` on every page; `cancel_words` says what they do, on the pager's line.

    On a page before the last, a key of the question does nothing but say so: `early` (why,
    and what to do) replaces the pager's line. `pager_no`: what n answers on a page before the
    last, and the pager's words for it. `answered`: the question's line once answered."""
    size = terminal_size()
    rows = screen_rows(lines, size.columns)
    question_rows = len(screen_rows([question], size.columns))
    page = max(size.lines - question_rows - 2, 5)
    start = 0
    no, no_words = pager_no
    while len(rows) - start > page:
        shown = f"lines {start + 1}-{start + page} of {len(rows)}"
        waiting = f"-- {early} ({shown}) --" if early else ""
        choice = await single_key(
            f"-- {shown}: space shows more, {no_words}{cancel_words} --",
            {" ": "more", "n": no},
            rows[start : start + page],
            cancel,
            hints={key: waiting for key in keys if key != "n"} if early else None,
        )
        if choice != "more":
            return choice
        start += page
    return await single_key(question, keys, rows[start:], cancel, answered=answered)
