"""A deferred server started by its first call (`agent -p`, issue 40) keeps both promises: the
call asks first, and the server starts only when its exact launch is trusted, checked right
before the spawn. Its script is changed while the approval is on screen: the yes approves the
call, not the changed program, so nothing starts and the model hears why."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pexpect

from agent.tools.search_tool import SEARCH_TOOL
from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import SERVERS
from tests.pty_chat import AGENT
from tests.ui.test_oneshot import model_args, oneshot_env, spawn_in_terminal
from tests.ui.test_oneshot_start import save_server

__all__ = ["oneshot_env"]  # the fixture, used by name


def test_a_deferred_server_whose_script_changed_before_its_first_call_never_starts(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    copy = tmp_path / "servers"
    copy.mkdir()
    for script in ("marking_server.py", "tools_server.py", "legacy_era.py"):
        shutil.copy(SERVERS / script, copy / script)
    marker = tmp_path / "started"
    script = copy / "marking_server.py"
    command = [sys.executable, str(script), str(marker)]
    save_server(agent_home, oneshot_env, "dx", command, "on")
    search = {"id": "s1", "name": SEARCH_TOOL, "arguments": {"query": "echo"}}
    call = {"id": "c1", "name": "mcp__dx__echo", "arguments": {"text": "hi"}}
    turns = [{"tool_calls": [search]}, {"tool_calls": [call]}, {"text": "Could not."}]
    with FakeOpenAI(turns) as fake:
        argv = shlex.join([AGENT, *model_args(fake), "-p", "echo"])
        agent = spawn_in_terminal(argv, oneshot_env, tmp_path)
        agent.expect_exact("Approve?")  # the call asks first, before anything starts
        assert not marker.exists()
        script.write_text(script.read_text() + "\n# changed after the trust\n")
        agent.send("y")
        agent.expect_exact("Could not.")
        agent.expect(pexpect.EOF)
        agent.close()
        requests = fake.requests

    assert not marker.exists()  # the changed program never ran
    result = requests[2]["body"]["messages"][-1]
    assert result["role"] == "tool"
    assert "MCP server 'dx' is not trusted here: what it runs changed" in result["content"]
    assert "the script it runs changed" in result["content"]
