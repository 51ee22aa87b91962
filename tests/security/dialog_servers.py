"""The hostile dialog server saved as a trusted, enabled server, as a person would have it
after trusting it and selecting its tools (mirrors save_trusted_echo_server); the chat that
meets it in a pty is tests/pty_chat.py's running_chat."""

from __future__ import annotations

import socket
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.config.names import model_tool_name
from agent.mcp.store import CachedTool, McpStore
from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch
from tests.fixtures.servers.hostile_dialog_server import HIDING_NAME, LONG_DESCRIPTION, SIGNAL_ENV

SERVER = "hx"
NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}
TEXT_ARGUMENT: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}
CASE_ARGUMENT: dict[str, Any] = {
    "type": "object",
    "properties": {"case": {"type": "string"}},
    "required": ["case"],
}
TOOLS = (
    CachedTool(HIDING_NAME, LONG_DESCRIPTION, TEXT_ARGUMENT),
    CachedTool("ask_secret", "Ask for a user name and a password.", NO_ARGUMENTS),
    CachedTool("ask_form", "Send one of the hostile forms.", CASE_ARGUMENT),
    CachedTool("ask_later", "Return now; ask for a code afterwards.", NO_ARGUMENTS),
    CachedTool("ask_and_leave", "Ask during the call, return without the answer.", NO_ARGUMENTS),
    CachedTool("last_answer", "The answer to ask_later's elicitation.", NO_ARGUMENTS),
    CachedTool("capabilities", "The client's capabilities.", NO_ARGUMENTS),
)


def model_name(tool: str) -> str:
    """The model-facing name of one of the hostile server's tools."""
    return model_tool_name(SERVER, tool)


def save_trusted_hostile_server(
    agent_home: Path, environ: Mapping[str, str], signal: Path | None = None
) -> None:
    """Save hostile_dialog_server.py as `hx`, enabled with every tool selected, and trusted
    for a run of agent with `environ` (its fixed cwd makes the launch project-independent);
    with `signal`, the server listens there for the test's signals (send_signal)."""
    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("hostile_dialog_server.py")
    server: dict[str, Any] = {"command": command[0], "args": command[1:], "cwd": str(SERVERS)}
    if signal is not None:
        server["env"] = {SIGNAL_ENV: str(signal)}
    document = {"mcpServers": {SERVER: server}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    trust_launch(store, SERVER, SERVERS, environ)
    fp = fingerprint(store.load().find(SERVER))
    store.update_state(
        SERVER,
        fp,
        lambda s: replace(
            s,
            enabled=True,
            enabled_tools=tuple(t.name for t in TOOLS),
            cached_tools=TOOLS,
        ),
    )


def send_signal(path: Path) -> None:
    """Tell the hostile server that the screen shows what it waits for (it must be listening
    already: connecting fails at once otherwise, so this never waits)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(str(path))
