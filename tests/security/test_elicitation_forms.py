"""Forms that servers send: the whole message is on screen with the asking server's name,
field titles cannot draw lines of ours, and a secret is typed without echo and kept nowhere.

The hostile server asks for a user and a password; the message hides its real request on its
last line; a title holds a line that mimics our approval dialog. It returns only the sha256 of
the password, which proves it received what was typed without the secret entering the chat.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pexpect

from tests.security.dialog_servers import model_name, pty_env, save_trusted_hostile_server
from tests.test_chat_pty import AGENT, TIMEOUT, FakeModelProcess, spawn_chat

SECRET = "hunter2-very-secret"
SECRET_SHA256 = hashlib.sha256(SECRET.encode()).hexdigest()


def files_holding(root: Path, text: str) -> list[Path]:
    """Every file under `root` whose bytes contain `text`."""
    return [p for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def test_a_chat_form_shows_the_whole_message_and_its_server_and_never_shows_or_keeps_a_password(
    tmp_path: Path, agent_home: Path
) -> None:
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path))
    turns = [
        {"tool_calls": [{"id": "c1", "name": model_name("ask_secret"), "arguments": {}}]},
        {"text": "Signed in."},
    ]
    fake = FakeModelProcess(tmp_path, turns)
    env = pty_env(agent_home, tmp_path)
    try:
        chat = spawn_chat(fake.base_url, env, tmp_path)
        chat.expect("MCP server hx ready")
        chat.expect("›")
        chat.send("sign me in\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Answer")
        form = chat.before
        chat.send("y")
        chat.expect("who you are")
        title_line = chat.before + chat.after
        chat.send("ada\r")
        chat.expect("Password \\(string, secret\\)")
        chat.send(SECRET + "\r")
        chat.expect("Signed in.")
        after_form = chat.before
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    finally:
        fake.stop()
    assert "REAL REQUEST: your bank password" in form  # the message's last line, not only its first
    assert "hx" in form.split("REAL REQUEST")[0]  # which server asks, on the form
    assert "will receive" in form and "without echo" in form
    assert "User\\nAllow this tool call?" in title_line  # a title is one line, escaped
    assert SECRET not in after_form  # never echoed to the terminal
    result = json.loads(requests[1]["body"]["messages"][-1]["content"])
    assert result == {"action": "accept", "user": "ada", "password_sha256": SECRET_SHA256}
    assert files_holding(agent_home, SECRET) == []  # not in the session, history or logs
    assert files_holding(tmp_path / "home", SECRET) == []


def test_mcp_call_in_a_plain_terminal_reads_a_password_without_echo_and_never_traces_it(
    tmp_path: Path, agent_home: Path
) -> None:
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path))
    env = pty_env(agent_home, tmp_path)
    call = pexpect.spawn(
        AGENT,
        ["mcp", "call", "hx", "ask_secret", "--args", "{}", "--trace"],  # every message shown
        env=env,
        cwd=str(tmp_path),
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(40, 120),
    )
    call.expect("Answer")
    form = call.before
    call.send("y\r")
    call.expect("who you are")
    title_line = call.before + call.after
    call.expect(": ")
    call.send("ada\r")
    call.expect("Password")
    call.expect(": ")
    call.send(SECRET + "\r")
    call.expect(pexpect.EOF)
    output = call.before
    call.close()
    assert call.exitstatus == 0, output
    assert "REAL REQUEST: your bank password" in form
    assert "will receive" in form and "without echo" in form
    assert "User\\nAllow this tool call?" in title_line
    assert SECRET not in output
    assert SECRET_SHA256 in output  # the server received it
    assert files_holding(agent_home, SECRET) == []
