"""`${VAR}` references in server definitions: checked when saved, expanded only at start.

Keeping references unexpanded in the store means people need not write secrets into it.
Supported: `${VAR}` and `${env:VAR}` (environment variables), plus VS Code's `${userHome}` and
`${workspaceFolder}` (the project directory). VS Code's `${input:...}` prompts are rejected.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from agent.errors import ExpansionError

_REFERENCE = re.compile(r"\$\{([^}]*)\}")
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
BUILTIN_VARIABLES = ("userHome", "workspaceFolder")


def reference_problems(text: str, *, secret: bool = False) -> list[str]:
    """Why the references in `text` cannot be used (empty when they all can).

    `secret`: `text` is an env or header value, which may be a key pasted inside `${...}` (a
    template's `${YOUR_API_KEY}` filled in): such a reference is then described, never quoted.
    VS Code's `${input:ID}` names a prompt of its own, no value, and is quoted as written.
    """
    problems = []
    for match in _REFERENCE.finditer(text):
        inner = match.group(1)
        shown = "a ${...} in the value (not shown: it may be a secret)" if secret else match[0]
        if inner.startswith("input:"):
            problems.append(
                f"{match.group(0)} asks VS Code to prompt for a value, which agent cannot do; "
                "use a literal value or an environment variable reference such as ${env:NAME}"
            )
        elif _variable_name(inner) is None:
            problems.append(
                f"{shown} is not a supported reference; use ${{NAME}} or ${{env:NAME}} "
                "for an environment variable"
            )
    remainder = _REFERENCE.sub("", text)
    if "${" in remainder:
        problems.append("unclosed ${ (a reference looks like ${NAME})")
    return problems


def has_references(text: str) -> bool:
    """True when `text` contains at least one `${...}` reference."""
    return _REFERENCE.search(text) is not None


def references_environment(text: str) -> bool:
    """True when `text` takes a value from an environment variable (which may be a secret)."""
    return any(match.group(1) not in BUILTIN_VARIABLES for match in _REFERENCE.finditer(text))


def _variable_name(inner: str) -> str | None:
    name = inner.removeprefix("env:")
    return name if _VARIABLE_NAME.fullmatch(name) else None


@dataclass(frozen=True)
class Expander:
    """Expands references using an environment and the builtin values, at server start."""

    environ: Mapping[str, str]
    user_home: str
    workspace_folder: str

    def expand(self, text: str, where: str) -> str:
        """`text` with every reference replaced; a missing variable names itself and `where`."""

        def replace(match: re.Match[str]) -> str:
            inner = match.group(1)
            if inner == "userHome":
                return self.user_home
            if inner == "workspaceFolder":
                return self.workspace_folder
            name = _variable_name(inner)
            if name is None:
                raise ExpansionError(f"{where}: unsupported reference {match.group(0)}")
            if name not in self.environ:
                # Only the name: there is no value to leak, and we never echo other values.
                raise ExpansionError(
                    f"{where}: environment variable {name} is not set; set it before "
                    "starting agent, or change the server definition (agent mcp edit)"
                )
            return self.environ[name]

        return _REFERENCE.sub(replace, text)


def referenced_variables(text: str) -> list[str]:
    """The environment variables `text` refers to (`${NAME}`, `${env:NAME}`), in order."""
    names = (_variable_name(match.group(1)) for match in _REFERENCE.finditer(text))
    return [name for name in names if name is not None]
