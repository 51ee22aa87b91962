"""Plain output for subcommands: sanitized lines and aligned tables (questions: terminal.py)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from agent.text import sanitize, sanitize_line


def say(text: str = "") -> None:
    """Print untrusted-safe text to stdout."""
    print(sanitize(text))


def warn(text: str) -> None:
    """Print a line to stderr (notices and errors)."""
    print(sanitize(text), file=sys.stderr)


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns separated by two spaces."""
    cells = [list(headers)] + [[sanitize_line(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in cells
    ]
    return "\n".join(lines)
