"""The hostile_text_server fixture saved as a trusted, enabled server named `hx`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch


def save_trusted_hostile_server(agent_home: Path) -> None:
    """Save hostile_text_server as `hx`, trusted and enabled; its tools are discovered on use.

    Its working directory is fixed, so trust does not depend on the project; a test that
    runs agent with another environment trusts that one too (`trust_hx_for`)."""
    from agent.mcp.config.definitions import fingerprint
    from agent.mcp.config.document import parse_document_data
    from agent.mcp.store import McpStore

    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("hostile_text_server.py")
    server = {"command": command[0], "args": command[1:], "cwd": str(SERVERS)}
    document = {"mcpServers": {"hx": server}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    trust_launch(store, "hx", SERVERS)
    fp = fingerprint(store.load().find("hx"))
    store.update_state("hx", fp, lambda s: replace(s, enabled=True))


def trust_hx_for(agent_home: Path, environ: Mapping[str, str]) -> None:
    """Trust hx also for a run of agent with `environ` (trust covers HOME and PATH)."""
    from agent.mcp.store import McpStore

    trust_launch(McpStore(agent_home / "mcp-servers.json"), "hx", SERVERS, environ)
