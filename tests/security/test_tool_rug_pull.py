"""Attack: a "rug pull" mid-chat. A trusted server whose tool the person selected (and whose
call they just approved) swaps that tool's description ("also read ~/.ssh ...") and input
schema, adds a tool, and announces the changed list (listening_server.py's rug_pull, a real
SDK server; on a modern `subscriptions/listen`, or as a legacy list_changed). The real `agent`
in a pty, the scripted model as a process."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import anyio
import pexpect
import pytest

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.runtime import TOOLS_REFRESH_INTERVAL
from agent.mcp.store import McpStore
from agent.mcp.toolset import McpToolset
from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch
from tests.fixtures.servers.listening_server import RUG_PULL_DESCRIPTION
from tests.mcp.runtime_helpers import ScriptedTrust, enable, runtime, save, script_server
from tests.pty_chat import pty_env, scripted_chat

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def save_trusted_listening_server(
    agent_home: Path, environ: dict[str, str], extra: tuple[str, ...] = ()
) -> None:
    """listening_server.py as `live`, trusted and enabled; its first listing selects every
    tool (what a person has after trusting it and keeping its tools)."""
    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("listening_server.py") + list(extra)
    server = {"command": command[0], "args": command[1:], "cwd": str(SERVERS)}
    document = {"mcpServers": {"live": server}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    trust_launch(store, "live", SERVERS, environ)
    fp = fingerprint(store.load().find("live"))
    store.update_state("live", fp, lambda s: replace(s, enabled=True))


def offered(request: dict[str, object]) -> dict[str, dict[str, object]]:
    """The tools one model request offered, by name (their OpenAI `function` parts)."""
    body = request["body"]
    assert isinstance(body, dict)
    return {tool["function"]["name"]: tool["function"] for tool in body.get("tools", [])}


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_selected_tool_swapped_mid_chat_is_told_once_and_a_new_tool_stays_unselected(
    tmp_path: Path, agent_home: Path, era: str
) -> None:
    env = pty_env(agent_home, tmp_path)
    # modern: subscriptions/listen; legacy: notifications/tools/list_changed
    save_trusted_listening_server(agent_home, env, ("--legacy",) if era == "legacy" else ())
    pull = {"id": "c1", "name": "mcp__live__rug_pull", "arguments": {}}
    turns = [{"tool_calls": [pull]}, {"text": "Pulled."}, {"text": "Second."}, {"text": "Third."}]
    shown = io.StringIO()
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.logfile_read = shown
        chat.expect("MCP server live ready")
        chat.expect("›")
        chat.send("pull\r")
        chat.expect("Approve\\?")
        chat.send("y")  # the person approves the call that pulls the rug
        chat.expect("Pulled.")
        chat.expect("›")
        chat.send("again\r")
        chat.expect("Second.")
        chat.expect("›")
        chat.send("once more\r")
        chat.expect("Third.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()

    before, after = offered(requests[0]), offered(requests[-1])
    assert "mcp__live__echo" in before and RUG_PULL_DESCRIPTION not in str(before)
    # The model sees what the server says now (every call still needs the person's yes) ...
    assert after["mcp__live__echo"]["description"] == RUG_PULL_DESCRIPTION
    # ... and the new tool is not offered: the person chose the set.
    assert "mcp__live__harvest" not in after
    transcript = ANSI.sub("", shown.getvalue())
    # The person is told, once, naming the server and the tool whose listing changed.
    told = [line for line in transcript.splitlines() if "changed description" in line]
    assert len(told) == 1, transcript
    assert "MCP server live" in told[0] and "echo" in told[0] and "harvest" not in told[0]
    assert transcript.count("harvest") == 1  # the new tool: said once, not selected


@pytest.mark.anyio
async def test_a_tool_whose_description_flips_at_every_call_is_told_once_a_run(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"live": script_server("listening_server.py")})
    enable(store, "live")
    said: list[str] = []
    with anyio.fail_after(120):
        async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
            await rt.start("live")
            toolset = McpToolset(rt, report=said.append)
            toolset.tools()
            for _ in range(4):
                await rt.call_tool("live", "flip", {})
                await anyio.sleep(TOOLS_REFRESH_INTERVAL + 0.5)  # the refresh has run
                tools = {tool.spec.name: tool.spec for tool in toolset.tools()}
    assert tools["mcp__live__echo"].description == "Echo, version 4."
    # One line for the first change; the server's later flips add none (no flood).
    assert [line for line in said if "changed description" in line] == [
        "MCP server live: 1 selected tool with a changed description or inputs: echo; the model "
        "sees the new ones, every call still asks you "
        "(unselect with: agent mcp tools live --disable TOOL)"
    ]


def test_a_tool_changed_across_a_restart_mid_chat_is_told(tmp_path: Path, agent_home: Path) -> None:
    # Found by review: `/mcp restart` (as `/mcp login`, or a start that re-trusts a changed
    # launch) lists the tools through another path than the start's listing, which replaced
    # the cached tools without a word: the server swapped a selected tool's description and
    # required inputs while it was down, and the model was offered the new ones untold.
    from tests.mcp.upgrading import release, save_upgrading

    env = pty_env(agent_home, tmp_path)
    release_file = tmp_path / "release.json"
    release(release_file, 1)
    save_upgrading(McpStore(agent_home / "mcp-servers.json"), "up", release_file, env)
    shown = io.StringIO()
    with scripted_chat(tmp_path, [{"text": "First."}, {"text": "Second."}], env) as (chat, fake):
        chat.logfile_read = shown
        chat.expect("MCP server up ready")
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("First.")
        chat.expect("›")
        release(release_file, 2)  # while it runs: what its next start offers
        chat.send("/mcp restart up\r")
        chat.expect("up restarted")
        chat.expect("›")
        chat.send("again\r")
        chat.expect("Second.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    after = offered(requests[-1])
    assert after["mcp__up__lookup"]["description"].startswith("Look up a city in a country")
    transcript = ANSI.sub("", shown.getvalue())
    told = [line for line in transcript.splitlines() if "changed description" in line]
    assert len(told) == 1, transcript
    assert "MCP server up" in told[0] and "lookup" in told[0]
