"""Attack: a stdio server answers with an error code that looks like a lost connection, with
bytes that are not UTF-8, with junk, or with one enormous line. Each is an error for that
call (or a note in the log); the server stays connected. Through McpRuntime, real servers."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest

from agent.errors import ToolCallError
from agent.mcp.client.results import tool_result_from_mcp
from agent.mcp.store import McpStore
from agent.settings import McpLimits
from tests.fixtures.mcp_fixtures import server_command
from tests.mcp.runtime_helpers import ScriptedTrust, process_alive, runtime, save

pytestmark = pytest.mark.anyio

MIB = 1024 * 1024


@pytest.fixture
def store(agent_home: Path) -> McpStore:
    command = server_command("hostile_server.py")
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"fx": {"command": command[0], "args": command[1:]}})
    return store


async def echo(rt: object, text: str) -> str:
    result = await rt.call_tool("fx", "echo", {"text": text})  # type: ignore[attr-defined]
    return tool_result_from_mcp(result, 1000).text


async def test_a_minus_32000_error_from_a_live_server_is_its_error_and_it_stays_connected(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        with anyio.fail_after(15), pytest.raises(ToolCallError) as error:
            await rt.call_tool("fx", "server_error", {"message": "database is locked"})
        assert rt.status("fx").state == "ready"
        assert await echo(rt, "still here") == "still here"
    assert str(error.value) == (
        "MCP server 'fx' returned an error while calling server_error: database is locked "
        "(code -32000)"
    )
    assert len(logged_pids_of(agent_home)) == 1  # never restarted


async def test_an_answer_that_is_not_utf8_is_an_error_for_its_call_and_the_reader_lives_on(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        with anyio.fail_after(15), pytest.raises(ToolCallError) as error:
            await rt.call_tool("fx", "bad_utf8", {})
        assert rt.status("fx").state == "ready"
        assert await echo(rt, "after bad bytes") == "after bad bytes"
        junk = await rt.call_tool("fx", "junk_line", {})
        assert tool_result_from_mcp(junk, 1000).text == "answered after junk"
        [pid] = logged_pids_of(agent_home)
        assert process_alive(pid)
    assert str(error.value).startswith(
        "MCP server 'fx' returned an error while calling bad_utf8: its answer could not be "
        "read: it is not valid UTF-8"
    )
    log = (agent_home / "mcp" / "fx.log").read_text(encoding="utf-8")
    assert "unreadable message from server" in log  # the junk line without an id


async def test_an_answer_over_the_size_cap_is_an_error_not_a_hang_and_the_server_stays(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    # Generating and reading 17 MiB takes a Python server seconds, many more on a loaded
    # machine: the bounds guard against a hang, not for speed (bench/ measures that).
    limits = McpLimits(
        startup_timeout_seconds=60, tool_timeout_seconds=120, output_limit_chars=1000
    )
    async with runtime(store, agent_home, tmp_path, limits, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        with anyio.fail_after(120), pytest.raises(ToolCallError) as error:
            await rt.call_tool("fx", "huge_answer", {"size": 17 * MIB})
        # The error comes as the cap is passed, while the server still writes the rest; its
        # next answer must not be written into the middle of that line (a server's own race).
        with anyio.fail_after(120):
            await log_shows(agent_home, f"huge answer of {17 * MIB} bytes written")
        assert await echo(rt, "after the flood") == "after the flood"
        with anyio.fail_after(120):  # just under the cap still arrives, in linear time
            big = await rt.call_tool("fx", "huge_answer", {"size": 15 * MIB})
        assert len(tool_result_from_mcp(big, 20 * MIB).text) > 14 * MIB
        assert rt.status("fx").state == "ready"
    assert "larger than the 16 MiB limit for one message" in str(error.value)


async def log_shows(agent_home: Path, text: str) -> None:
    """Return once the server's log holds `text` (it arrives through its stderr pipe)."""
    log = agent_home / "mcp" / "fx.log"
    while not (log.exists() and text in log.read_text(encoding="utf-8", errors="replace")):
        await anyio.sleep(0.05)


def logged_pids_of(agent_home: Path) -> list[int]:
    """Pids hostile_server wrote to fx.log at each start."""
    text = (agent_home / "mcp" / "fx.log").read_text(encoding="utf-8")
    return [int(pid) for pid in re.findall(r"hostile_server starting pid=(\d+)", text)]
