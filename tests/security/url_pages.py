"""The URL-elicitation fixture server saved as a trusted, enabled server (as a person would
have it after trusting it and selecting its tools), and a $BROWSER that records each call.

Python's webbrowser runs $BROWSER as one executable with the URL as its only argument, so the
recording holds exactly what the browser was given, one JSON list of arguments per line."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.config.names import model_tool_name
from agent.mcp.store import CachedTool, McpStore
from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch

SERVER = "pages"
URL_ARGUMENT: dict[str, Any] = {
    "type": "object",
    "properties": {"url": {"type": "string"}, "message": {"type": "string"}},
    "required": ["url"],
}
FLOOD_ARGUMENTS: dict[str, Any] = {
    "type": "object",
    "properties": {"url": {"type": "string"}, "count": {"type": "integer"}},
    "required": ["url", "count"],
}
TOOLS = (
    CachedTool("open_page", "Ask the client to open a page.", URL_ARGUMENT),
    CachedTool("needs_page", "Fail with -32042 until a page is done.", URL_ARGUMENT),
    CachedTool("flood", "Many page requests at once.", FLOOD_ARGUMENTS),
    CachedTool("capabilities", "The client's capabilities.", {"type": "object"}),
)


def page_tool(tool: str) -> str:
    """The model-facing name of one of the server's tools."""
    return model_tool_name(SERVER, tool)


def save_trusted_pages_server(agent_home: Path, environ: Mapping[str, str]) -> None:
    """Save url_elicitation_server.py as `pages`, enabled with every tool selected, and
    trusted for a run of agent with `environ`."""
    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("url_elicitation_server.py")
    server = {"command": command[0], "args": command[1:], "cwd": str(SERVERS)}
    store.replace_definitions(
        parse_document_data({"mcpServers": {SERVER: server}}, "test").definitions
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


def recording_browser(directory: Path) -> tuple[Path, Path]:
    """An executable for $BROWSER that appends its arguments (JSON) to a record: (script,
    record). The record does not exist until the browser ran."""
    record = directory / "browser-calls.jsonl"
    script = directory / "recording-browser"
    script.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        f"open({str(record)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script, record


def browser_calls(record: Path) -> list[list[str]]:
    """Each call of the recording browser: its arguments."""
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
