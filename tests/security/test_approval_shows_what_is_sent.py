"""The approval dialog shows exactly the arguments that will be sent.

A model may write numbers that JSON cannot carry (`1e999`, `Infinity`, `NaN`; Python's JSON
reader takes them). The dialog would show `Infinity` while the SDK sends `null` to a stdio or
HTTP server, and a commands tool would run `inf`: the person approves one value, the server
gets another. Such arguments are refused before anything is asked. The real `agent` in a
pseudo-terminal, the scripted model as a process, a real commands server."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pexpect

from tests.pty_chat import scripted_chat
from tests.security.command_tools_helpers import make_project, probe_tool, save_commands_server


def test_a_number_json_cannot_carry_is_refused_before_any_approval(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    env = {
        **os.environ,
        "AGENT_HOME": str(agent_home),
        "OPENAI_API_KEY": "sk-test",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "NO_COLOR": "1",
        "TERM": "xterm",
    }
    env.pop("AGENT_MODEL", None)
    limit = probe_tool("--keep-days={days}", properties={"days": {"type": "number"}})
    save_commands_server(agent_home, project, {"prune": limit}, environ=env)
    # The scripted model's file is JSON: float("inf") is written as Infinity, as a model may.
    call = {"id": "c1", "name": "mcp__cmd__prune", "arguments": {"days": float("inf")}}
    turns = [
        {"tool_calls": [call]},
        {"text": "Understood."},
    ]
    with scripted_chat(tmp_path, turns, env, project) as (chat, fake):
        chat.expect("MCP server cmd ready")
        chat.expect("›")
        chat.send("prune\r")
        if chat.expect(["Approve\\?", "Understood."]) == 0:
            chat.send("y")  # the person approves what the dialog shows
            chat.expect("Understood.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        requests = fake.requests()

    ran = project / "argv.json"
    assert not ran.exists(), f"approved 'Infinity', ran {json.loads(ran.read_text())}"
    result = requests[1]["body"]["messages"][-1]
    assert result["tool_call_id"] == "c1"
    assert result["content"].startswith("Error: mcp__cmd__prune: arguments")
    assert "Infinity" in result["content"]
