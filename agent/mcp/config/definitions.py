"""Normalized server definitions: what a configured MCP server would run or connect to."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from agent.mcp.config.command_definitions import CommandsDefinition
from agent.mcp.config.oauth import OAuthConfig
from agent.mcp.config.variables import has_references

HttpTransport = Literal["streamable-http", "sse"]


@dataclass(frozen=True)
class StdioDefinition:
    """A local server: a command we spawn (never through a shell) and talk to over stdio."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)

    @property
    def transport(self) -> Literal["stdio"]:
        return "stdio"

    def to_json(self) -> dict[str, Any]:
        """The canonical server object (explicit type, empty optional fields left out)."""
        data: dict[str, Any] = {"type": "stdio", "command": self.command}
        if self.args:
            data["args"] = list(self.args)
        if self.cwd is not None:
            data["cwd"] = self.cwd
        if self.env:
            data["env"] = dict(self.env)
        return data

    def literal_secret_names(self) -> list[str]:
        """Env names whose values are written literally rather than as ${VAR} references."""
        return [key for key, value in self.env.items() if not has_references(value)]


@dataclass(frozen=True)
class HttpDefinition:
    """A remote server reached over streamable HTTP or the legacy HTTP+SSE transport."""

    name: str
    url: str
    transport: HttpTransport = "streamable-http"
    headers: dict[str, str] = field(default_factory=dict)
    oauth: OAuthConfig | None = None

    def to_json(self) -> dict[str, Any]:
        """The canonical server object (explicit type, empty optional fields left out)."""
        data: dict[str, Any] = {"type": self.transport, "url": self.url}
        if self.headers:
            data["headers"] = dict(self.headers)
        if self.oauth is not None:
            data["oauth"] = self.oauth.to_json()
        return data

    def has_authorization_header(self) -> bool:
        """A configured Authorization header means the person manages the credential: no OAuth."""
        return any(key.lower() == "authorization" for key in self.headers)

    def literal_secret_names(self) -> list[str]:
        """Header names whose values are written literally rather than as ${VAR} references."""
        return [key for key, value in self.headers.items() if not has_references(value)]


ServerDefinition = StdioDefinition | HttpDefinition | CommandsDefinition
# Servers that run programs on this computer: trusted by what they run, before they start.
LocalDefinition = StdioDefinition | CommandsDefinition
LOCAL_DEFINITIONS = (StdioDefinition, CommandsDefinition)


def is_local(definition: ServerDefinition) -> bool:
    """True for servers that run programs here (stdio, commands): they need trust."""
    return isinstance(definition, LOCAL_DEFINITIONS)


def fingerprint(definition: ServerDefinition) -> str:
    """sha256 of the canonical JSON of the definition: any change to what runs changes it."""
    canonical = json.dumps(
        {"name": definition.name, **definition.to_json()},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def display_url(url: str) -> str:
    """The URL with query values hidden: some servers take API keys as query parameters."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    hidden = urlencode([(key, "***") for key, _ in parse_qsl(parts.query, keep_blank_values=True)])
    return urlunsplit(parts._replace(query=hidden.replace("%2A", "*")))
