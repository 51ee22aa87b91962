"""Trust of local servers: what the person is shown before a stdio server first runs.

The question goes through the TrustPrompt protocol so the terminal UI can render it; the
runtime records trust only after the handshake and tool discovery succeed.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agent.mcp.trust.project_folder import why_here
from agent.text import sanitize_line


@dataclass(frozen=True)
class TrustRequest:
    """Everything that decides what a stdio server runs, with env values left out."""

    server: str
    executable: str  # as written in the definition
    resolved_executable: str | None  # what PATH resolves it to now; None when not found
    args: tuple[str, ...]
    cwd: str
    env_sources: tuple[str, ...]  # "NAME=${VAR}" as written, or "NAME (a literal value)"
    previously_trusted: bool  # another launch of this server was trusted
    changes: tuple[str, ...] = ()  # what differs from that launch, in words
    project: str | None = None  # the project this trust is for, when the launch depends on it
    tools: tuple[str, ...] = ()  # a commands server's: "log: git log -n {count}  (/usr/bin/git)"
    # Why it asks, from the person's view (LaunchVerdict.headline): "it runs in this project's
    # folder, and you trusted it in /src/a" when they changed folder.
    why: str = ""
    # The script its interpreter runs (`python3 server.py`): a yes covers its content too.
    script: str | None = None
    trusted_in: str | None = None  # the project where this launch was trusted, if another

    def why_here(self) -> str:
        """What of this project the launch reads, when it depends on the project ("npx looks
        in this project's node_modules first"), else why it asks at all."""
        if self.project is None:
            return self.reason()
        return why_here(self.executable, self.args, self.cwd, self.project)

    def reason(self) -> str:
        """Why it asks and what differs, in one line."""
        why = self.why or (
            "what it runs changed" if self.previously_trusted else "its launch here is new"
        )
        return why + (" (" + "; ".join(self.changes) + ")" if self.changes else "")

    def heading(self) -> str:
        """The dialog's first line."""
        if self.why and self.why != "what it runs changed" and self.previously_trusted:
            return f"MCP server {self.server!r}: {self.why}."
        if self.previously_trusted:
            return f"MCP server {self.server!r} would run something other than what you trusted."
        return f"MCP server {self.server!r} runs a program on this computer."

    def command_line(self) -> str:
        """The command as a shell would need it quoted (we never run it through a shell)."""
        return shlex.join([self.executable, *self.args])

    def describe(self) -> list[str]:
        """Lines for a dialog: executable, arguments, working directory, env names."""
        headline = self.heading()
        where = self.resolved_executable or "not found on PATH"
        env = ", ".join(self.env_sources) if self.env_sources else "(no extra variables)"
        lines = [headline]
        if self.changes:
            lines.append("  What differs from where you trusted it:")
            lines.extend(f"    - {change}" for change in self.changes)
        if self.tools:  # a commands server: each tool runs one program, no shell
            lines.append("  Its tools run these programs when you approve a call:")
            lines.extend(f"    {tool}" for tool in self.tools)
            lines += [f"  working dir: {self.cwd}", f"  environment: {env}"]
            if self.project is not None:
                lines.append(f"  Trust is recorded for this project only: {self.project}")
            return lines
        lines += [
            f"  executable:  {self.executable}  ({where})",
            *([f"  script:      {sanitize_line(self.script)}"] if self.script else []),
            f"  arguments:   {shlex.join(self.args) if self.args else '(none)'}",
            f"  command:     {self.command_line()}",
            f"  working dir: {self.cwd}",
            f"  environment: {env}",
        ]
        if self.project is not None:
            lines.append(f"  Trust is recorded for this project only: {self.project}")
        return lines


class TrustPrompt(Protocol):
    """Asks the person whether a stdio server may start; False (or no person) means no."""

    async def confirm(self, request: TrustRequest) -> bool: ...


class TrustChoice(Protocol):
    """Asks once about several servers that need trust here (a chat in a new project): the
    names the person trusts; none (or no person) starts nothing."""

    async def choose(self, requests: Sequence[TrustRequest]) -> frozenset[str]: ...


class DenyTrust:
    """The answer when nobody can be asked: never start an untrusted server."""

    async def confirm(self, request: TrustRequest) -> bool:
        return False
