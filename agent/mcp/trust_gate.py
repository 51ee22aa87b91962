"""The gate a local server passes before it starts: its launch is trusted, or the person says yes.

The runtime asks the gate and spawns exactly the launch the gate judged; the gate never
records trust itself (the runtime does, once the server has started and listed its tools).
"""

from __future__ import annotations

from agent.errors import AgentError, NotTrustedError, ServerStartError
from agent.mcp.definitions import StdioDefinition
from agent.mcp.launch_trust import LaunchTrust, LaunchVerdict, TrustedLaunch, shown_launch
from agent.mcp.trust import TrustPrompt, TrustRequest


class TrustGate:
    """Judges and, when allowed, asks about local servers for one project and environment."""

    def __init__(self, launch_trust: LaunchTrust, prompt: TrustPrompt) -> None:
        self.launch_trust = launch_trust
        self._prompt = prompt
        self._cache: dict[str, tuple[object, bool]] = {}

    async def admit(
        self, definition: StdioDefinition, trusted: tuple[TrustedLaunch, ...], *, ask: bool
    ) -> LaunchVerdict:
        """The launch to spawn; raises unless it is trusted or the person (asked) says yes.

        A command found nowhere is refused before anyone is asked: the system would look a
        bare name up by rules of its own, so what ran could differ from what was shown.
        """
        verdict = self.launch_trust.verdict(definition, trusted)
        if verdict.launch.resolved is None:
            raise ServerStartError(
                f"MCP server {definition.name!r} could not start: command "
                f"{definition.command!r} not found"
            )
        if verdict.trusted:
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
        self, definition: StdioDefinition, trusted: tuple[TrustedLaunch, ...], *, fresh: bool
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

    def reason(self, definition: StdioDefinition, trusted: tuple[TrustedLaunch, ...]) -> str:
        """One line on why it does not start here, and what to do."""
        try:
            verdict = self.launch_trust.verdict(definition, trusted)
        except AgentError as error:
            return f"MCP server {definition.name} cannot start: {error}"
        return (
            f"MCP server {definition.name} is not trusted here: {verdict.reason()}; "
            f"/mcp trust {definition.name} reviews it"
        )


def trust_request(definition: StdioDefinition, verdict: LaunchVerdict) -> TrustRequest:
    """What the person is shown: values from the environment as written, never expanded."""
    launch = verdict.launch
    args, cwd = shown_launch(definition, launch)
    return TrustRequest(
        server=definition.name,
        executable=launch.command,
        resolved_executable=launch.resolved_command(),
        args=args,
        cwd=cwd,
        env_names=tuple(launch.env),
        previously_trusted=verdict.previously_trusted,
        changes=verdict.changes,
        project=verdict.record.project,
    )
