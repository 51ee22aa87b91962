"""Attack: a server sends its own secret inside the structured data of a log notification
(`notifications/message` with a JSON object, not a string). A password holding both kinds of
quote is written differently by Python's repr (`'pa\\'ss"word'`) than by JSON, so masking
that knows only the raw and the JSON-escaped forms misses it in the server's log. Through
McpRuntime and a real stdio server."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import server_command
from tests.mcp.runtime_helpers import ScriptedTrust, runtime, save

pytestmark = pytest.mark.anyio

PASSWORD = "Pa'ss\"canary-4471"


async def test_a_secret_in_structured_log_data_is_masked_in_the_servers_log(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("hostile_server.py")
    save(store, {"fx": {"command": command[0], "args": command[1:], "env": {"PW": "${PW}"}}})
    async with runtime(
        store, agent_home, tmp_path, trust=ScriptedTrust(), environ={"PW": PASSWORD}
    ) as rt:
        await rt.start("fx")
        await rt.call_tool("fx", "leak_log", {"name": "PW"})
    log = (agent_home / "mcp" / "fx.log").read_text(encoding="utf-8")
    assert "server log info" in log  # the notification arrived and was written
    assert "canary-4471" not in log, log
