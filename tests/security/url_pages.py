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

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.config.names import model_tool_name
from agent.mcp.store import CachedTool, McpStore
from tests.fixtures.mcp_fixtures import SERVERS, listed_tools, server_command, trust_launch

SERVER = "pages"


def listed() -> tuple[CachedTool, ...]:
    """The server's tools as it lists them (the cache must match the live listing)."""
    return listed_tools("url_elicitation_server.py")


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
            s, enabled=True, enabled_tools=tuple(t.name for t in listed()), cached_tools=listed()
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
