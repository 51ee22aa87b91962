"""A tool call's arguments as a person reads them: one `name: value` line each, and a string
of several lines (file contents, code, SQL) as its own lines under its name, numbered.

Every value is complete (the dialog pages what does not fit; nothing is cut) and exact: a
one-line string is shown as JSON shows it, quoted, so `"3"` and `3`, or a trailing space,
stay visible. Names and values come from the model: every piece is sanitized (escape
sequences, carriage returns, bidi controls and invisible characters become visible escapes)
before it is laid out, so nothing here can draw on the terminal.
"""

from __future__ import annotations

import json
import re

from agent.text import sanitize, sanitize_line

_STEP = "  "  # each level of nesting
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}\Z")
_SHORT_LIST = 60  # a list of plain values up to this long stays on its name's line
TAB_STOP = 4


def argument_lines(arguments: dict[str, object], indent: str = "") -> list[tuple[str, str]]:
    """The arguments as (row, continuation) pairs: the row's text, and what starts the rows
    it takes when it wraps (the frame's wrap), so a wrapped line of content cannot be taken
    for a line of its own."""
    rows: list[tuple[str, str]] = []
    for name, value in arguments.items():
        rows.extend(_entry(_name(name), value, indent))
    return rows


def _name(name: str) -> str:
    # An odd name (spaces, a colon, quotes) is quoted, so it cannot pass for `name: value`.
    return name if _PLAIN_NAME.match(name) else _json(name)


def _entry(label: str, value: object, indent: str) -> list[tuple[str, str]]:
    wrap = indent + _STEP * 2
    if isinstance(value, str) and "\n" in value:
        return [(f"{indent}{label}:", wrap), *_text_lines(value, indent + _STEP)]
    if isinstance(value, dict) and value:
        rows = [(f"{indent}{label}:", wrap)]
        for name, inner in value.items():
            rows.extend(_entry(_name(str(name)), inner, indent + _STEP))
        return rows
    if isinstance(value, list) and value and not _short_list(value):
        rows = [(f"{indent}{label}:", wrap)]
        for index, inner in enumerate(value):
            rows.extend(_entry(f"[{index}]", inner, indent + _STEP))
        return rows
    return [(f"{indent}{label}: {_json(value)}", wrap)]


def _short_list(value: list[object]) -> bool:
    plain = all(not isinstance(item, dict | list) and not _multiline(item) for item in value)
    return plain and len(_json(value)) <= _SHORT_LIST


def _multiline(value: object) -> bool:
    return isinstance(value, str) and "\n" in value


def _text_lines(text: str, indent: str) -> list[tuple[str, str]]:
    """`text` line by line behind a gutter of line numbers; a wrapped line goes on with the
    gutter empty. A final line break ends the last line (it adds no empty line)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    digits = len(str(len(lines)))
    rows = []
    for number, line in enumerate(lines, 1):
        shown = sanitize_line(line.expandtabs(TAB_STOP))  # a CR shows as \x0d, and so on
        rows.append((f"{indent}{number:>{digits}} │ {shown}", f"{indent}{' ' * digits} ┆ "))
    return rows


def _json(value: object) -> str:
    # JSON escapes control characters itself; sanitize shows the rest (bidi, zero-width).
    return sanitize_line(sanitize(json.dumps(value, ensure_ascii=False)))
