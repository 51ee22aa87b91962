"""Validating a `"type": "commands"` server object, every problem with its field path.

The program (first element of `command`) is a literal: no placeholder and no `${...}`, so
what runs is decided by the person who wrote the definition, never by the model. Every
placeholder names a property of the tool's input schema; unknown fields are rejected.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from agent.errors import Problem
from agent.mcp.config.command_definitions import (
    DEFAULT_TIMEOUT_SECONDS,
    CommandsDefinition,
    CommandTool,
)
from agent.mcp.config.command_template import (
    END_OF_OPTIONS,
    placeholders,
    unknown_forms,
    whole_placeholder,
)
from agent.mcp.config.variables import has_references, reference_problems
from agent.tools.validation import schema_problem

SERVER_FIELDS = frozenset({"type", "cwd", "env", "tools"})
TOOL_FIELDS = frozenset({"description", "command", "input_schema", "timeout", "allow_dash"})
MAX_TIMEOUT_SECONDS = 24 * 3600.0
# What the model sees as mcp__server__tool: letters, digits, _ and -, as MCP tool names.
_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ENV_NAME = re.compile(r"[^=\0]+")
_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def parse_commands_server(
    name: str, raw: Mapping[str, Any], path: str, problems: list[Problem]
) -> CommandsDefinition | None:
    """Validate one commands server; append problems and return None when it is unusable."""
    before = len(problems)
    for key in raw:
        if key not in SERVER_FIELDS:
            problems.append(Problem(f"{path}.{key}", _unknown(key, SERVER_FIELDS)))
    cwd = raw.get("cwd")
    if cwd is not None and not _text_ok(cwd, f"{path}.cwd", problems, references=True):
        cwd = None
    env = _env(raw.get("env", {}), f"{path}.env", problems)
    tools = _tools(raw.get("tools"), f"{path}.tools", problems)
    if len(problems) != before:
        return None
    return CommandsDefinition(name=name, tools=tools, cwd=cwd, env=env)


def _unknown(key: str, known: frozenset[str]) -> str:
    return (
        f"unknown field (known: {', '.join(sorted(known))}); it could change what runs, "
        "so it is not ignored"
    )


def _text_ok(
    value: object, path: str, problems: list[Problem], *, references: bool, secret: bool = False
) -> bool:
    if not isinstance(value, str):
        got = type(value).__name__ if secret else json.dumps(value)[:40]  # a value is not quoted
        problems.append(Problem(path, f"expected a string, got {got}"))
        return False
    if "\0" in value:
        problems.append(Problem(path, "contains a NUL character"))
        return False
    if references:
        found = reference_problems(value, secret=secret)
        problems.extend(Problem(path, message) for message in found)
        return not found
    return True


def _env(value: object, path: str, problems: list[Problem]) -> dict[str, str]:
    if not isinstance(value, dict):
        problems.append(Problem(path, "expected an object of strings"))
        return {}
    env = {}
    for key, item in value.items():
        if not _ENV_NAME.fullmatch(key):
            problems.append(Problem(f"{path}.{key}", "not a valid variable name"))
        if _text_ok(item, f"{path}.{key}", problems, references=True, secret=True):
            env[key] = item
    return env


def _tools(value: object, path: str, problems: list[Problem]) -> tuple[CommandTool, ...]:
    if value is None:
        problems.append(
            Problem(path, 'required for a commands server: {"NAME": {"command": [...]}}')
        )
        return ()
    if not isinstance(value, dict) or not value:
        problems.append(Problem(path, "expected an object of tools by name (at least one)"))
        return ()
    tools = []
    for name, raw in value.items():
        tool_path = (
            f"{path}.{name}" if _TOOL_NAME.fullmatch(name) else f"{path}[{json.dumps(name)}]"
        )
        if not _TOOL_NAME.fullmatch(name):
            problems.append(Problem(tool_path, "a tool name is 1-64 letters, digits, _ or -"))
        tool = _tool(name, raw, tool_path, problems)
        if tool is not None:
            tools.append(tool)
    return tuple(tools)


def _tool(name: str, raw: object, path: str, problems: list[Problem]) -> CommandTool | None:
    if not isinstance(raw, dict):
        problems.append(Problem(path, 'expected an object with "command"'))
        return None
    before = len(problems)
    for key in raw:
        if key not in TOOL_FIELDS:
            problems.append(Problem(f"{path}.{key}", _unknown(key, TOOL_FIELDS)))
    description = raw.get("description")
    if description is not None:
        _text_ok(description, f"{path}.description", problems, references=False)
    schema = _schema(raw.get("input_schema", _EMPTY_SCHEMA), f"{path}.input_schema", problems)
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    command = _command(raw.get("command"), f"{path}.command", properties, problems)
    _dangling_options(command, _required(schema), f"{path}.command", problems)
    allow_dash = _allow_dash(raw.get("allow_dash", []), f"{path}.allow_dash", properties, problems)
    timeout = _timeout(raw.get("timeout", DEFAULT_TIMEOUT_SECONDS), f"{path}.timeout", problems)
    if len(problems) != before:
        return None
    return CommandTool(
        name=name,
        command=command,
        input_schema=schema,
        description=description,
        timeout=timeout,
        allow_dash=allow_dash,
    )


def _schema(value: object, path: str, problems: list[Problem]) -> dict[str, Any]:
    if not isinstance(value, dict) or value.get("type") != "object":
        problems.append(Problem(path, 'expected a JSON schema object with "type": "object"'))
        return {}
    properties = value.get("properties", {})
    if not isinstance(properties, dict) or not all(
        isinstance(p, dict) for p in properties.values()
    ):
        problems.append(Problem(f"{path}.properties", "expected an object of property schemas"))
        return {}
    required = value.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        problems.append(Problem(f"{path}.required", "expected a list of property names"))
    else:
        for index, item in enumerate(required):
            if item not in properties:
                problems.append(Problem(f"{path}.required[{index}]", f"{item!r} is not a property"))
    _schema_itself(value, path, problems)
    return value


def _schema_itself(schema: dict[str, Any], path: str, problems: list[Problem]) -> None:
    """The schema is valid JSON Schema and refers only within itself (`#...`): a reference
    elsewhere is never fetched, so every call of the tool would fail."""
    for where, ref in _references(schema, path):
        if not ref.startswith("#"):
            problems.append(
                Problem(where, f"{ref[:80]!r} refers outside the schema; use a local #/$defs/...")
            )
    invalid = schema_problem(schema)  # loads jsonschema: only when a document has commands
    if invalid is not None:
        parts, message = invalid
        inner = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)
        problems.append(Problem(f"{path}{inner}", f"not a valid JSON schema: {message}"))


def _references(node: object, path: str) -> list[tuple[str, str]]:
    """Every `$ref` / `$dynamicRef` string in a schema, with its field path."""
    found: list[tuple[str, str]] = []
    if isinstance(node, dict):
        for key, item in node.items():
            where = f"{path}.{key}"
            if key in ("$ref", "$dynamicRef") and isinstance(item, str):
                found.append((where, item))
            else:
                found.extend(_references(item, where))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found.extend(_references(item, f"{path}[{index}]"))
    return found


def _command(
    value: object, path: str, properties: Mapping[str, Any], problems: list[Problem]
) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        problems.append(
            Problem(path, 'expected a list of strings, the program first: ["git", "log"]')
        )
        return ()
    elements = []
    for index, element in enumerate(value):
        where = f"{path}[{index}]"
        if not _text_ok(element, where, problems, references=False):
            continue
        if has_references(element):
            problems.append(
                Problem(where, "${...} is not expanded in a command; use cwd or env for that")
            )
            continue  # its {NAME} is part of the reference, not a placeholder to report
        elements.append(element)
        _element_problems(element, where, index, properties, problems)
    return tuple(elements)


def _required(schema: Mapping[str, Any]) -> set[str]:
    required = schema.get("required", [])
    return (
        {name for name in required if isinstance(name, str)}
        if isinstance(required, list)
        else set()
    )


def _dangling_options(
    command: tuple[str, ...], required: set[str], path: str, problems: list[Problem]
) -> None:
    """An element with an optional argument must not follow a literal option that takes a
    value: when the argument is absent its element is dropped, and the option would take the
    next element as its value (`sort -o {out} {file}` without out writes over file)."""
    for index in range(2, len(command)):
        option, element = command[index - 1], command[index]
        optional = [name for name in placeholders(element) if name not in required]
        # An element that is itself an option (`--max={n}`) shows the one before is a flag.
        if not optional or placeholders(option) or not _takes_a_value(option):
            continue
        if element.startswith("-"):
            continue
        problems.append(
            Problem(
                f"{path}[{index}]",
                f"{{{optional[0]}}} is optional and follows the option {option!r}: when it is "
                f"absent this element is left out and {option!r} would take the next element "
                f'as its value; write them as one element ("{option}={{{optional[0]}}}" or '
                f'"{option}{{{optional[0]}}}"), make {optional[0]!r} required, or put "--" '
                "between them if the option takes no value",
            )
        )


def _takes_a_value(element: str) -> bool:
    """Whether a literal element may be an option that takes the next element as its value."""
    return element.startswith("-") and element != END_OF_OPTIONS and "=" not in element


def _element_problems(
    element: str, where: str, index: int, properties: Mapping[str, Any], problems: list[Problem]
) -> None:
    names = placeholders(element)
    for form in unknown_forms(element):
        problems.append(
            Problem(
                where,
                f"{form[:40]!r} is not a placeholder (a name is letters, digits, _ and -, "
                "starting with a letter or _); write {{ and }} for literal braces",
            )
        )
    if index == 0:
        if names or not element.strip():
            problems.append(
                Problem(where, "the program must be a literal name or path, never a placeholder")
            )
        return
    for name in names:
        if name not in properties:
            known = ", ".join(sorted(properties)) or "none"
            problems.append(
                Problem(
                    where, f"{{{name}}} names no property of input_schema (its properties: {known})"
                )
            )
        elif _is_array(properties[name]) and whole_placeholder(element) != name:
            problems.append(Problem(where, f"{{{name}}} is a list, so it must be a whole element"))


def _is_array(schema: object) -> bool:
    kind = schema.get("type") if isinstance(schema, dict) else None
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def _allow_dash(
    value: object, path: str, properties: Mapping[str, Any], problems: list[Problem]
) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(Problem(path, "expected a list of argument names"))
        return ()
    for index, item in enumerate(value):
        if item not in properties:
            problems.append(Problem(f"{path}[{index}]", f"{item!r} is not a property"))
    return tuple(value)


def _timeout(value: object, path: str, problems: list[Problem]) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 < value <= MAX_TIMEOUT_SECONDS
    ):
        problems.append(
            Problem(path, f"expected seconds, a number above 0 and at most {MAX_TIMEOUT_SECONDS:g}")
        )
        return DEFAULT_TIMEOUT_SECONDS
    return float(value)
