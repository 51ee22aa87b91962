"""A line half typed during a turn, when a question pops up: none of it answers the question,
and none of it is lost: it is set aside while the question is open, then put back, and the
person is told (the real chat in a pty, a real MCP server, the scripted model)."""

from __future__ import annotations

from pathlib import Path

from tests.pty_chat import scripted_chat


def test_a_half_typed_line_is_set_aside_during_an_approval_then_back_and_said(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    turns = [
        {"tool_calls": [{"id": "c1", "name": "mcp__fx__echo", "arguments": {"text": "x"}}],
         "delay_before": 1.5},
        {"text": "Not run."},
        {"text": "Second answer."},
    ]  # fmt: skip
    env = chat_env | {"AGENT_QUESTION_QUIET_SECONDS": "0.5"}
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("run it\r")
        chat.send("next thi")  # typed while the model thinks, no Enter yet
        chat.expect("Approve\\?")
        chat.send("n")
        chat.expect("✎ typing: next thi  \\(set aside while the question was open; it is back")
        chat.expect("Not run.")
        chat.expect("›")
        chat.send("ng\r")
        chat.expect("Second answer.")
        chat.expect("›")
        chat.send("\x15/exit\r")
        requests = fake.requests()
    declined = "Error: The person declined this tool call."
    assert requests[1]["body"]["messages"][-1]["content"] == declined
    assert requests[2]["body"]["messages"][-1] == {"role": "user", "content": "next thing"}
