"""Forms that servers send: the whole message is on screen with the asking server's name,
field titles cannot draw lines of ours, a secret is typed without echo and kept nowhere, a
schema that is not a flat form is declined with a notice, and only a typed y sends a form.

The hostile server asks for a user and a password; the message hides its real request on its
last line; a title holds a line that mimics our approval dialog. It returns only the sha256 of
the password, which proves it received what was typed without the secret entering the chat.
Its ask_form sends a message of tabs, or a malformed schema, and returns the answer it got.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pexpect
import pytest

from tests.pty_chat import (
    FakeModelProcess,
    pty_env,
    scripted_chat,
    spawn_agent,
    spawn_chat,
)
from tests.security.dialog_servers import model_name, save_trusted_hostile_server

SECRET = "hunter2-very-secret"
SECRET_SHA256 = hashlib.sha256(SECRET.encode()).hexdigest()
HEADER = "MCP server hx asks (its message, every line of it):"
PLAIN_QUESTION = re.escape("Answer? [y]es / [n]o (decline) / [c]ancel: ")


def visible(drawn: str) -> str:
    """What a terminal shows of `drawn`: without its colour and cursor sequences."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)


def files_holding(root: Path, text: str) -> list[Path]:
    """Every file under `root` whose bytes contain `text`."""
    return [p for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def ask_the_tabs_form(tmp_path: Path, agent_home: Path, reply: str) -> FakeModelProcess:
    """The trusted hostile server saved, and a model that calls ask_form (tabs), then `reply`."""
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path))
    ask = {"id": "c1", "name": model_name("ask_form"), "arguments": {"case": "tabs"}}
    return FakeModelProcess(tmp_path, [{"tool_calls": [ask]}, {"text": reply}])


def chat_at_the_tabs_form(fake: FakeModelProcess, env: dict[str, str], cwd: Path) -> pexpect.spawn:
    """A chat whose ask_form call was approved, stopped where the form asks to be answered."""
    chat = spawn_chat(fake.base_url, env, cwd)
    chat.expect("MCP server hx ready")
    chat.expect("›")
    chat.send("confirm\r")
    chat.expect("Approve\\?")
    chat.send("y")
    chat.expect("Answer MCP server hx\\?")
    return chat


def test_a_chat_form_shows_the_whole_message_and_its_server_and_never_shows_or_keeps_a_password(
    tmp_path: Path, agent_home: Path
) -> None:
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path))
    turns = [
        {"tool_calls": [{"id": "c1", "name": model_name("ask_secret"), "arguments": {}}]},
        {"text": "Signed in."},
    ]
    env = pty_env(agent_home, tmp_path)
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
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
    assert "REAL REQUEST: your bank password" in form  # the message's last line, not only its first
    assert HEADER in form.rsplit("REAL REQUEST", 1)[0]  # which server asks, above its message
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
    call = spawn_agent(
        ["mcp", "call", "hx", "ask_secret", "--args", "{}", "--trace"],  # every message shown
        env,
        tmp_path,
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
    assert HEADER in form.rsplit("REAL REQUEST", 1)[0]  # the trace shows the request first
    assert "will receive" in form and "without echo" in form
    assert "User\\nAllow this tool call?" in title_line
    assert SECRET not in output
    assert SECRET_SHA256 in output  # the server received it
    assert files_holding(agent_home, SECRET) == []


def test_a_message_of_tabs_cannot_push_what_the_server_will_receive_out_of_a_chat_form(
    tmp_path: Path, agent_home: Path
) -> None:
    fake = ask_the_tabs_form(tmp_path, agent_home, "Declined.")
    try:
        chat = chat_at_the_tabs_form(fake, pty_env(agent_home, tmp_path), tmp_path)
        form = chat.before  # what the terminal drew: a row cut off the window is not in it
        chat.send("n")
        chat.expect("Declined.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    finally:
        fake.stop()
    assert "Please confirm^I^I" in visible(form)  # each tab drawn as ^I, two columns
    assert "If you answer, MCP server hx will receive: password." in form
    assert "password is a secret: typed without echo" in form
    result = json.loads(requests[1]["body"]["messages"][-1]["content"])
    assert result == {"action": "decline", "content": None}


def test_a_chat_declines_a_form_with_a_malformed_schema_and_says_why_in_one_line(
    tmp_path: Path, agent_home: Path
) -> None:
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path))
    ask = {"id": "c1", "name": model_name("ask_form"), "arguments": {"case": "items_text"}}
    turns = [{"tool_calls": [ask]}, {"text": "Understood."}]
    with scripted_chat(tmp_path, turns, pty_env(agent_home, tmp_path), tmp_path) as (chat, fake):
        chat.expect("MCP server hx ready")
        chat.expect("›")
        chat.send("code\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Declined a form from MCP server hx[^\r\n]*")
        notice = chat.after
        chat.expect("Understood.")
        shown = chat.before
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert notice == (
        "Declined a form from MCP server hx: its schema is not a flat form "
        '(field "tags": "items" must be an object with the choices, not the text "x"); '
        "the server's author can fix it."
    )
    assert "Answer MCP server hx?" not in shown  # no form was drawn
    result = json.loads(requests[1]["body"]["messages"][-1]["content"])
    assert result == {"action": "decline", "content": None}


