"""The annotated server (tests/fixtures/servers/annotated_server.py) saved as `an`, trusted
and enabled with its three tools, as a person has it after trusting it; for the approval
dialog's tests in the chat and in `agent -p`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.store import CachedTool, McpStore
from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch

SERVER = "an"
SAVE_NOTE = "mcp__an__save_note"
FETCH_PAGE = "mcp__an__fetch_page"
LOOKUP = "mcp__an__lookup"


def _schema(*names: str) -> dict[str, Any]:
    properties = {name: {"type": "string"} for name in names}
    return {"type": "object", "properties": properties, "required": list(names)}


TOOLS = (
    CachedTool(
        "save_note",
        "Write a note, replacing what the file held.",
        _schema("path", "content"),
        {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
    ),
    CachedTool(
        "fetch_page",
        "Fetch a web page.",
        _schema("url"),
        {"readOnlyHint": True, "openWorldHint": True},
    ),
    CachedTool(
        "lookup",
        "Look a key up in the server's own table.",
        _schema("key"),
        {"readOnlyHint": True, "openWorldHint": False},
    ),
)


def save_trusted_annotated_server(agent_home: Path, environ: Mapping[str, str]) -> None:
    """Save annotated_server.py as `an`, enabled with every tool, trusted for `environ`."""
    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("annotated_server.py")
    server = {"command": command[0], "args": command[1:], "cwd": str(SERVERS)}
    store.replace_definitions(
        parse_document_data({"mcpServers": {SERVER: server}}, "t").definitions
    )
    trust_launch(store, SERVER, SERVERS, environ)
    fp = fingerprint(store.load().find(SERVER))
    store.update_state(
        SERVER,
        fp,
        lambda s: replace(
            s, enabled=True, enabled_tools=tuple(t.name for t in TOOLS), cached_tools=TOOLS
        ),
    )
