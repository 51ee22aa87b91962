"""Attack: a server answers with data the protocol does not allow (a tool without inputSchema
after list_changed, a text block without text, capabilities of the wrong shape whose keys hold
line breaks). Each is one clear error line for that request or server; nothing crashes, no
traceback, no forged `agent:` line. Through McpRuntime and the real CLI, real servers."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from agent.errors import ToolCallError
from agent.mcp.client.results import tool_result_from_mcp
from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch
from tests.mcp.runtime_helpers import ScriptedTrust, runtime, save

AGENT = str(Path(sys.executable).with_name("agent"))


def save_trusted_hostile(agent_home: Path, *args: str) -> None:
    """hostile_server.py saved as `fx`, enabled and trusted for this process's environment."""
    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("hostile_server.py", *args)
    server = {"command": command[0], "args": command[1:], "cwd": str(SERVERS)}
    document = {"mcpServers": {"fx": server}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    trust_launch(store, "fx", SERVERS)
    fp = fingerprint(store.load().find("fx"))
    store.update_state("fx", fp, lambda s: replace(s, enabled=True))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=SERVERS,
        start_new_session=True,  # no controlling terminal: nothing can be asked
    )


@pytest.mark.anyio
async def test_a_tools_list_without_input_schema_after_list_changed_keeps_the_runtime_alive(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("hostile_server.py")
    save(store, {"fx": {"command": command[0], "args": command[1:]}})
    changed: list[str] = []
    malformed_list_arrived = anyio.Event()

    def observe(server: str, direction: str, text: str) -> None:
        if direction == "receive" and '"tools": [{"name": "go"}]' in text:
            malformed_list_arrived.set()

    log = agent_home / "mcp" / "fx.log"
    rt = runtime(
        store,
        agent_home,
        tmp_path,
        trust=ScriptedTrust(),
        on_tools_changed=changed.append,
        observe=observe,
    )
    async with rt:
        await rt.start("fx")
        cached = store.load().state("fx").cached_tools
        with anyio.fail_after(20):
            await rt.call_tool("fx", "break_tools_list", {})
            await malformed_list_arrived.wait()  # the refresh got its answer
            # A round trip later the refresh has handled that answer.
            echoed = await rt.call_tool("fx", "echo", {"text": "still here"})
        assert rt.status("fx").state == "ready"
    assert tool_result_from_mcp(echoed, 1000).text == "still here"
    assert changed == []  # the old tool list stands
    assert store.load().state("fx").cached_tools == cached
    note = [line for line in log.read_text("utf-8").splitlines() if "list_changed failed" in line]
    assert note[0].endswith(
        "refreshing tools after list_changed failed: MCP server 'fx' sent an answer that is "
        "not valid MCP while listing tools: tools.0.inputSchema: Field required"
    )


@pytest.mark.anyio
async def test_a_tool_result_of_the_wrong_shape_is_an_error_for_that_call_only(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("hostile_server.py")
    save(store, {"fx": {"command": command[0], "args": command[1:]}})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        with anyio.fail_after(20), pytest.raises(ToolCallError) as error:
            await rt.call_tool("fx", "malformed_result", {})
        with anyio.fail_after(20):
            echoed = await rt.call_tool("fx", "echo", {"text": "still here"})
    assert str(error.value).startswith(
        "MCP server 'fx' sent an answer that is not valid MCP while calling malformed_result: "
    )
    assert tool_result_from_mcp(echoed, 1000).text == "still here"


@pytest.mark.anyio
async def test_structured_content_against_the_tools_output_schema_is_an_error_for_that_call(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("hostile_server.py")
    save(store, {"fx": {"command": command[0], "args": command[1:]}})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        with anyio.fail_after(20), pytest.raises(ToolCallError) as error:
            await rt.call_tool("fx", "wrong_structure", {})
        with anyio.fail_after(20):
            echoed = await rt.call_tool("fx", "echo", {"text": "still here"})
    assert str(error.value) == (
        "MCP server 'fx' sent an answer the MCP client refused while calling wrong_structure: "
        "Invalid structured content returned by tool wrong_structure: "
        "'x\\nagent: forged' is not of type 'integer'"
    )
    assert tool_result_from_mcp(echoed, 1000).text == "still here"


def test_mcp_call_of_a_tool_with_a_malformed_result_prints_one_error_line_not_a_traceback(
    agent_home: Path,
) -> None:
    save_trusted_hostile(agent_home)

    done = run("mcp", "call", "fx", "malformed_result", "--args", "{}")

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(
        "agent: MCP server 'fx' sent an answer that is not valid MCP while calling "
        "malformed_result: content.0."
    )


def test_capability_keys_with_line_breaks_in_a_bad_handshake_print_as_one_agent_line(
    agent_home: Path,
) -> None:
    save_trusted_hostile(agent_home, "--bad-capabilities")

    done = run("mcp", "call", "fx", "echo", "--args", '{"text": "hi"}')

    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    first, *rest = done.stderr.splitlines()
    assert not any("forged" in line for line in rest)  # was "agent: agent: forged"
    assert first == (
        "agent: MCP server 'fx' sent an answer that is not valid MCP to the handshake: "
        "capabilities.experimental.x\\nagent: forged: Input should be a valid dictionary"
    )
