"""Plain output for subcommands: sanitized lines, aligned tables, yes/no questions."""

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


def confirm(question: str, default: bool) -> bool:
    """Ask a yes/no question on the terminal; no terminal means the default is not assumed."""
    if not sys.stdin.isatty():
        return False
    suffix = " [Y/n] " if default else " [y/N] "
    try:
        answer = input(sanitize(question) + suffix).strip().lower()
    except EOFError:
        return False
    if not answer:
        return default
    return answer in ("y", "yes")
