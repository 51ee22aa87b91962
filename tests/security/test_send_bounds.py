"""`agent mcp send` against a hostile or careless peer: an answer too large for a terminal is
printed cut with a note, and a hand-written id never shares the session's own id space (the
session numbers its requests 0, 1, 2..., and the SDK coerces ids). Real `agent` binary, real
in-process commands server and real fixture server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent.commands.mcp_send import ANSWER_CAP
from tests.commands.test_cli_mcp_console import trace_messages
from tests.security.command_tools_helpers import agent, make_project, save_commands_server


def test_a_huge_answer_is_printed_cut_with_a_note(tmp_path: Path, agent_home: Path) -> None:
    project = make_project(tmp_path)
    tool = {"command": [sys.executable, "-c", "print('x' * 600000)"]}
    save_commands_server(agent_home, project, {"flood": tool})
    message = {"method": "tools/call", "params": {"name": "flood", "arguments": {}}}

    result = agent("mcp", "send", "cmd", json.dumps(message), cwd=project)

    assert result.returncode == 0, result.stderr
    assert len(result.stdout) < ANSWER_CAP + 200
    assert "[answer cut at 262144 of " in result.stdout


def test_a_hand_written_id_goes_out_as_a_private_one_and_comes_back_as_written(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    save_commands_server(agent_home, project, {"t": {"command": ["true"]}})

    result = agent("mcp", "send", "cmd", '{"id": 1, "method": "ping"}', "--trace", cwd=project)

    assert result.returncode == 0, result.stderr
    note = "so it cannot be taken for one of the session's own requests"
    trace = "\n".join(line for line in result.stderr.splitlines() if note not in line)
    sent = [message for arrow, message in trace_messages(trace) if arrow == "->"]
    ping = next(message for message in sent if message.get("method") == "ping")
    assert isinstance(ping["id"], str) and ping["id"].startswith("agent-send-")
    assert json.loads(result.stdout)["id"] == 1
    assert note in result.stderr
