"""Filling a command tool's command line from the model's arguments, never through a shell.

An element is literal text with `{name}` placeholders (`{{` and `}}` are literal braces).
Each element stays one argument of the program: a value can never split into two arguments,
start a shell, or become the program. Rules (issue 13):

- numbers and booleans fill as JSON text; a string fills as itself;
- an array fills one element per item, only where its placeholder is the whole element;
- an element with a placeholder whose argument is absent (optional) is dropped;
- an element that starts with `-` because of a value is refused (it would be read as an
  option, `--output=/etc/passwd`) unless every placeholder in it is listed in `allow_dash`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)\}")


class CommandArgumentError(Exception):
    """An argument cannot fill the command line; the text says which and why."""


@dataclass(frozen=True)
class Part:
    """Literal text, or a placeholder naming one argument."""

    text: str = ""
    placeholder: str | None = None


def parse_element(element: str) -> tuple[Part, ...]:
    """The element split into literal text and placeholders (braces unescaped)."""
    parts: list[Part] = []
    literal: list[str] = []
    position = 0
    for match in _TOKEN.finditer(element):
        literal.append(element[position : match.start()])
        position = match.end()
        if match.group(1) is None:
            literal.append(match.group(0)[0])  # "{{" -> "{", "}}" -> "}"
            continue
        if literal:
            parts.append(Part(text="".join(literal)))
            literal = []
        parts.append(Part(placeholder=match.group(1)))
    literal.append(element[position:])
    text = "".join(literal)
    if text:
        parts.append(Part(text=text))
    return tuple(part for part in parts if part.placeholder is not None or part.text)


def placeholders(element: str) -> list[str]:
    """The argument names an element refers to, in order."""
    return [part.placeholder for part in parse_element(element) if part.placeholder is not None]


def whole_placeholder(element: str) -> str | None:
    """The argument name when the element is exactly one placeholder, else None."""
    parts = parse_element(element)
    if len(parts) == 1 and parts[0].placeholder is not None:
        return parts[0].placeholder
    return None


def fill_command(
    command: Sequence[str], arguments: Mapping[str, Any], allow_dash: Sequence[str] = ()
) -> list[str]:
    """The argument vector to run: the program (always literal) then each filled element."""
    argv = [command[0]]
    for element in command[1:]:
        argv.extend(_fill_element(element, arguments, allow_dash))
    return argv


def _fill_element(
    element: str, arguments: Mapping[str, Any], allow_dash: Sequence[str]
) -> list[str]:
    parts = parse_element(element)
    names = [part.placeholder for part in parts if part.placeholder is not None]
    if any(arguments.get(name) is None for name in names):
        return []  # an absent optional argument drops its element
    whole = whole_placeholder(element)
    if whole is not None and isinstance(arguments[whole], list):
        values = [_text(whole, item, inside_list=True) for item in arguments[whole]]
    else:
        values = ["".join(_part_text(part, arguments) for part in parts)]
    if any("\0" in value for value in values):  # no program can receive one; say so plainly
        raise CommandArgumentError(f"argument {names[0]!r} contains a NUL character")
    starts_literal = bool(parts) and parts[0].placeholder is None
    for value in values:
        if value.startswith("-") and not starts_literal and not set(names) <= set(allow_dash):
            raise CommandArgumentError(
                f"argument {names[0]!r} starts with '-' ({_shown(value)}), which the program "
                "would read as an option; this tool does not accept that (the definition can "
                f'allow it with "allow_dash": [{json.dumps(names[0])}])'
            )
    return values


def _part_text(part: Part, arguments: Mapping[str, Any]) -> str:
    if part.placeholder is None:
        return part.text
    return _text(part.placeholder, arguments[part.placeholder], inside_list=False)


def _text(name: str, value: Any, *, inside_list: bool) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    if isinstance(value, list) and not inside_list:
        raise CommandArgumentError(
            f"argument {name!r} is a list; a list can only fill a whole element of the command"
        )
    raise CommandArgumentError(
        f"argument {name!r}: a {type(value).__name__} cannot fill a command line "
        "(strings, numbers, booleans and lists of them can)"
    )


def _shown(value: str) -> str:
    return json.dumps(value[:60] + ("..." if len(value) > 60 else ""), ensure_ascii=False)
