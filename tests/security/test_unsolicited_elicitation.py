"""An elicitation that arrives while no call of its server runs is declined at once, with a
one-line notice, and never draws a form over the chat's prompt.

The hostile server's ask_later returns at once and asks for a code from a background task
when the test signals (once the chat shows the call ended); its last_answer tool reports the
answer it got and how long it took (or "no answer" after 15 s). ask_and_leave returns when
the test signals that its form is on screen.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.pty_chat import pty_env, running_chat
from tests.security.dialog_servers import model_name, save_trusted_hostile_server, send_signal


def test_an_elicitation_outside_any_call_is_declined_at_once_with_a_notice_at_the_prompt(
    tmp_path: Path, agent_home: Path
) -> None:
    signal = tmp_path / "hx.sock"
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path), signal)
    turns = [
        {"tool_calls": [{"id": "c1", "name": model_name("ask_later"), "arguments": {}}]},
        {"text": "Scheduled it."},
        {"tool_calls": [{"id": "c2", "name": model_name("last_answer"), "arguments": {}}]},
        {"text": "Checked."},
    ]
    with running_chat(tmp_path, agent_home, turns) as (chat, fake):
        chat.expect("MCP server hx ready")
        chat.expect("›")
        chat.send("schedule\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Scheduled it.")
        chat.expect("›")
        send_signal(signal)  # the call is over: now the server sends its form
        chat.expect("Declined a form from MCP server hx[^\r\n]*")
        notice = chat.after
        chat.send("check\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Checked.")
    requests = fake.requests()
    assert "none of its tool calls was running" in notice  # the notice is one line
    answer = json.loads(requests[3]["body"]["messages"][-1]["content"])
    seconds = answer.pop("seconds")
    assert answer == {"action": "decline", "content": None}
    assert seconds < 3  # at once: nobody was asked (the server timed it)


def test_a_form_still_open_when_its_call_ends_is_closed_and_cancelled_before_the_prompt(
    tmp_path: Path, agent_home: Path
) -> None:
    signal = tmp_path / "hx.sock"
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path), signal)
    turns = [
        {"tool_calls": [{"id": "c1", "name": model_name("ask_and_leave"), "arguments": {}}]},
        {"text": "Left it."},
        {"tool_calls": [{"id": "c2", "name": model_name("last_answer"), "arguments": {}}]},
        {"text": "Checked."},
    ]
    with running_chat(tmp_path, agent_home, turns) as (chat, fake):
        chat.expect("MCP server hx ready")
        chat.expect("›")
        chat.send("go\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Answer MCP server hx\\?")  # the form is open; nobody answers it
        send_signal(signal)  # now the call ends, under the open form
        chat.expect("Closed a form from MCP server hx[^\r\n]*")
        notice = chat.after
        chat.expect("Left it.")
        chat.expect("›")
        chat.send("check\r")  # typed at the prompt, not into a form left behind
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Checked.")
    requests = fake.requests()
    assert "the tool call it asked for ended" in notice
    answer = json.loads(requests[3]["body"]["messages"][-1]["content"])
    assert answer == {"action": "cancel", "content": None}


def test_a_flood_of_forms_outside_any_call_is_said_once_and_counted_at_the_next_call(
    tmp_path: Path, agent_home: Path
) -> None:
    signal = tmp_path / "hx.sock"
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path), signal)
    turns = [
        {"tool_calls": [{"id": "c1", "name": model_name("ask_later"), "arguments": {"times": 40}}]},
        {"text": "Scheduled them."},
        {"tool_calls": [{"id": "c2", "name": model_name("last_answer"), "arguments": {}}]},
        {"text": "Checked."},
    ]
    with running_chat(tmp_path, agent_home, turns) as (chat, fake):
        chat.expect("MCP server hx ready")
        chat.expect("›")
        chat.send("schedule\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Scheduled them.")
        chat.expect("›")
        send_signal(signal)  # the call is over: now the server sends its 40 forms
        chat.expect("Declined a form from MCP server hx")
        # All 40 were asked and declined while no call ran (the server says so beside its
        # socket) before the next call may start.
        asked = signal.with_name(signal.name + ".asked")
        deadline = time.monotonic() + 120
        while not asked.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert asked.exists(), "the server never finished asking"
        chat.send("check\r")
        chat.expect("Approve\\?")
        shown = chat.before + chat.after
        chat.send("y")  # its next call begins: what was declined meanwhile is counted
        # Said when the call starts; drawn during the turn or at its end.
        chat.expect("Declined 39 more questions from MCP server hx: it asked while")
        shown += chat.before
        deadline = time.monotonic() + 30
        while len(fake.requests()) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)  # the model's last request, which carries last_answer's result
    requests = fake.requests()
    assert "Declined a form" not in shown  # one notice for the whole flood, then its count
    answer = json.loads(requests[3]["body"]["messages"][-1]["content"])
    assert answer["action"] == "decline"
