"""Where a partly typed URI stands in an RFC 6570 resource template: for completion.

Only what completion needs: the literal text up to the next variable, or which variable is
being typed, its value so far and the values of the variables before it (completion/complete
takes those as context). Expressions like `{+path}` or `{?q,page}` count as their first name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_EXPRESSION = re.compile(r"(\{[^}]*\})")
_OPERATORS = "+#./;?&"


@dataclass(frozen=True)
class TemplateState:
    """How far `typed` got in a template."""

    before: str  # the typed text before the variable being typed
    variable: str | None  # the variable being typed; None while in literal text
    value: str = ""  # what is typed of that variable
    context: dict[str, str] = field(default_factory=dict)  # earlier variables' values
    literal: str = ""  # variable None: the typed text completed up to the next variable
    operator: str = ""  # the variable's RFC 6570 operator ("", "+", "/", "?", ...)


def template_state(template: str, typed: str) -> TemplateState | None:
    """None when `typed` cannot be the start of a URI from `template`."""
    segments = [segment for segment in _EXPRESSION.split(template) if segment]
    position = 0
    context: dict[str, str] = {}
    for index, segment in enumerate(segments):
        rest = typed[position:]
        if not segment.startswith("{"):
            if rest.startswith(segment):
                position += len(segment)
                continue
            if segment.startswith(rest):
                return TemplateState(typed[:position], None, literal=typed[:position] + segment)
            return None
        name, operator = _name(segment), segment[1:2] if segment[1:2] in _OPERATORS else ""
        following = next((s for s in segments[index + 1 :] if not s.startswith("{")), "")
        if following and following[0] in rest:
            end = rest.index(following[0])
            context[name] = rest[:end]
            position += end
            continue
        return TemplateState(typed[:position], name, rest, dict(context), operator=operator)
    return None


def _name(expression: str) -> str:
    names = expression[1:-1].lstrip(_OPERATORS)
    return names.split(",")[0].split(":")[0].rstrip("*")
