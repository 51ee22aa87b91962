"""Hostile 2026-07-28 servers: a requestState loop, a huge requestState, secrets in the
discover result's instructions (modern_server.py, a real SDK server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.errors import ToolCallError
from agent.mcp.forms.elicitation import ElicitationAnswer
from agent.mcp.store import McpStore
from tests.mcp.runtime_helpers import (
    ScriptedElicitation,
    ScriptedTrust,
    runtime,
    save,
    script_server,
)

pytestmark = pytest.mark.anyio


def modern_server(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    definition = script_server("modern_server.py")
    definition["args"] = [*definition["args"], *args]
    if env:
        definition["env"] = env
    return definition


@pytest.fixture
def store(agent_home: Path) -> McpStore:
    return McpStore(agent_home / "mcp-servers.json")


async def test_a_server_that_asks_for_input_forever_is_given_up_after_the_round_cap(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": modern_server("--loop-state")})
    form = ScriptedElicitation(ElicitationAnswer("accept", {"name": "Ada"}))
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust(), elicitation=form) as rt:
        await rt.start("fx")
        with pytest.raises(ToolCallError, match="kept asking for more input"):
            await rt.call_tool("fx", "ask", {})
    assert len(form.requests) == 10


async def test_a_huge_request_state_is_echoed_byte_for_byte_without_breaking_the_call(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": modern_server("--huge-state")})
    form = ScriptedElicitation(ElicitationAnswer("accept", {"name": "Ada"}))
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust(), elicitation=form) as rt:
        await rt.start("fx")
        answered = await rt.call_tool("fx", "ask", {})
    text = "".join(part.text for part in answered.content if hasattr(part, "text"))
    assert json.loads(text)["state"] == 1_000_000


async def test_secrets_in_a_modern_servers_instructions_are_masked_in_memory_and_info(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    secret = "canary-discover-5678"
    save(
        store,
        {
            "fx": {
                **modern_server(env={"KEY": secret}),
                "args": [*modern_server()["args"], "--instructions", f"the key is {secret}"],
            }
        },
    )
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        connection = await rt.start("fx")
        assert connection.info is not None
        assert connection.info.protocol_version == "2026-07-28"
        assert secret not in (connection.info.instructions or "")
        assert "the key is" in (connection.info.instructions or "")
    assert secret not in (agent_home / "mcp-eras.json").read_text()
