"""A server that answers slowly makes request scopes overlap: the background prompt listing
(or a Tab lookup) is still running when the person's turn starts, and it ends first. Neither
may close the other's remote connection, and neither may crash the chat. Real McpRuntime,
real streamable-HTTP fixture server; connections are counted from its request log."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agent.mcp.client.results import tool_result_from_mcp
from agent.mcp.store import McpStore
from tests import deadlines
from tests.fixtures.mcp_fixtures import running_http_server
from tests.mcp.runtime_helpers import runtime, save
from tests.security.remote_helpers import connections_made

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("opener", ["listing", "turn"])
async def test_a_scope_that_ends_first_never_closes_a_connection_another_scope_still_uses(
    opener: str, agent_home: Path, tmp_path: Path
) -> None:
    headers_log = tmp_path / "requests.jsonl"
    store = McpStore(agent_home / "mcp-servers.json")
    with running_http_server(headers_log=headers_log) as server:
        save(store, {"remote": {"url": server.url}})
        answers: list[str] = []
        async with runtime(store, agent_home, tmp_path) as rt:
            listing_began, turn_started, listing_done = anyio.Event(), anyio.Event(), anyio.Event()

            async def echo(text: str) -> None:
                result = await rt.call_tool("remote", "echo", {"text": text})
                answers.append(tool_result_from_mcp(result, 1000).text)

            async def listing() -> None:  # a slow prompts/list in the background
                async with rt.request_scope():
                    if opener == "listing":
                        await echo("listing")
                    listing_began.set()
                    await turn_started.wait()
                listing_done.set()

            async def turn() -> None:  # the person's message, sent meanwhile
                await listing_began.wait()
                async with rt.request_scope():
                    await echo("turn starts")
                    turn_started.set()
                    await listing_done.wait()
                    assert rt.running() == ["remote"]  # still open: this turn uses it
                    await echo("turn goes on")

            with anyio.fail_after(deadlines.PROCESS):
                async with anyio.create_task_group() as group:
                    group.start_soon(listing)
                    group.start_soon(turn)
            assert rt.running() == []  # the last scope to end closed it
    expected = ["turn starts", "turn goes on"]
    assert answers == (["listing", *expected] if opener == "listing" else expected)
    assert connections_made(headers_log) == 1
