"""JSON with comments and trailing commas (VS Code's mcp.json is JSONC) -> plain JSON text."""

from __future__ import annotations

import re
from collections.abc import Iterator

_WHITESPACE = re.compile(r"[ \t\r\n]*")


def strip_jsonc(text: str) -> str:
    """Remove // and /* */ comments, then trailing commas, outside strings; keep line numbers."""
    return _drop_trailing_commas(_drop_comments(text))


def _scan(text: str) -> Iterator[tuple[int, bool]]:
    """Yield (index, inside_string) for each character, treating escapes as part of strings."""
    in_string = False
    escaped = False
    for index, char in enumerate(text):
        if in_string:
            yield index, True
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        else:
            if char == '"':
                in_string = True
                yield index, True
            else:
                yield index, False


def _drop_comments(text: str) -> str:
    # Its own loop rather than _scan: a quote inside a comment must not open a string.
    out: list[str] = []
    index = 0
    in_string = False
    while index < len(text):
        char = text[index]
        if in_string:
            if char == "\\":
                out.append(text[index : index + 2])
                index += 2
                continue
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif text.startswith("//", index):
            end = text.find("\n", index)
            index = len(text) if end == -1 else end
            continue
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            skip_until = len(text) if end == -1 else end + 2
            out.append("\n" * text.count("\n", index, skip_until))  # keeps error lines true
            index = skip_until
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _drop_trailing_commas(text: str) -> str:
    out: list[str] = []
    for index, in_string in _scan(text):
        char = text[index]
        if not in_string and char == ",":
            after = _WHITESPACE.match(text, index + 1)
            next_index = after.end() if after else index + 1
            if text[next_index : next_index + 1] in ("}", "]"):
                continue
        out.append(char)
    return "".join(out)
