"""List changes from a modern server through `subscriptions/listen` (client/list_changes.py),
against the real listening_server.py fixture."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.mcp.store import McpStore
from tests.mcp.runtime_helpers import ScriptedTrust, runtime, save, script_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def store(agent_home: Path) -> McpStore:
    return McpStore(agent_home / "mcp-servers.json")


def listening_server(*args: str) -> dict[str, Any]:
    definition = script_server("listening_server.py")
    definition["args"] = [*definition["args"], *args]
    return definition


async def test_a_modern_list_change_arrives_through_listen_and_relists_the_tools(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"live": listening_server()})
    changed = anyio.Event()
    with anyio.fail_after(60):
        async with runtime(
            store, agent_home, tmp_path, trust=ScriptedTrust(),
            on_tools_changed=lambda name: changed.set(),
        ) as rt:  # fmt: skip
            connection = await rt.start("live")
            assert connection.info is not None
            assert connection.info.protocol_version == "2026-07-28"
            await rt.call_tool("live", "grow", {})
            await changed.wait()
            names = [tool.name for tool in await rt.list_tools("live")]
    assert "grown" in names


async def test_a_listen_stream_that_closes_at_once_is_reopened_only_after_a_growing_backoff(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"bad": listening_server("--close-listen")})
    listens: list[float] = []
    third = anyio.Event()

    def observe(server: str, direction: str, text: str) -> None:
        if direction == "send" and json.loads(text).get("method") == "subscriptions/listen":
            listens.append(anyio.current_time())
            if len(listens) == 3:
                third.set()

    with anyio.fail_after(60):
        async with runtime(
            store, agent_home, tmp_path, trust=ScriptedTrust(), observe=observe
        ) as rt:
            await rt.start("bad")
            await third.wait()
    # 0.5 s, then 1 s between the three listens: a server that closes at once cannot make
    # us spin (and after 5 in a minute we stop listening; the log says so).
    assert listens[1] - listens[0] >= 0.5
    assert listens[2] - listens[1] >= 1.0
    log = (agent_home / "mcp" / "bad.log").read_text(encoding="utf-8")
    assert "the list-change stream ended (closed by the server); listening again in 1 s" in log
