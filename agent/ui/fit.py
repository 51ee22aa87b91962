"""One line of a listing fitted to the terminal: cut at its width with an ellipsis, at the end
of a word where one ends near the edge, never wrapped onto the next line mid-word."""

from __future__ import annotations

import shutil

from prompt_toolkit.utils import get_cwidth

from agent.text import plural, sanitize_line

ELLIPSIS = "…"


def first_line(text: str) -> str:
    """The first line of `text` with words in it (a description's summary)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def fit(line: str, columns: int | None = None) -> str:
    """`line` within `columns` cells (by default the terminal's width less one, so the cursor
    never wraps), ending in … when it was cut. Give it sanitised text: escapes are counted
    as they are shown."""
    if columns is None:
        columns = max(shutil.get_terminal_size((80, 24)).columns - 1, 20)
    if get_cwidth(line) <= columns:
        return line
    kept: list[str] = []
    used = get_cwidth(ELLIPSIS)
    for char in line:
        used += get_cwidth(char)
        if used > columns:
            break
        kept.append(char)
    text = "".join(kept)
    # At a word's end when one ends in the last third; a single long word is cut where it must.
    space = text.rfind(" ")
    if space > len(text) * 2 // 3:
        text = text[:space]
    return text.rstrip() + ELLIPSIS


# What a notice shows of text the person typed or pasted: enough to know it again.
GLIMPSE_CHARACTERS = 160


def glimpse(text: str, characters: int = GLIMPSE_CHARACTERS) -> str:
    """`text` on one line, sanitized, cut after `characters` with a count of the rest: a
    notice about a paste of a megabyte must not print the megabyte (the text itself is kept
    whole elsewhere)."""
    if len(text) <= characters:
        return sanitize_line(text)
    rest = text[characters:]
    lines = rest.count("\n")
    more = plural(len(rest), "more character") + (f", {plural(lines + 1, 'line')}" if lines else "")
    return f"{sanitize_line(text[:characters])}… (not shown: {more})"
