"""The MCP servers documents people already have: parse, validate, normalize, serialize.

Accepted: `{"mcpServers": {...}}` (Claude Desktop, MCP Inspector, Cursor) or VS Code's
`{"servers": {...}}`, as JSON or JSONC. Every problem is collected with its place
(`servers.github.url: ...`) and reported together; nothing partial is ever returned.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from agent.depth import MAX_DEPTH, too_deep
from agent.errors import DocumentError, Problem
from agent.mcp.config.command_document import parse_commands_server
from agent.mcp.config.definitions import HttpDefinition, ServerDefinition, StdioDefinition
from agent.mcp.config.jsonc import strip_jsonc
from agent.mcp.config.names import normalize_server_name, server_name_problem
from agent.mcp.config.oauth import OAuthConfig, missing_issuer, parse_cursor_auth, parse_oauth
from agent.mcp.config.variables import has_references, reference_problems
from agent.text import escape_json_text

WRAPPERS = ("mcpServers", "servers")
CANONICAL_WRAPPER = "mcpServers"

_TYPE_ALIASES = {
    "stdio": "stdio",
    "streamable-http": "streamable-http",
    "http": "streamable-http",  # VS Code
    "streamableHttp": "streamable-http",  # Cline
    "streamable_http": "streamable-http",
    "sse": "sse",
}
_STDIO_FIELDS = frozenset({"command", "args", "cwd", "env"})
_HTTP_FIELDS = frozenset({"url", "headers", "oauth", "auth"})  # auth: Cursor's spelling
# Fields other clients write that cannot change what runs: accepted with a notice.
_IGNORED_FIELDS = frozenset(
    {
        "description",
        "disabled",
        "autoApprove",
        "alwaysAllow",
        "timeout",
        "gallery",
        "version",
        "dev",
        "icon",
        "title",
    }
)
_UNSUPPORTED_FIELD_ADVICE = {
    "envFile": "envFile is not supported; list the variables in env, as ${VAR} references to "
    "read them from your environment",
}
_KNOWN_FIELDS = frozenset(
    {"type"} | _STDIO_FIELDS | _HTTP_FIELDS | _IGNORED_FIELDS | set(_UNSUPPORTED_FIELD_ADVICE)
)
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_ENV_NAME = re.compile(r"[^=\0]+")


@dataclass(frozen=True)
class ServersDocument:
    """A validated document: its servers in document order, and notices worth showing."""

    definitions: tuple[ServerDefinition, ...]
    notices: tuple[str, ...] = ()


def parse_document(text: str, source: str) -> ServersDocument:
    """Parse JSON or JSONC text; raise DocumentError listing every problem."""
    plain = strip_jsonc(text.removeprefix("\ufeff"))
    if not plain.strip():
        raise DocumentError(source, [Problem("", "empty document")])
    too_deep_problem = Problem(
        "",
        f"nested too deeply to read (more than {MAX_DEPTH} levels); an MCP servers document "
        "needs only a few: check that this is the file you meant",
    )
    try:
        data = json.loads(plain, object_pairs_hook=_reject_duplicate_keys)
    except RecursionError:
        raise DocumentError(source, [too_deep_problem]) from None
    except _DuplicateKey as error:
        raise DocumentError(source, [Problem("", f"key {error.key!r} appears twice")]) from None
    except json.JSONDecodeError as error:
        message = f"not valid JSON at line {error.lineno} column {error.colno}: {error.msg}"
        if error.msg == "Extra data":
            message += _fragment_hint(plain)
        raise DocumentError(source, [Problem("", message)]) from None
    if too_deep(data):
        raise DocumentError(source, [too_deep_problem])
    return parse_document_data(data, source)


def _fragment_hint(plain: str) -> str:
    # `"github": {...}` pasted from a README parses as one string followed by extra data.
    start = plain.lstrip()
    if not start.startswith('"'):
        return ""
    try:
        key, _ = json.JSONDecoder().raw_decode(start)
    except json.JSONDecodeError:
        return ""
    if key in WRAPPERS:
        return "; if this is a fragment, wrap it in { ... }"
    return '; if this is a fragment, wrap it in {"mcpServers": { ... }}'


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json.loads keeps the last of two equal keys; two servers of one name is a mistake to show.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def parse_document_data(data: object, source: str) -> ServersDocument:
    """Validate an already-decoded document."""
    problems: list[Problem] = []
    notices: list[str] = []
    if not isinstance(data, dict):
        raise DocumentError(
            source, [Problem("", "expected a JSON object with mcpServers or servers")]
        )
    wrapper = _find_wrapper(data, problems)
    if wrapper is None:
        raise DocumentError(source, problems)
    for key in data:
        if key == wrapper:
            continue
        if key == "inputs":
            notices.append("inputs: ignored (VS Code input prompts are not used by agent)")
        else:
            notices.append(f"{key}: ignored (not part of an MCP servers document)")
    servers = data[wrapper]
    if not isinstance(servers, dict):
        raise DocumentError(source, [Problem(wrapper, "expected an object of servers by name")])
    definitions = []
    for name, raw in servers.items():
        path = _server_path(wrapper, name)
        definition = parse_server(name, raw, path, problems, notices)
        if isinstance(definition, HttpDefinition) and (unbound := missing_issuer(definition.oauth)):
            key = "auth" if isinstance(raw, dict) and "oauth" not in raw else "oauth"
            problems.append(Problem(f"{path}.{key}.issuer", unbound))
        if definition is not None:
            definitions.append(definition)
            notices.extend(_command_line_notices(definition, path))
    problems.extend(name_collisions(list(servers), wrapper))
    if problems:
        raise DocumentError(source, problems)
    return ServersDocument(tuple(definitions), tuple(notices))


def _find_wrapper(data: Mapping[str, Any], problems: list[Problem]) -> str | None:
    present = [key for key in WRAPPERS if key in data]
    if len(present) == 2:
        problems.append(Problem("", "has both mcpServers and servers; keep exactly one"))
        return None
    if present:
        return present[0]
    if "command" in data or "url" in data or "type" in data:
        problems.append(
            Problem(
                "",
                'looks like a single server; wrap it with a name: {"mcpServers": {"NAME": {...}}}',
            )
        )
    elif data and all(_looks_like_server(value) for value in data.values()):
        first = json.dumps(next(iter(data)), ensure_ascii=False)
        problems.append(
            Problem(
                "",
                "looks like servers without a wrapper; write "
                f'{{"mcpServers": {{{first}: {{...}}}}}}',
            )
        )
    elif isinstance(data.get("mcp"), dict) and "servers" in data["mcp"]:
        problems.append(
            Problem(
                "", 'looks like VS Code settings; import the value of "mcp" ({"servers": {...}})'
            )
        )
    else:
        problems.append(
            Problem("", "expected mcpServers (Claude Desktop, Cursor) or servers (VS Code)")
        )
    return None


def _looks_like_server(value: object) -> bool:
    return isinstance(value, dict) and any(key in value for key in ("command", "url", "type"))


def _command_line_notices(definition: ServerDefinition, path: str) -> list[str]:
    # Not an error: paths with spaces exist. But "npx -y foo" in command alone would run a
    # program called "npx -y foo", which is rarely what the person meant.
    if (
        isinstance(definition, StdioDefinition)
        and not definition.args
        and re.search(r"\s", definition.command.strip())
    ):
        return [f"{path}.command: contains spaces; if these are arguments, put them in args"]
    return []


def _server_path(wrapper: str, name: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_-]+", name):
        return f"{wrapper}.{name}"
    # JSON spells line breaks as escapes; bidi and invisible characters need it said too.
    return f"{wrapper}[{escape_json_text(json.dumps(name, ensure_ascii=False))}]"


def name_collisions(names: list[str], wrapper: str) -> list[Problem]:
    """Problems for unprintable and empty names and names equal after normalisation."""
    problems = []
    seen: dict[str, str] = {}
    for name in names:
        normalized = normalize_server_name(name)
        unprintable = server_name_problem(name)
        if unprintable is not None:
            problems.append(Problem(_server_path(wrapper, name), unprintable))
        elif not normalized:
            problems.append(
                Problem(
                    _server_path(wrapper, name),
                    "the name needs at least one letter or digit (it names the server's tools)",
                )
            )
        elif normalized in seen:
            problems.append(
                Problem(
                    wrapper,
                    f"{seen[normalized]!r} and {name!r} both normalise to {normalized!r}; "
                    "rename one",
                )
            )
        else:
            seen[normalized] = name
    return problems


def parse_server(
    name: str, raw: object, path: str, problems: list[Problem], notices: list[str]
) -> ServerDefinition | None:
    """Validate one server object; append problems and return None when it is unusable."""
    if not isinstance(raw, dict):
        problems.append(Problem(path, "expected an object with command or url"))
        return None
    if raw.get("type") == "commands":  # our own type: programs as tools (issue 13)
        return parse_commands_server(name, raw, path, problems)
    before = len(problems)
    # Without command and url, a typo of one of them is the likeliest reading ("cmd").
    likely = () if "command" in raw or "url" in raw else ("command", "url")
    unknown = [
        _unknown_field(key, f"{path}.{key}", likely) for key in raw if key not in _KNOWN_FIELDS
    ]
    transport = _transport(raw, path, problems, unknown)
    if transport is None:
        problems.extend(problem for problem, _ in unknown)
        return None
    allowed = _STDIO_FIELDS if transport == "stdio" else _HTTP_FIELDS
    for key in raw:
        if key == "type" or key in allowed:
            continue
        if key in _STDIO_FIELDS | _HTTP_FIELDS:
            problems.append(Problem(f"{path}.{key}", _wrong_transport_message(key, transport)))
        elif key in _IGNORED_FIELDS:
            notices.append(f"{path}.{key}: ignored (it does not change what runs)")
        elif key in _UNSUPPORTED_FIELD_ADVICE:
            problems.append(Problem(f"{path}.{key}", _UNSUPPORTED_FIELD_ADVICE[key]))
    problems.extend(problem for problem, _ in unknown)
    definition: ServerDefinition
    if transport == "stdio":
        definition = StdioDefinition(
            name=name,
            command=_command(raw.get("command"), f"{path}.command", problems),
            args=tuple(_string_list(raw.get("args", []), f"{path}.args", problems)),
            cwd=_optional_string(raw.get("cwd"), f"{path}.cwd", problems),
            env=_string_map(raw.get("env", {}), f"{path}.env", problems, _ENV_NAME, "variable"),
        )
    else:
        definition = HttpDefinition(
            name=name,
            url=_url(raw.get("url"), f"{path}.url", problems),
            transport="sse" if transport == "sse" else "streamable-http",
            headers=_string_map(
                raw.get("headers", {}), f"{path}.headers", problems, _HEADER_NAME, "header"
            ),
            oauth=_oauth(raw, path, problems),
        )
    return definition if len(problems) == before else None


def _oauth(raw: Mapping[str, Any], path: str, problems: list[Problem]) -> OAuthConfig | None:
    if "oauth" in raw and "auth" in raw:
        problems.append(Problem(f"{path}.auth", "give oauth or Cursor's auth, not both"))
        return None
    if "oauth" in raw:
        return parse_oauth(raw["oauth"], f"{path}.oauth", problems)
    if "auth" in raw:
        return parse_cursor_auth(raw["auth"], f"{path}.auth", problems)
    return None


def _unknown_field(key: str, path: str, likely: tuple[str, ...]) -> tuple[Problem, str | None]:
    """The problem for a field no client defines, and the known field it is probably a typo of."""
    matches = difflib.get_close_matches(key, likely, n=1) or difflib.get_close_matches(
        key, sorted(_KNOWN_FIELDS), n=1
    )
    if matches:
        return Problem(path, f"unknown field (did you mean {matches[0]}?)"), matches[0]
    return Problem(path, "unknown field; it could change what runs, so it is not ignored"), None


def _transport(
    raw: Mapping[str, Any],
    path: str,
    problems: list[Problem],
    unknown: list[tuple[Problem, str | None]],
) -> str | None:
    has_command, has_url = "command" in raw, "url" in raw
    if has_command and has_url:
        problems.append(
            Problem(
                path, "has both command and url; a server is a local command or a URL, not both"
            )
        )
        return None
    declared = raw.get("type")
    if declared is None:
        if not has_command and not has_url:
            # A typo such as "comand" explains itself; "has neither" would only hide it.
            if not any(guess in ("command", "url") for _, guess in unknown):
                problems.append(
                    Problem(path, "has neither command (a local server) nor url (a remote server)")
                )
            return None
        return "stdio" if has_command else "streamable-http"
    if not isinstance(declared, str) or declared not in _TYPE_ALIASES:
        accepted = ", ".join(sorted([*_TYPE_ALIASES, "commands"]))
        problems.append(
            Problem(f"{path}.type", f"unknown type {json.dumps(declared)}; use one of: {accepted}")
        )
        return None
    return _TYPE_ALIASES[declared]


def _wrong_transport_message(key: str, transport: str) -> str:
    if transport == "stdio" and key in ("oauth", "auth"):
        return (
            "not allowed on a stdio server: OAuth is for remote servers (url); give a local "
            "server its credentials in env"
        )
    if transport == "stdio":
        return f"not allowed on a stdio server ({key} belongs to HTTP servers)"
    return f"not allowed on an HTTP server ({key} belongs to local stdio servers)"


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _check_text(
    value: str, path: str, problems: list[Problem], references: bool, secret: bool = False
) -> None:
    if "\0" in value:
        problems.append(Problem(path, "contains a NUL character"))
    if references:
        found = reference_problems(value, secret=secret)
        problems.extend(Problem(path, message) for message in found)
    elif has_references(value):
        problems.append(
            Problem(path, "references are not expanded here; write the value literally")
        )


def _string(
    value: object,
    path: str,
    problems: list[Problem],
    references: bool = True,
    *,
    secret: bool = False,
) -> str:
    """`secret`: an env or header value, which no problem quotes (reference_problems)."""
    if not isinstance(value, str):
        problems.append(Problem(path, f"expected a string, got {_describe(value)}"))
        return ""
    _check_text(value, path, problems, references, secret)
    return value


def _command(value: object, path: str, problems: list[Problem]) -> str:
    if value is None:
        problems.append(Problem(path, "required for a stdio server"))
        return ""
    command = _string(value, path, problems, references=False)
    if isinstance(value, str) and not command.strip():
        problems.append(Problem(path, "must not be empty"))
    return command


def _optional_string(value: object, path: str, problems: list[Problem]) -> str | None:
    if value is None:
        return None
    text = _string(value, path, problems)
    if isinstance(value, str) and not text.strip():
        problems.append(Problem(path, "must not be empty (leave it out to use the default)"))
    return text


def _string_list(value: object, path: str, problems: list[Problem]) -> list[str]:
    if not isinstance(value, list):
        problems.append(Problem(path, f"expected a list of strings, got {_describe(value)}"))
        return []
    return [_string(item, f"{path}[{index}]", problems) for index, item in enumerate(value)]


def _string_map(
    value: object, path: str, problems: list[Problem], key_rule: re.Pattern[str], noun: str
) -> dict[str, str]:
    if not isinstance(value, dict):
        problems.append(Problem(path, f"expected an object of strings, got {_describe(value)}"))
        return {}
    result = {}
    for key, item in value.items():
        item_path = f"{path}.{key}"
        if not key_rule.fullmatch(key):
            problems.append(Problem(item_path, f"not a valid {noun} name"))
        text = _string(item, item_path, problems, secret=True)
        if noun == "header" and ("\r" in text or "\n" in text):
            problems.append(Problem(item_path, "header values cannot contain line breaks"))
        result[key] = text
    return result


def _url(value: object, path: str, problems: list[Problem]) -> str:
    if value is None:
        problems.append(Problem(path, "required for an HTTP server"))
        return ""
    before = len(problems)
    url = _string(value, path, problems)
    if len(problems) == before:
        problems.extend(Problem(path, message) for message in url_problems(url))
    return url


def url_problems(url: str) -> list[str]:
    """Why `url` cannot be used for an MCP server. References are checked after expansion."""
    if url.startswith("${"):
        return []  # the scheme and host come from a variable; checked again at start
    probe = re.sub(r"\$\{[^}]*\}", "x", url)
    try:
        parts = urlsplit(probe)
        parts.port  # noqa: B018  (raises ValueError on a bad port)
    except ValueError as error:
        # Never the parser's words: they quote the part it choked on, which is a token's when
        # a '/' or '#' in `user:TOKEN@host` ends the host early (the token reads as a port).
        where = (
            "its port is not a number from 0 to 65535"
            if "Port" in str(error)
            else "its host cannot be read"
        )
        return [f"not a valid URL ({where}; credentials belong in a header, not the URL)"]
    if parts.scheme not in ("http", "https"):
        return ["must start with http:// or https://"]
    if parts.username is not None or parts.password is not None:
        return ["embedded credentials are not allowed; send them in headers instead"]
    if not parts.hostname:
        return ["has no host"]
    return []


def serialize_document(definitions: tuple[ServerDefinition, ...] | list[ServerDefinition]) -> str:
    """The canonical document: mcpServers wrapper, explicit type, 2-space indent, document order."""
    document = {CANONICAL_WRAPPER: {d.name: d.to_json() for d in definitions}}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
