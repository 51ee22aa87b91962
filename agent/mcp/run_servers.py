"""The servers of one run: `--mcp NAME,...` (only these) and `--no-mcp` (none), as Claude
Code's --strict-mcp-config and Gemini CLI's --allowed-mcp-server-names.

A server left out is seen by the run as disabled (its tools are never offered, it never
starts), and nothing of that is saved: the store's changes start from the file itself
(`McpStore.saved`), so `/mcp enable` in such a chat enables it for later runs.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from agent.errors import AgentError
from agent.mcp.config.names import normalize_server_name
from agent.mcp.store import McpConfig, McpStore


class UnknownServersError(AgentError):
    """`--mcp` named servers the configuration does not have."""


def chosen_servers(names: list[str], store_path: Path) -> frozenset[str]:
    """The configured names `--mcp` chose (each exactly, or after normalisation, as every
    `agent mcp` command finds a name); UnknownServersError naming every unknown one."""
    config = McpStore(store_path).saved()
    by_name = {d.name: d.name for d in config.definitions}
    by_normal = {normalize_server_name(d.name): d.name for d in config.definitions}
    chosen: list[str] = []
    unknown: list[str] = []
    for name in names:
        found = by_name.get(name) or by_normal.get(normalize_server_name(name))
        (chosen if found else unknown).append(found or name)
    if unknown:
        noun = "server" if len(unknown) == 1 else "servers"
        known = ", ".join(by_name) or "none are configured"
        raise UnknownServersError(
            f"--mcp: no MCP {noun} named {', '.join(unknown)} (configured: {known})"
        )
    return frozenset(chosen)


def only(config: McpConfig, chosen: frozenset[str]) -> McpConfig:
    """`config` with every server not in `chosen` disabled."""
    runtime = dict(config.runtime)
    for definition in config.definitions:
        state = config.state(definition.name)
        if definition.name not in chosen and state.enabled:
            runtime[definition.name] = replace(state, enabled=False)
    return replace(config, runtime=runtime)


class RunStore(McpStore):
    """The store as a run with chosen servers sees it (`chosen` None: all of them)."""

    def __init__(self, path: Path | None, chosen: frozenset[str] | None) -> None:
        super().__init__(path)
        self.chosen = chosen
        self._narrowed: tuple[McpConfig, McpConfig] | None = None

    def load(self) -> McpConfig:
        saved = self.saved()
        if self.chosen is None:
            return saved
        # The same object while the file is unchanged: the toolset keeps its tools by it.
        if self._narrowed is None or self._narrowed[0] is not saved:
            self._narrowed = (saved, only(saved, self.chosen))
        return self._narrowed[1]
