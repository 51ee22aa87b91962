"""Attack: a modern server asks for the person's input through multi-round `input_required`
results (multiround_server.py, a real SDK server) rather than the legacy back channel. What it
asks must reach the person exactly as a normal form does, a secret typed into it must stay as
hidden, roots must carry no more than a normal roots/list, and a server that never stops
asking must not bury the person in questions. The real `agent` in a pty."""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pexpect

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch
from tests.pty_chat import pty_env, scripted_chat, spawn_agent
from tests.security.inputs_helpers import agent_env, run_agent

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Shorter than the redactor's shortest secret: only knowing the field can hide it.
PIN = "Q7z"


def save_trusted_multiround_server(
    agent_home: Path, environ: dict[str, str], extra: tuple[str, ...] = ()
) -> None:
    """multiround_server.py as `mr`, trusted and enabled (its first listing selects all)."""
    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command("multiround_server.py") + list(extra)
    server = {"command": command[0], "args": command[1:], "cwd": str(SERVERS)}
    store.replace_definitions(parse_document_data({"mcpServers": {"mr": server}}, "t").definitions)
    trust_launch(store, "mr", SERVERS, environ)
    fp = fingerprint(store.load().find("mr"))
    store.update_state("mr", fp, lambda s: replace(s, enabled=True))


def test_a_short_pin_typed_into_a_multi_round_form_never_shows_in_the_trace(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    save_trusted_multiround_server(agent_home, env)
    call = spawn_agent(["mcp", "call", "mr", "ask_pin", "--args", "{}", "--trace"], env, tmp_path)
    shown = io.StringIO()
    call.logfile_read = shown
    call.expect("Your card PIN, please.")
    call.expect("Answer")
    call.send("y\r")
    call.expect("PIN")
    call.expect(": ")
    call.send(PIN + "\r")
    call.expect(pexpect.EOF)
    call.close()
    output = ANSI.sub("", shown.getvalue())
    assert call.exitstatus == 0, output
    assert hashlib.sha256(PIN.encode()).hexdigest() in output  # the server received it
    assert '"inputResponses"' in output  # the trace shows the round's answer ...
    assert PIN not in output  # ... with the secret field blanked, as a legacy answer has it


def test_a_server_that_asks_forever_is_not_asked_of_the_person_after_they_cancel(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    save_trusted_multiround_server(agent_home, env)
    nag = {"id": "c1", "name": "mcp__mr__ask_forever", "arguments": {"per_round": 8}}
    turns = [{"tool_calls": [nag]}, {"text": "Nagged."}]
    shown = io.StringIO()
    asked: set[str] = set()
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.logfile_read = shown
        chat.expect("MCP server mr ready")
        chat.expect("›")
        chat.send("nag me\r")
        chat.expect("Approve\\?")
        chat.send("y")
        while len(asked) <= 80 and chat.expect([r"Round \d+, question \d+", "Nagged."]) == 0:
            if chat.after in asked:
                continue  # the same form drawn again
            asked.add(chat.after)
            chat.expect("Answer MCP server mr")
            chat.send("c")  # the person cancels: stop asking
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    result = requests[1]["body"]["messages"][-1]["content"]
    # Before: every form of every round was asked after the cancel, 80 in all (8 a round, 10
    # rounds); now the first is the last, and the end names the server and what it did.
    assert asked == {"Round 1, question 0"}, f"{len(asked)} forms asked"
    assert "MCP server 'mr' kept asking for more input" in result
    # The form came as a normal one does: the same dialog, its server named above its message.
    assert "MCP server mr asks (its message, every line of it):" in ANSI.sub("", shown.getvalue())


def test_without_a_person_no_form_is_answered_for_them_and_roots_are_only_the_project(
    tmp_path: Path, agent_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    env = {**agent_env(tmp_path / "home", agent_home), "NO_COLOR": "1"}
    save_trusted_multiround_server(agent_home, env)
    # `agent mcp call` from a script: no terminal, so nobody can read a form.
    roots = run_agent(["mcp", "call", "mr", "ask_roots", "--args", "{}"], env, project)
    pin = run_agent(["mcp", "call", "mr", "ask_pin", "--args", "{}"], env, project)
    assert roots.returncode == 0, roots.stderr
    # A roots request inside input_required gets what roots/list gets: the project, nothing
    # more (never the home folder or the person's other folders).
    got = json.loads(roots.stdout.strip())
    assert got == {"roots": [{"uri": project.resolve().as_uri(), "name": "project"}]}
    assert pin.returncode == 0, pin.stderr
    assert pin.stdout.strip() == "no PIN: decline"  # declined unseen, never answered for them


def test_a_legacy_server_asking_again_and_again_is_not_asked_of_the_person_after_they_cancel(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    save_trusted_multiround_server(agent_home, env, ("--legacy",))  # the back channel's era
    arguments = json.dumps({"count": 6})
    call = spawn_agent(
        ["mcp", "call", "mr", "nag_back_channel", "--args", arguments], env, tmp_path
    )
    shown = io.StringIO()
    call.logfile_read = shown
    asked: set[str] = set()
    while len(asked) <= 6 and call.expect([r"Back channel question \d+", pexpect.EOF]) == 0:
        if call.after in asked:
            continue  # the same form drawn again
        asked.add(call.after)
        call.expect_exact("[c]ancel: ")
        call.send("c\r")  # the person cancels: stop asking
    call.close()
    output = ANSI.sub("", shown.getvalue())
    # Before: each of the six forms was asked after the cancel (a server may ask forever).
    assert asked == {"Back channel question 0"}, f"{len(asked)} forms asked"
    assert "cancel cancel cancel cancel cancel cancel" in output  # what the server got
    assert "Cancelled 5 more questions from MCP server mr unseen" in output


def test_a_prompt_the_person_asked_for_may_ask_them_through_input_required(
    tmp_path: Path, agent_home: Path
) -> None:
    # input_required on prompts/get is the protocol's, for a request the person started: its
    # form is theirs to answer, shown as a tool call's is. (Before, it was declined unseen as
    # "sent while none of its tool calls was running", and the prompt came back without it.)
    env = pty_env(agent_home, tmp_path)
    save_trusted_multiround_server(agent_home, env)
    got = spawn_agent(["mcp", "prompt", "mr", "greeting"], env, tmp_path)
    shown = io.StringIO()
    got.logfile_read = shown
    got.expect("Whom should the greeting name?")
    got.expect("Answer")
    got.send("y\r")
    got.expect("name")
    got.expect(": ")
    got.send("Ada\r")
    got.expect(pexpect.EOF)
    got.close()
    output = ANSI.sub("", shown.getvalue())
    assert got.exitstatus == 0, output
    assert "Hello, Ada." in output and "Declined" not in output
