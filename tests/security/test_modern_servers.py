"""Hostile 2026-07-28 servers: a requestState loop, a huge requestState, a round of many forms,
secrets in the discover result's instructions (modern_server.py, a real SDK server)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.errors import ToolCallError
from agent.mcp.client.cache_hints import MAX_FRESH_SECONDS
from agent.mcp.forms.elicitation import ElicitationAnswer, ElicitationRequest
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


async def test_a_round_asking_more_inputs_than_a_person_is_asked_at_once_is_refused_unasked(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": modern_server("--forms", "9")})
    form = ScriptedElicitation(ElicitationAnswer("accept", {"name": "Ada"}))
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust(), elicitation=form) as rt:
        await rt.start("fx")
        with pytest.raises(ToolCallError, match="asked for 9 inputs at once"):
            await rt.call_tool("fx", "ask", {})
    assert form.requests == []


@dataclass
class OneAtATime(ScriptedElicitation):
    """Answers after a pause, counting how many forms were open at the same time."""

    open_now: int = 0
    most_open: int = 0

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.open_now += 1
        self.most_open = max(self.most_open, self.open_now)
        await anyio.sleep(0.05)
        self.open_now -= 1
        return await super().elicit(request)


async def test_the_forms_of_one_round_are_asked_one_after_another(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": modern_server("--forms", "3")})
    form = OneAtATime(ElicitationAnswer("accept", {"name": "Ada"}))
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust(), elicitation=form) as rt:
        await rt.start("fx")
        answered = await rt.call_tool("fx", "ask", {})
    text = "".join(part.text for part in answered.content if hasattr(part, "text"))
    assert json.loads(text)["content"] == {"name": "Ada"}
    assert len(form.requests) == 3
    assert form.most_open == 1


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


async def test_a_cache_hint_beyond_a_float_neither_breaks_the_start_nor_pins_its_answers(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    # ttlMs 10**400 (valid JSON, an int to the SDK) made `ttl_ms / 1000` raise OverflowError
    # in the era memory and the tool listing's freshness; a merely huge one kept the server's
    # discover result "fresh" for ages, so its later starts never asked it again.
    save(store, {"fx": modern_server("--ttl-ms", str(10**400))})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        assert "echo" in [tool.name for tool in await rt.list_tools("fx")]
        until = store.load().state("fx").tools_fresh_until
    now = time.time()
    assert until is not None and until <= now + MAX_FRESH_SECONDS
    remembered = json.loads((agent_home / "mcp-eras.json").read_text())["servers"]
    for entry in remembered.values():
        assert entry["fresh_until"] <= now + MAX_FRESH_SECONDS