@pytest.mark.parametrize(
    ("case", "problem"),
    [
        (
            "items_text",
            'field "tags": "items" must be an object with the choices, not the text "x"',
        ),
        ("enum_number", 'field "colour": "enum" must be a non-empty list of values, not a number'),
        (
            "nested_object",
            'field "address": "type" must be one of string, number, integer, boolean, array, '
            'not the text "object"',
        ),
    ],
    ids=["items_text", "enum_number", "nested_object"],
)
def test_mcp_call_in_a_plain_terminal_declines_a_malformed_form_and_names_the_problem(
    tmp_path: Path, agent_home: Path, case: str, problem: str
) -> None:
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path))
    call = spawn_agent(
        ["mcp", "call", "hx", "ask_form", "--args", json.dumps({"case": case})],
        pty_env(agent_home, tmp_path),
        tmp_path,
        dimensions=(40, 200),
    )
    call.expect(pexpect.EOF)
    output = call.before
    call.close()
    assert call.exitstatus == 0, output
    assert output.splitlines() == [
        f"Declined a form from MCP server hx: its schema is not a flat form ({problem}); "
        "the server's author can fix it.",
        '{"action": "decline", "content": null}',
    ]


def test_enter_alone_never_sends_a_form_in_a_plain_terminal(
    tmp_path: Path, agent_home: Path
) -> None:
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path))
    call = spawn_agent(
        ["mcp", "call", "hx", "ask_secret", "--args", "{}"], pty_env(agent_home, tmp_path), tmp_path
    )
    call.expect(PLAIN_QUESTION)
    call.send("\r")  # Enter alone: the question is asked again, no field is
    asked_again = call.expect([PLAIN_QUESTION, "who you are"])
    call.send("n\r")
    call.expect(pexpect.EOF)
    output = call.before
    call.close()
    assert asked_again == 0
    assert call.exitstatus == 0, output
    assert output.strip().splitlines()[-1] == '{"action": "decline", "user": null, ' + (
        f'"password_sha256": "{hashlib.sha256(b"").hexdigest()}"}}'
    )


def test_a_password_typed_into_a_form_and_echoed_back_by_the_server_is_masked_for_the_model(
    tmp_path: Path, agent_home: Path
) -> None:
    # ask_form answers with the content it received: the password, in the tool's result.
    fake = ask_the_tabs_form(tmp_path, agent_home, "Confirmed.")
    try:
        chat = chat_at_the_tabs_form(fake, pty_env(agent_home, tmp_path), tmp_path)
        chat.send("y")
        chat.expect("\\(string, secret\\)")
        chat.send(SECRET + "\r")
        chat.expect("Confirmed.")
        shown = chat.before
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    finally:
        fake.stop()
    result = json.loads(requests[1]["body"]["messages"][-1]["content"])
    assert result == {"action": "accept", "content": {"password": "***"}}
    assert SECRET not in shown + json.dumps(requests)
    assert files_holding(agent_home, SECRET) == []  # not in the session, history or logs
