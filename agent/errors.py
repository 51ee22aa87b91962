"""Every error a person may see, in one tree.

    AgentError                    something failed; the message says what, where, and what to do
    ├── SettingsError             settings.yaml is unreadable or has an unknown/mistyped key
    ├── DocumentError             an MCP servers document has problems; it lists them all
    ├── StoreError                mcp-servers.json cannot be read or is malformed; never repaired
    │   ├── TokenStoreError       the OAuth token file is damaged or readable by others
    │   └── ConcurrentEditError   the store changed while the person was editing it
    ├── UnknownServerError        a command named a server that is not configured
    └── McpServerError            a configured server cannot be used right now
        ├── ExpansionError        a ${VAR} reference cannot be expanded when a server starts
        ├── ToolNameCollisionError  two tools of one server map to the same model tool name
        ├── NotTrustedError       a stdio definition was never trusted, or trust was declined
        ├── ServerStartError      the process or connection failed before the handshake ended
        │   └── NeedsLoginError   an OAuth server has no usable token: run agent mcp login NAME
        ├── LoginError            agent mcp login could not finish (the message says why)
        ├── ServerOfflineError    the server died and its one restart failed (or none is allowed)
        └── ToolCallError         one call failed (timeout, crash, protocol error)
            └── ToolTimeoutError  the call took longer than the tool timeout

Catch narrowly, at the boundary that can act (the CLI prints `str(error)` and exits non-zero).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.text import sanitize_line


class AgentError(Exception):
    """Base of every error the app reports to a person."""


class SettingsError(AgentError):
    """The settings file cannot be used."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a document, at a dotted path such as `servers.github.url`."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class DocumentError(AgentError):
    """An MCP servers document was rejected; `problems` holds every problem found."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = tuple(problems)
        # One line per problem: a key or name quoted from the document cannot add lines.
        lines = [sanitize_line(f"{source}: {problem}") for problem in self.problems]
        super().__init__("\n".join(lines))


class StoreError(AgentError):
    """The MCP configuration store cannot be read or written."""


class TokenStoreError(StoreError):
    """The OAuth token file cannot be used as it is; it is never overwritten or repaired."""


class ConcurrentEditError(StoreError):
    """Another process saved the configuration while this one was editing it."""


class UnknownServerError(AgentError):
    """No configured server has the given name."""


class ServerExistsError(AgentError):
    """A server being added has the name of one already configured (`name`, as saved)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"an MCP server named {name!r} is configured already")


class McpServerError(AgentError):
    """A configured MCP server cannot be used; the message names the server."""


class ExpansionError(McpServerError):
    """A variable reference in a server definition cannot be expanded."""


class ToolNameCollisionError(McpServerError):
    """Two tools of one server map to the same model-facing name."""


class NotTrustedError(McpServerError):
    """A stdio server's exact definition has not been trusted by the person."""


class ServerStartError(McpServerError):
    """Starting or connecting failed; the message carries the server's stderr tail if any."""


class NeedsLoginError(ServerStartError):
    """An OAuth server has no usable token; only `agent mcp login NAME` (or /mcp login) helps."""

    def __init__(self, server: str, reason: str = "") -> None:
        self.server = server
        import shlex

        detail = f" ({reason})" if reason else ""
        command = f"agent mcp login {shlex.quote(server)}"
        super().__init__(sanitize_line(f"{server} needs login{detail}: run {command}"))


class LoginError(McpServerError):
    """`agent mcp login` could not finish; the message says why and what to do."""


class ServerOfflineError(McpServerError):
    """The server is offline until the person restarts it."""


class ToolCallError(McpServerError):
    """One tool call failed; the server may still be fine."""


class ToolTimeoutError(ToolCallError):
    """A tool call took longer than the tool timeout."""


# Where a lost server's error gives its last stderr lines: the model gets them (they say why it
# stopped); the chat's tool-call line stops before them, so a crash is one line on screen.
STDERR_TAIL_HEADING = "Last lines of its stderr:"
