"""A `"type": "commands"` server: ordinary programs offered as MCP tools, no MCP server needed.

    {"git": {"type": "commands", "cwd": "${workspaceFolder}", "tools": {
      "log": {"description": "Recent commits", "command": ["git", "log", "-n", "{count}"],
              "input_schema": {"type": "object", "properties": {"count": {"type": "integer"}},
                               "required": ["count"]},
              "timeout": 30, "allow_dash": []}}}}

The definition is data only; config/command_document.py validates it, programs/command_line.py
fills a command line, programs/server.py serves it in-process (behind the SDK's in-memory
transport, which client/transports.py opens).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agent.mcp.config.variables import has_references

DEFAULT_TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class CommandTool:
    """One tool: a command line (the program a literal), its arguments' schema and limits."""

    name: str
    command: tuple[str, ...]
    input_schema: dict[str, Any]
    description: str | None = None
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    allow_dash: tuple[str, ...] = ()

    @property
    def program(self) -> str:
        """The program as written: always a literal (validation refuses placeholders in it)."""
        return self.command[0]

    @property
    def required(self) -> frozenset[str]:
        """The arguments the schema requires (its top-level `required`, as validation reads it)."""
        names = self.input_schema.get("required", [])
        if not isinstance(names, list):
            return frozenset()
        return frozenset(name for name in names if isinstance(name, str))

    def to_json(self) -> dict[str, Any]:
        """The canonical tool object (defaults left out)."""
        data: dict[str, Any] = {}
        if self.description is not None:
            data["description"] = self.description
        data["command"] = list(self.command)
        data["input_schema"] = self.input_schema
        if self.timeout != DEFAULT_TIMEOUT_SECONDS:
            data["timeout"] = int(self.timeout) if self.timeout.is_integer() else self.timeout
        if self.allow_dash:
            data["allow_dash"] = list(self.allow_dash)
        return data


@dataclass(frozen=True)
class CommandsDefinition:
    """A local server whose tools run programs directly (never a shell), in-process."""

    name: str
    tools: tuple[CommandTool, ...]
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)

    @property
    def transport(self) -> Literal["commands"]:
        return "commands"

    def to_json(self) -> dict[str, Any]:
        """The canonical server object (explicit type, empty optional fields left out)."""
        data: dict[str, Any] = {"type": "commands"}
        if self.cwd is not None:
            data["cwd"] = self.cwd
        if self.env:
            data["env"] = dict(self.env)
        data["tools"] = {tool.name: tool.to_json() for tool in self.tools}
        return data

    def target(self) -> str:
        """One line for lists: each tool and the program it runs."""
        return "tools: " + ", ".join(f"{tool.name} ({tool.program})" for tool in self.tools)

    def literal_secret_names(self) -> list[str]:
        """Env names whose values are written literally rather than as ${VAR} references."""
        return [key for key, value in self.env.items() if not has_references(value)]


def command_timeout(definition: CommandsDefinition, tool: str) -> float:
    """The timeout of `tool` (the default for a tool the definition does not have)."""
    for known in definition.tools:
        if known.name == tool:
            return known.timeout
    return DEFAULT_TIMEOUT_SECONDS
