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
from prompt_toolkit.formatted_text import ANSI, FormattedText
from prompt_toolkit.key_binding import KeyPressEvent
from prompt_toolkit.layout import Layout
from prompt_toolkit.layout.containers import HSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.screen import Char
from prompt_toolkit.utils import get_cwidth

from agent.ui.dialogs.fresh_keys import Arming, answer_bindings, open_question_hint, run_dialog
from agent.ui.typeahead import keys_as_typed

# Our own styling (agent.ui.style): SGR sequences, which take no columns. Text from elsewhere
# is sanitized before it gets here, so every escape left in a line is one of these.
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_INDENT = "    "  # continuation rows are indented


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
    # Only a lone key after a pause answers; a word typed at it is kept for the prompt.
    arming = Arming(keys)
    bindings = answer_bindings(arming, keys, cancel)
    said: list[tuple[str, str]] = []  # a hint key's words, in the question's place
    for key, words in (hints or {}).items():
        bindings.add(key)(_hint_key(arming, said, words))
    width = terminal_size().columns
    windows = []
    rows = screen_rows(lines, width)
    if rows:
        windows.append(_rows_window(rows))
    app: Application[str] | None = None

    def question_line() -> FormattedText:
        # Each styled unlike the others, so that drawing one over another rewrites every cell.
        result = _answer_of(app)
        if answered is not None and result is not None:
            return FormattedText([("", answered(result))])
        if not arming.armed:
            return FormattedText([("italic", arming.hint)])
        return FormattedText(said or [("bold", question)])

    shown = [question, arming.hint, *(hints or {}).values()]
    height = max(len(screen_rows([text], width)) for text in shown)
    windows.append(Window(FormattedTextControl(question_line), height=height, wrap_lines=True))
    app = Application(layout=Layout(HSplit(windows)), key_bindings=bindings, full_screen=False)
    return await run_dialog(app, arming)  # only keys pressed once it is drawn answer it


def _answer_of(app: Application[str] | None) -> str | None:
    """The answer the dialog exited with, once it has (its last drawing shows it)."""
    future = app.future if app is not None else None
    if future is None or not future.done() or future.cancelled() or future.exception():
        return None
    return future.result()


def _hint_key(
    arming: Arming, said: list[tuple[str, str]], words: str
) -> Callable[[KeyPressEvent], None]:
    # A key that answers nothing here is typing like any other (kept for the prompt, the
    # question waits for a pause), but once the pause comes the question says why it did
    # nothing, in its place.
    def handler(event: KeyPressEvent) -> None:
        # Styled unlike the typing hint it follows, so that it rewrites every cell of it.
        said[:] = [("italic bold", words)]
        arming.absorb(keys_as_typed(event.key_sequence))

    return handler


def _question_rows(question: str, keys: dict[str, str], width: int) -> int:
    # The question's window holds the question, or the hint that stands in for it.
    return max(len(screen_rows([text], width)) for text in (question, open_question_hint(keys)))


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
    # The pager's line with its hint takes up to two rows too.
    question_rows = max(_question_rows(question, keys, size.columns), 2)
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
