"""A few ANSI styles for our own text, off when NO_COLOR is set or stdout is not a terminal.

Only text we wrote gets styles; text from models, servers and files is sanitized first.
"""

from __future__ import annotations

import os
import sys

_CODES = {"dim": "2", "bold": "1", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


def color_enabled() -> bool:
    """Colors on a terminal unless NO_COLOR (any value) says otherwise."""
    return "NO_COLOR" not in os.environ and sys.stdout.isatty()


def styled(text: str, *styles: str) -> str:
    """`text` wrapped in the ANSI codes for `styles` (when colors are enabled)."""
    return painted(text, *styles, colour=color_enabled())


def painted(text: str, *styles: str, colour: bool) -> str:
    """`text` in `styles` when `colour`: for a terminal other than stdout (/dev/tty)."""
    if not styles or not colour:
        return text
    codes = ";".join(_CODES[style] for style in styles)
    return f"\x1b[{codes}m{text}\x1b[0m"
