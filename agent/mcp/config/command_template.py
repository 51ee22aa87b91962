"""The command line a command tool declares: literal text with `{name}` placeholders.

`{{` and `}}` are literal braces. The configuration checks a command line with these functions
when it reads the document; programs/command_line.py fills one from the model's arguments at run
time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)\}")
_BRACED = re.compile(r"\{[^{}]*\}")
END_OF_OPTIONS = "--"


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


def unknown_forms(element: str) -> list[str]:
    """`{...}` text in an element that is not a placeholder ({my arg}, {a.b}) nor `{{`/`}}`."""
    return _BRACED.findall(_TOKEN.sub("", element))


def whole_placeholder(element: str) -> str | None:
    """The argument name when the element is exactly one placeholder, else None."""
    parts = parse_element(element)
    if len(parts) == 1 and parts[0].placeholder is not None:
        return parts[0].placeholder
    return None
