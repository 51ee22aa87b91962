"""The commands server through the real McpRuntime: started after the trust question, called
like any MCP server, and a cancelled call leaves no process behind."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from agent.mcp.store import McpStore
from tests import deadlines
from tests.fixtures.mcp_fixtures import pid_alive
from tests.mcp.runtime_helpers import ScriptedTrust, runtime, save

SLEEPER = """\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open("pids", "w").write(f"{os.getpid()} {child.pid}")
time.sleep(600)
"""


def commands_server(project: Path) -> dict[str, object]:
    echo = "import sys; print(' '.join(sys.argv[1:]))"
    return {
        "type": "commands",
        "cwd": str(project),
        "tools": {
            "echo": {
                "command": [sys.executable, "-c", echo, "{words}"],
                "input_schema": {
                    "type": "object",
                    "properties": {"words": {"type": "array", "items": {"type": "string"}}},
                },
            },
            "sleep": {
                "command": [sys.executable, "sleeper.py"],
                "input_schema": {"type": "object"},
            },
        },
    }


@pytest.mark.anyio
async def test_a_commands_server_asks_trust_then_lists_and_runs_its_tools(tmp_path: Path) -> None:
    store = McpStore(tmp_path / "mcp-servers.json")
    save(store, {"cmd": commands_server(tmp_path)})
    trust = ScriptedTrust()

    with anyio.fail_after(deadlines.PROCESS):
        async with runtime(store, tmp_path, tmp_path, trust=trust) as mcp:
            state = await mcp.tools_state("cmd")
            result = await mcp.call_tool("cmd", "echo", {"words": ["a b", "c"]})

    assert [request.tools[0].split(":")[0] for request in trust.requests] == ["echo"]
    assert [tool.name for tool in state.cached_tools or ()] == ["echo", "sleep"]
    assert store.load().state("cmd").trusted_launches  # recorded once the tools were listed
    assert (result.is_error, result.structured_content) == (
        False,
        {"exit_code": 0, "stdout": "a b c\n", "stderr": "", "truncated": False, "timed_out": False},
    )


@pytest.mark.anyio
async def test_a_cancelled_call_kills_the_program_and_its_children(tmp_path: Path) -> None:
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    store = McpStore(tmp_path / "mcp-servers.json")
    save(store, {"cmd": commands_server(tmp_path)})

    with anyio.fail_after(deadlines.PROCESS):
        async with runtime(store, tmp_path, tmp_path, trust=ScriptedTrust()) as mcp:
            await mcp.start("cmd")
            with anyio.move_on_after(2):  # the person gave up on the call
                await mcp.call_tool("cmd", "sleep", {})
            pids = [int(pid) for pid in (tmp_path / "pids").read_text().split()]
            # The server hears of the cancel and ends the call while the runtime lives on.
            while any(pid_alive(pid) for pid in pids):
                await anyio.sleep(0.05)

    assert not any(pid_alive(pid) for pid in pids)
