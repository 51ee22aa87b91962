"""The unified diff a file change makes, as lines for the approval and for /undo.

The diff is exact: applied to the file as it was (`patch -p1`), it gives the file as it will
be, "\\ No newline at end of file" included; a new file is a diff from /dev/null. Line ends
other than `\\n` stay in the line (a CRLF file shows its `\\r`, escaped by the dialog), so
nothing the change does is hidden. What is too long to page through is cut, and the cut says
so: the whole change is still made.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from agent.text import plural

PREVIEW_MAX_LINES = 400  # diff lines shown in an approval; the rest is counted
PREVIEW_LINE_CHARS = 500  # characters of one line shown


def diff_lines(path: str, before: str | None, after: str | None, context: int = 3) -> list[str]:
    """The unified diff from `before` to `after` (None: no file), without line ends."""
    old, new = _lines(before), _lines(after)
    lines = difflib.unified_diff(
        old,
        new,
        "/dev/null" if before is None else f"a/{path}",
        "/dev/null" if after is None else f"b/{path}",
        n=context,
    )
    return list(_without_line_ends(lines))


def _lines(text: str | None) -> list[str]:
    # Split at `\n` only, as patch and git do: splitlines would also split at a lone CR,
    # a form feed or U+2028, and the diff shown would not be the change made.
    if not text:
        return []
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    return [*lines, pieces[-1]] if pieces[-1] else lines


def _without_line_ends(lines: Iterable[str]) -> Iterable[str]:
    for line in lines:
        if line.endswith("\n"):
            yield line[:-1]
        else:  # the file's last line, which has no line end
            yield line
            yield "\\ No newline at end of file"


def changed_counts(diff: list[str]) -> tuple[int, int]:
    """Lines removed and added by a diff from diff_lines."""
    body = [line for line in diff if not line.startswith(("---", "+++"))]
    return sum(line.startswith("-") for line in body), sum(line.startswith("+") for line in body)


def capped(lines: list[str], max_lines: int = PREVIEW_MAX_LINES) -> list[str]:
    """At most `max_lines` lines of at most PREVIEW_LINE_CHARS characters, each cut said."""
    shown = []
    for line in lines[:max_lines]:
        if len(line) > PREVIEW_LINE_CHARS:
            rest = len(line) - PREVIEW_LINE_CHARS
            line = f"{line[:PREVIEW_LINE_CHARS]}… [{plural(rest, 'more character')} not shown]"
        shown.append(line)
    hidden = len(lines) - len(shown)
    if hidden:
        shown.append(
            f"… [{plural(hidden, 'more line')} of the diff not shown: the whole change is made; "
            "say no if you need to see it all]"
        )
    return shown
