"""Filling a command tool's command line from the model's arguments, never through a shell.

An element is literal text with `{name}` placeholders (`{{` and `}}` are literal braces).
Each element stays one argument of the program: a value can never split into two arguments,
start a shell, or become the program. Rules (issue 13):

- numbers and booleans fill as JSON text; a string fills as itself;
- an array fills one element per item, only where its placeholder is the whole element;
- an element with a placeholder whose argument is absent (optional) is dropped; `null` counts
  as absent, and so does an empty list for a whole-element placeholder (it fills nothing);
- a required argument is never dropped that way: `null` or `[]` for it is refused, or
  `sort -o {out} {file}` with `out: null` would run `sort -o data.txt` and empty the file
  (the schema may allow null or a list; only the value says the element would vanish);
- a value that starts with `-` is refused where the program could read it as an option: at
  the start of an element (`{x}` filled with `--output=/etc/passwd`) or anywhere in an element
  that starts with `-` (`-{x}` filled with `-output=...` makes `--output=...`), unless the
  argument is listed in `allow_dash`; after a literal `--` element nothing is an option, so
  values there may start with `-`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from agent.mcp.config.command_template import END_OF_OPTIONS, Part, parse_element, whole_placeholder


class CommandArgumentError(Exception):
    """An argument cannot fill the command line; the text says which and why."""


def fill_command(
    command: Sequence[str],
    arguments: Mapping[str, Any],
    allow_dash: Sequence[str] = (),
    required: Collection[str] = (),
) -> list[str]:
    """The argument vector to run: the program (always literal) then each filled element."""
    for name in sorted(set(required)):
        if name in arguments and arguments[name] in (None, []):
            shown = "null" if arguments[name] is None else "an empty list"
            raise CommandArgumentError(
                f"argument {name!r} is required, so it cannot be {shown}: its part of the "
                "command line would be left out and change what the rest means"
            )
    argv = [command[0]]
    options_ended = False  # after a literal "--", nothing the program reads is an option
    for element in command[1:]:
        argv.extend(_fill_element(element, arguments, allow_dash, options_ended))
        options_ended = options_ended or element == END_OF_OPTIONS
    return argv


def _fill_element(
    element: str, arguments: Mapping[str, Any], allow_dash: Sequence[str], options_ended: bool
) -> list[str]:
    parts = parse_element(element)
    names = [part.placeholder for part in parts if part.placeholder is not None]
    if any(arguments.get(name) is None for name in names):
        return []  # an absent optional argument drops its element
    whole = whole_placeholder(element)
    if whole is not None and isinstance(arguments[whole], list):
        values = [_text(whole, item, inside_list=True) for item in arguments[whole]]
        culprits = [whole] if any(value.startswith("-") for value in values) else []
    else:
        texts = [_part_text(part, arguments) for part in parts]
        values = ["".join(texts)]
        culprits = _dash_culprits(parts, texts)
    if any("\0" in value for value in values):  # no program can receive one; say so plainly
        raise CommandArgumentError(f"argument {names[0]!r} contains a NUL character")
    refused = [name for name in culprits if name not in allow_dash]
    if refused and not options_ended:
        value = next(value for value in values if value.startswith("-"))
        raise CommandArgumentError(
            f"argument {refused[0]!r} starts with '-' ({_shown(value)}), which the program "
            "would read as an option; this tool does not accept that (the definition can "
            f'allow it with "allow_dash": [{json.dumps(refused[0])}], or end the options with '
            'a "--" element before it)'
        )
    return values


def _dash_culprits(parts: Sequence[Part], texts: Sequence[str]) -> list[str]:
    """The arguments that make a filled element start an option, the likeliest first.

    In an element written with a leading '-' (`-{flag}`, `--x={v}`) it is every value that
    starts with '-' (`-{flag}` filled with `-output` makes `--output`). Otherwise it is the
    value that brings the leading '-', and any empty value before it that exposed it."""
    if not "".join(texts).startswith("-"):
        return []
    if parts[0].placeholder is None:
        return [
            part.placeholder
            for part, text in zip(parts, texts, strict=True)
            if part.placeholder is not None and text.startswith("-")
        ]
    culprits: list[str] = []
    for part, text in zip(parts, texts, strict=True):
        if part.placeholder is not None:
            if text:  # brings the '-': the likeliest culprit
                culprits.insert(0, part.placeholder)
            else:
                culprits.append(part.placeholder)
        if text:
            break
    return culprits


def _part_text(part: Part, arguments: Mapping[str, Any]) -> str:
    if part.placeholder is None:
        return part.text
    return _text(part.placeholder, arguments[part.placeholder], inside_list=False)


def _text(name: str, value: Any, *, inside_list: bool) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise CommandArgumentError(f"argument {name!r} is not a finite number ({value})")
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
