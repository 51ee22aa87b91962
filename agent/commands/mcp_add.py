"""`agent mcp add NAME -- COMMAND [ARGS...]` and `agent mcp add NAME URL`: one server.

The spelling of Claude Code, Codex and Gemini CLI (`-e/--env KEY=VALUE`, `-H/--header 'Name:
value'`, both repeatable). The server is checked as an imported document's would be and saved
through the store (disabled, untrusted, the previous configuration kept as the backup). The
values of --env and --header may be secrets: no line here prints one, nor any part of an
argument that failed to parse (an `--env` without `=` may be the value alone).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NoReturn

from agent.commands.mcp_config import describe_target
from agent.commands.output import say
from agent.errors import AgentError, DocumentError, Problem, ServerExistsError
from agent.mcp import editing
from agent.mcp.config.definitions import ServerDefinition
from agent.mcp.config.document import ServersDocument, parse_document_data
from agent.mcp.store import McpStore
from agent.text import sanitize_line

# Stricter than a document's names: a flag's name that is not a variable name is most likely a
# value typed in the wrong place, and a name is printed where values never are.
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110's token, as documents check


def add_command(
    store: McpStore,
    name: str,
    target: Sequence[str],
    *,
    env: Sequence[str] | None,
    header: Sequence[str] | None,
    replace: bool,
) -> int:
    """Save one new server (or, with `replace`, one in place of the server of that name)."""
    definition = _definition(name, target, env or (), header or ())
    try:
        report = store.add(definition, replace_existing=replace)
    except ServerExistsError as error:
        raise AgentError(
            f"an MCP server named {error.name!r} is configured already; nothing saved. Add "
            "--replace to replace it (its trust and tools start over), or choose another name"
        ) from None
    verb = "Replaced {} in" if report.changed else "Added {} to"
    where = sanitize_line(str(report.path))
    say(f"{verb.format(definition.name)} {where}: {describe_target(definition)}")
    for line in editing.report_lines(report, ServersDocument((definition,), ()))[1:]:
        if not line.startswith("  "):  # the saved servers by change: said above already
            say(line)
    return 0


def _definition(
    name: str, target: Sequence[str], env: Sequence[str], header: Sequence[str]
) -> ServerDefinition:
    _refuse_split_values(env, header)
    if "://" in target[0]:
        if len(target) > 1:
            _refuse("a URL takes no arguments (for a local server, write -- before its command)")
        if env:
            _refuse("--env is for a local server's program; a remote server takes --header")
        body: dict[str, Any] = {"type": "http", "url": target[0], "headers": _headers(header)}
    else:
        if header:
            _refuse("--header is for a remote server (a URL); a local server takes --env")
        body = {"command": target[0], "args": list(target[1:]), "env": _variables(env)}
    try:
        document = parse_document_data({"mcpServers": {name: body}}, "agent mcp add")
    except DocumentError as error:
        _refuse("; ".join(_problem(problem) for problem in error.problems))
    return document.definitions[0]


def _refuse_split_values(env: Sequence[str], header: Sequence[str]) -> None:
    """An empty value is most likely one split from its flag by a space (`-H Authorization:
    "Bearer TOKEN"`): the secret is then the next argument, the server's name or command,
    which is printed everywhere. So it is refused before anything else is read."""
    for flag, given, separator, advice in (
        ("--env", env, "=", "KEY=VALUE"),
        ("--header", header, ":", "'Name: value'"),
    ):
        for index, item in enumerate(given, 1):
            key, found, value = item.partition(separator)
            if found and key.strip() and not value.strip():
                _refuse(
                    f"the {_nth(index)} {flag} has no value after '{separator}' (quote "
                    f"{advice} as one argument)"
                )


def _variables(given: Sequence[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for index, item in enumerate(given, 1):
        key, equals, value = item.partition("=")
        if not equals:
            _refuse(f"--env takes KEY=VALUE, and the {_nth(index)} --env has no '='")
        if not _VARIABLE.fullmatch(key):
            _refuse(
                f"the {_nth(index)} --env's name is not a variable name (letters, digits and _, "
                "not starting with a digit)"
            )
        if key in env:
            _refuse(f"--env {key} is given twice")
        env[key] = value
    return env


def _headers(given: Sequence[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for index, item in enumerate(given, 1):
        key, colon, value = item.partition(":")
        key = key.strip()
        if not colon:
            _refuse(f"--header takes 'Name: value', and the {_nth(index)} --header has no ':'")
        if not _HEADER.fullmatch(key):
            _refuse(f"the {_nth(index)} --header's name is not a header name")
        if key.lower() in (known.lower() for known in headers):
            _refuse(f"--header {key} is given twice")
        headers[key] = value.strip()
    return headers


def _problem(problem: Problem) -> str:
    """A document problem in the words of the command line (the paths name no value)."""
    path = problem.path
    found = re.search(r"\.args\[(\d+)\]$", path)
    if found:
        field = f"argument {int(found[1]) + 1}"
    elif path.endswith(".url"):
        field = "the URL"
    elif path.endswith(".command"):
        field = "the command"
    elif (found := re.search(r"\.(env|headers)\.([^.]+)$", path)) is not None:
        field = f"--{'env' if found[1] == 'env' else 'header'} {found[2]}"
    else:
        return problem.message  # about the name, which it names
    return f"{field}: {problem.message}"


def _nth(index: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(index if index < 20 else index % 10, "th")
    return f"{index}{suffix}"


def _refuse(reason: str) -> NoReturn:
    raise AgentError(f"{reason}; nothing saved")
