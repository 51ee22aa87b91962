"""Typed-ahead keys are the person's next message and nothing else: they never answer a
dialog drawn later, and escape sequences in them (pasted text, a hostile clipboard) neither
reach the terminal nor the model. The real `agent` in a pseudo-terminal, the scripted model
as a process, a trusted fixture MCP server."""

from __future__ import annotations

import io
from pathlib import Path

import pexpect

from tests.pty_chat import scripted_chat

STREAMING = {"text": "Streaming the first answer slowly.", "chunk_delay": 0.4, "text_chunks": 8}


def test_a_queued_y_does_not_approve_the_tool_call_that_follows_and_is_sent_as_a_message(
    tmp_path: Path,
    trusted_fixture_server: None,
    chat_env: dict[str, str],
) -> None:
    call = {"id": "c1", "name": "mcp__fx__echo", "arguments": {"text": "x"}}
    turns = [{**STREAMING, "tool_calls": [call]}, {"text": "Fine, not run."}, {"text": "Got y."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("go\r")
        chat.expect("Streaming")
        chat.send("y\r")  # typed ahead and queued, before the question is on screen
        chat.expect("queued: y")
        chat.expect("Approve\\?")
        chat.send("n")
        chat.expect("Fine, not run.")
        chat.expect("Got y.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert requests[1]["body"]["messages"][-1]["content"] == (
        "Error: The person declined this tool call."
    )
    assert requests[2]["body"]["messages"][-1] == {"role": "user", "content": "y"}


def test_escape_sequences_typed_ahead_reach_neither_the_terminal_nor_the_model(
    tmp_path: Path,
    chat_env: dict[str, str],
) -> None:
    hostile = (
        "\x1b]0;pwned-title\x07"  # set the window title
        "\x1b[2J"  # clear the screen
        "hello"
        "\x1b]8;;https://evil.invalid/\x1b\\"  # a hyperlink
        " there"
        "\x1b[31m"  # colour
        "\x9b2J"  # a C1 CSI
        "\r"
    )
    turns = [STREAMING, {"text": "Second answer."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.logfile_read = transcript = io.StringIO()  # everything the terminal was sent
        chat.expect("›")
        chat.send("first question\r")
        chat.expect("Streaming")
        chat.send(hostile)
        chat.expect("queued: hello there")
        chat.expect("Second answer.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        screen = transcript.getvalue()
        requests = fake.requests()
    assert requests[1]["body"]["messages"][-1] == {"role": "user", "content": "hello there"}
    assert "pwned" not in screen and "evil.invalid" not in screen
    assert "\x1b[2J" not in screen and "\x1b]" not in screen
