"""Attack: a hostile model answer gives two tool calls the same id. Results, approvals and
the session file are matched to calls by id, so with two calls of one id the record lies: a
resume showed the call that ran as `no result (interrupted)` and pinned its result on the
other one, /export labelled the result with the other call's name, and the next request
carried two results for one id (which providers refuse). Each call of an answer must keep an
id of its own. The real chat in a pty, the scripted model, the echo fixture server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pexpect

from tests.pty_chat import finish, model_args, scripted_chat, spawn_agent

ECHO = "mcp__fx__echo"


def echo_call(call_id: str, text: str) -> dict[str, Any]:
    return {"id": call_id, "name": ECHO, "arguments": {"text": text}}


def test_two_calls_with_one_id_each_keep_their_own_result_approval_and_replay(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    turns = [
        {"tool_calls": [echo_call("dup", "RAN-FIRST"), echo_call("dup", "NEVER-RAN")]},
        {"text": "Done with both."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("echo twice\r")
        chat.expect("RAN-FIRST")
        chat.expect("NEVER-RAN")  # both calls in one dialog
        chat.expect("Approve call 1 of 2")
        chat.send("y")
        chat.expect("Approve call 2 of 2")
        chat.send("n")
        chat.expect("Done with both.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(r"to continue: agent --resume (\d{8}-\d{6}-[0-9a-f]{6})\r\n")
        session_id = chat.match.group(1)
        chat.expect(pexpect.EOF)
        requests = fake.requests()

        again = spawn_agent(
            [*model_args(fake.base_url), "--resume", session_id], chat_env, tmp_path
        )
        try:
            again.expect("Resumed ")
            replayed = again.before.replace("\r", "")
            finish(again)
        finally:
            again.close(force=True)

    results = [m for m in requests[1]["body"]["messages"] if m["role"] == "tool"]
    ids = [m["tool_call_id"] for m in results]
    assert len(set(ids)) == 2, ids  # one result per call, each for its own id
    assert "RAN-FIRST" in results[0]["content"]
    assert results[1]["content"] == "Error: The person declined this tool call."
    calls = requests[1]["body"]["messages"][-3]["tool_calls"]
    assert [c["id"] for c in calls] == ids
    # The resume shows the first call with its result, the second declined.
    lines = [line.strip() for line in replayed.split("\n")]
    first = lines.index("⏺ fx › echo (mcp__fx__echo)")
    assert lines[first + 1].startswith("⎿ ") and "interrupted" not in lines[first + 1], lines
    assert lines[first + 2] == "⏺ fx › echo (mcp__fx__echo)"
    assert lines[first + 3] == "✗ declined"
