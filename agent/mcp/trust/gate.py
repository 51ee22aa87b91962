"""The gate a local server passes before it starts: its launch is trusted, or the person says yes.

The runtime asks the gate and spawns exactly the launch the gate judged; the gate never
records trust itself (the runtime does, once the server has started and listed its tools).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Any

from agent.errors import AgentError, NotTrustedError, ServerStartError
from agent.mcp.config.command_definitions import (
    DEFAULT_TIMEOUT_SECONDS,
    CommandsDefinition,
    CommandTool,
)
from agent.mcp.config.definitions import LocalDefinition
from agent.mcp.config.launch import SCRIPT_FROM_ENVIRONMENT, CommandsLaunch, StdioLaunch
from agent.mcp.config.variables import references_environment
from agent.mcp.trust.launches import (
    LaunchTrust,
    LaunchVerdict,
    TrustedLaunch,
    covers,
    shown_cwd,
    shown_launch,
)
from agent.mcp.trust.question import TrustPrompt, TrustRequest


class TrustGate:
    """Judges and, when allowed, asks about local servers for one project and environment."""

    def __init__(self, launch_trust: LaunchTrust, prompt: TrustPrompt) -> None:
        self.launch_trust = launch_trust
        self._prompt = prompt
        self._cache: dict[str, tuple[object, bool]] = {}

    async def admit(
        self,
        definition: LocalDefinition,
        trusted: tuple[TrustedLaunch, ...],
        *,
        ask: bool,
        approved: TrustedLaunch | None = None,
    ) -> LaunchVerdict:
        """The launch to spawn; raises unless it is trusted or the person (asked) says yes.

        `approved`: the launch the person said yes to in a question about several servers;
        it admits this launch only when it is that one exactly (expanded again here, so a
        launch that changed after the question is asked about, or refused, again).
        A command found nowhere is refused before anyone is asked: the system would look a
        bare name up by rules of its own, so what ran could differ from what was shown.
        """
        verdict = self.launch_trust.verdict(definition, trusted)
        missing = _missing_program(verdict.launch)
        if missing is not None:
            raise ServerStartError(
                f"MCP server {definition.name!r} could not start: command {missing} not found"
            )
        if verdict.trusted or (approved is not None and covers(approved, verdict.record)):
            return verdict
        if not ask:
            raise NotTrustedError(
                f"MCP server {definition.name!r} is not trusted here: {verdict.reason()}; "
                f"trust it with: agent mcp trust {definition.name}"
            )
        if not await self._prompt.confirm(trust_request(definition, verdict)):
            raise NotTrustedError(
                f"MCP server {definition.name!r} was not started: you did not trust it"
            )
        return verdict

    def is_trusted(
        self, definition: LocalDefinition, trusted: tuple[TrustedLaunch, ...], *, fresh: bool
    ) -> bool:
        """Whether it may start without asking; a trust key that cannot be read means no.

        Expanding resolves the program on PATH, so the answer is kept per definition and
        trust records; `fresh` looks again.
        """
        key = (definition, trusted)
        cached = self._cache.get(definition.name)
        if fresh or cached is None or cached[0] != key:
            try:
                answer = self.launch_trust.is_trusted(definition, trusted)
            except AgentError:  # starting it says why
                answer = False
            cached = (key, answer)
            self._cache[definition.name] = cached
        return cached[1]

    def pending(
        self, definition: LocalDefinition, trusted: tuple[TrustedLaunch, ...]
    ) -> tuple[TrustRequest, TrustedLaunch] | None:
        """The question about a launch that is not trusted and could start, with the record a
        yes covers; None when it is trusted or cannot start (reason() then says why)."""
        try:
            verdict = self.launch_trust.verdict(definition, trusted)
        except AgentError:
            return None
        if verdict.trusted or _missing_program(verdict.launch) is not None:
            return None
        return trust_request(definition, verdict), verdict.record

    def cannot_start(
        self, definition: LocalDefinition, trusted: tuple[TrustedLaunch, ...]
    ) -> str | None:
        """Why it cannot start whatever the trust: its program found nowhere, as `admit`
        refuses it ("command 'x' not found"); None when it could (or when its launch cannot
        be worked out: trusting it says why)."""
        try:
            verdict = self.launch_trust.verdict(definition, trusted)
        except AgentError:
            return None
        missing = _missing_program(verdict.launch)
        return None if missing is None else f"command {missing} not found"

    def reason(self, definition: LocalDefinition, trusted: tuple[TrustedLaunch, ...]) -> str:
        """One line on why it does not start here, and what to do."""
        try:
            verdict = self.launch_trust.verdict(definition, trusted)
        except AgentError as error:
            return f"MCP server {definition.name} cannot start: {error}"
        return (
            f"MCP server {definition.name} is not trusted here: {verdict.reason()}; "
            f"/mcp trust {definition.name} reviews it"
        )


def _missing_program(launch: StdioLaunch | CommandsLaunch) -> str | None:
    if isinstance(launch, CommandsLaunch):
        return launch.missing_program()
    return None if launch.resolved is not None else repr(launch.command)


def trust_request(definition: LocalDefinition, verdict: LaunchVerdict) -> TrustRequest:
    """What the person is shown: values from the environment as written, never expanded."""
    launch = verdict.launch
    if isinstance(definition, CommandsDefinition):
        assert isinstance(launch, CommandsLaunch)
        return _commands_request(definition, launch, verdict)
    assert isinstance(launch, StdioLaunch)
    args, cwd = shown_launch(definition, launch)
    return TrustRequest(
        server=definition.name,
        executable=launch.command,
        resolved_executable=launch.resolved_command(),
        args=args,
        cwd=cwd,
        env_sources=env_sources(definition.env),
        previously_trusted=verdict.previously_trusted,
        changes=verdict.changes,
        project=verdict.record.project,
        why=verdict.headline(),
        trusted_in=verdict.trusted_in,
        script=SCRIPT_FROM_ENVIRONMENT if launch.script_from_environment else launch.script,
    )


def env_sources(env: Mapping[str, str]) -> tuple[str, ...]:
    """Where each environment value comes from, as written, never the value itself.

    `${env:AWS_SECRET_ACCESS_KEY}` under an innocent name is what a yes would hand over; the
    written reference is not the secret, and a literal value (which may be one) is not shown.
    """
    return tuple(
        f"{name}={written}" if references_environment(written) else f"{name} (a literal value)"
        for name, written in env.items()
    )


def _commands_request(
    definition: CommandsDefinition, launch: CommandsLaunch, verdict: LaunchVerdict
) -> TrustRequest:
    tools: list[str] = []
    for tool, found in zip(launch.tools, launch.resolved, strict=True):
        tools.append(
            f"{tool.name}: {shlex.join(tool.command)}  ({found or 'not found'})"
            + (f"  may start with '-': {', '.join(tool.allow_dash)}" if tool.allow_dash else "")
        )
        tools.extend(f"  {line}" for line in _tool_details(tool))
    return TrustRequest(
        server=definition.name,
        executable="(commands server)",
        resolved_executable=None,
        args=(),
        cwd=shown_cwd(definition.cwd, launch.cwd),
        env_sources=env_sources(definition.env),
        previously_trusted=verdict.previously_trusted,
        changes=verdict.changes,
        project=verdict.record.project,
        tools=tuple(tools),
        why=verdict.headline(),
        trusted_in=verdict.trusted_in,
    )


def _tool_details(tool: CommandTool) -> list[str]:
    """A tool's arguments (name, type, required) and a timeout other than the default."""
    properties = tool.input_schema.get("properties", {})
    required = set(tool.input_schema.get("required", []))
    shown = [
        f"{name} ({_kind(schema)}{', required' if name in required else ''})"
        for name, schema in properties.items()
    ]
    lines = [f"arguments: {', '.join(shown) if shown else '(none)'}"]
    if '"$ref"' in json.dumps(tool.input_schema):
        lines.append("its schema has $ref references (only ones inside the schema are used)")
    if tool.timeout != DEFAULT_TIMEOUT_SECONDS:
        lines.append(f"timeout: {tool.timeout:g} s")
    return lines


def _kind(schema: Any) -> str:
    kind = schema.get("type", "any") if isinstance(schema, dict) else "any"
    return "|".join(kind) if isinstance(kind, list) else str(kind)
