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
    out: list[str] = []
    skip_until = -1
    for index, in_string in _scan(text):
        if index < skip_until:
            continue
        if not in_string and text.startswith("//", index):
            end = text.find("\n", index)
            skip_until = len(text) if end == -1 else end
            continue
        if not in_string and text.startswith("/*", index):
            end = text.find("*/", index + 2)
            skip_until = len(text) if end == -1 else end + 2
            out.append("\n" * text.count("\n", index, skip_until))  # keeps error lines true
            continue
        out.append(text[index])
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
