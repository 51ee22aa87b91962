"""The chat as a person meets it: the real `agent` binary in a pseudo-terminal, the scripted
fake model server as a process, and a trusted fixture MCP server started by the chat."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pexpect

from tests.pty_chat import AGENT, TIMEOUT, FakeModelProcess, model_args, scripted_chat


def test_a_chat_approves_one_mcp_call_denies_another_with_a_reason_and_the_model_sees_both(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    echo = "mcp__fx__echo"
    turns = [
        {"tool_calls": [{"id": "c1", "name": echo, "arguments": {"text": "approved-text"}}]},
        {"tool_calls": [{"id": "c2", "name": echo, "arguments": {"text": "denied-text"}}]},
        {"text": "All done here."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("please echo twice\r")
        chat.expect("Approve\\?")
        assert 'text: "approved-text"' in chat.before
        chat.send("y")
        chat.expect("approved")
        # The second dialog, by its own arguments: a redraw of the first one must not count.
        chat.expect('text: "denied-text"')
        chat.expect("Approve\\?")
        chat.send("r")
        chat.expect("Reason for the model:")
        chat.send("not now\r")
        chat.expect("All done here.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        assert chat.exitstatus == 0
        requests = fake.requests()

    assert len(requests) == 3
    tools_offered = [t["function"]["name"] for t in requests[0]["body"]["tools"]]
    assert tools_offered == [
        "read_file",
        "list_files",
        "search_files",
        "write_file",
        "edit_file",
        "run_command",
        "update_todos",  # the chat's task list
        "delegate",  # subagents
        "activate_skill",  # the bundled skills
        "read_skill_resource",
        echo,
        "list_mcp_resources",  # fx (an MCPServer) declares the resources capability
        "read_mcp_resource",
    ]
    second, third = requests[1]["body"]["messages"], requests[2]["body"]["messages"]
    assert second[-1] == {"role": "tool", "content": "approved-text", "tool_call_id": "c1"}
    assert third[-1] == {
        "role": "tool",
        "content": "Error: The person declined this tool call. Their reason: not now",
        "tool_call_id": "c2",
    }


def test_piped_stdin_without_a_terminal_runs_one_turn_and_denies_mcp_calls(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    from agent.ui.oneshot import NO_TERMINAL_REASON

    turns = [
        {"tool_calls": [{"id": "c1", "name": "mcp__fx__echo", "arguments": {"text": "x"}}]},
        {"text": "Could not run it."},
    ]
    fake = FakeModelProcess(tmp_path, turns)
    try:
        completed = subprocess.run(
            [AGENT, *model_args(fake.base_url)],
            input="run echo",
            capture_output=True,
            text=True,
            env=chat_env,
            cwd=tmp_path,
            timeout=TIMEOUT,
            start_new_session=True,  # no controlling terminal: nobody can approve
        )
        requests = fake.requests()
    finally:
        fake.stop()
    assert completed.returncode == 3, completed.stderr  # a tool call was denied
    assert "Could not run it." in completed.stdout
    assert requests[1]["body"]["messages"][-1]["content"] == (
        f"Error: The person declined this tool call. Their reason: {NO_TERMINAL_REASON}"
    )


def test_a_key_typed_before_the_approval_question_appears_decides_nothing(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    turns = [
        {
            "text": "Thinking about it slowly before calling the tool.",
            "chunk_delay": 0.4,
            "tool_calls": [{"id": "c1", "name": "mcp__fx__echo", "arguments": {"text": "x"}}],
        },
        {"text": "Fine, not run."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("go\r")
        chat.expect("Thinking")
        chat.send("y")  # typed ahead, while the answer streams
        chat.expect("Approve\\?")
        chat.send("n")
        chat.expect("Fine, not run.")
        # The y answered nothing: it was set aside while the question was open, and is back
        # in the prompt (Ctrl-U clears it).
        chat.send("\x15/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert requests[1]["body"]["messages"][-1]["content"] == (
        "Error: The person declined this tool call."
    )
