"""The hostile_text_server fixture saved as a trusted, enabled server named `hx`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.fixtures.mcp_fixtures import server_command


def save_trusted_hostile_server(agent_home: Path) -> None:
    """Save hostile_text_server as `hx`, trusted and enabled; its tools are discovered on use."""
    from agent.mcp.definitions import fingerprint
    from agent.mcp.document import parse_document_data
    from agent.mcp.store import McpStore

    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("hostile_text_server.py")
    document = {"mcpServers": {"hx": {"command": command[0], "args": command[1:]}}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    fp = fingerprint(store.load().find("hx"))
    store.update_state("hx", fp, lambda s: replace(s, enabled=True, trusted_fingerprint=fp))
