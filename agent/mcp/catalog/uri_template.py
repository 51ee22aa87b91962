"""RFC 6570 URI templates, as resource templates use them: their variables, and expansion.

Levels 1 to 3 (one variable or a comma list per expression; operators + # . / ; ? &), which is
what MCP servers write. Values are percent-encoded as the operator says, so a value like
`../secret` or `a/b?c` stays inside its variable instead of reaching other resources; only
`{+var}` and `{#var}` let reserved characters through, as the template's author chose.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^{}]*)\}")
_UNRESERVED = "-._~"
_RESERVED = ":/?#[]@!$&'()*+,;="

# operator -> (first, separator, named, reserved allowed)
_OPERATORS: dict[str, tuple[str, str, bool, bool]] = {
    "": ("", ",", False, False),
    "+": ("", ",", False, True),
    "#": ("#", ",", False, True),
    ".": (".", ".", False, False),
    "/": ("/", "/", False, False),
    ";": (";", ";", True, False),
    "?": ("?", "&", True, False),
    "&": ("&", "&", True, False),
}


def variables(template: str) -> list[str]:
    """The template's variable names in order of appearance, each once."""
    names: list[str] = []
    for match in _EXPRESSION.finditer(template):
        for spec in match[2].split(","):
            name = spec.split(":")[0].rstrip("*").strip()
            if name and name not in names:
                names.append(name)
    return names


def expand(template: str, values: Mapping[str, str]) -> str:
    """The URI for `values`; a variable without a value expands to nothing (RFC 6570)."""

    def expression(match: re.Match[str]) -> str:
        first, separator, named, reserved = _OPERATORS[match[1]]
        safe = _UNRESERVED + (_RESERVED if reserved else "")
        parts = []
        for spec in match[2].split(","):
            name, _, prefix = spec.rstrip("*").partition(":")
            value = values.get(name.strip())
            if value is None:
                continue
            if prefix.isdigit():
                value = value[: int(prefix)]
            encoded = quote(value, safe=safe)
            if named:
                encoded = f"{name}={encoded}" if encoded or match[1] != ";" else name
            parts.append(encoded)
        return first + separator.join(parts) if parts else ""

    return _EXPRESSION.sub(expression, template)
