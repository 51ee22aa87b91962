"""Attack: a server says its own secret (the password of its connection string from a `${VAR}`,
or the bearer token it was sent) in everything it lists or asks: its version and instructions,
tool titles, descriptions and schemas, a tool name, a schema's property name, resources,
templates, prompts, and a form's message and fields. The secret reaches nothing: not the
model's request, not mcp-servers.json, not `agent mcp tools/inspect/resources/prompts`, not a
form in a chat or in `agent mcp call --trace`, not the console's answers or events. A tool or
form whose names carry the secret (a masked name cannot be called back) is withheld, said once.
Through the real CLI, a pty, the scripted model and the console over HTTP; stdio and HTTP."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.pty_chat import scripted_chat, spawn_agent
from tests.security.inputs_helpers import one_shot, run_agent
from tests.security.leaky_servers import SERVER, Leaky, leaky_server
from tests.web.console_helpers import EventStream, running_console

MASKED_URL = "postgres://app:***@db.internal/app"
WITHHELD = "tool login_*** of MCP server lx cannot be offered: its name carries a secret"


@pytest.fixture(params=["stdio", "http"])
def leaky(request: pytest.FixtureRequest, agent_home: Path, tmp_path: Path) -> Iterator[Leaky]:
    with leaky_server(request.param, agent_home, tmp_path / "home") as server:
        yield server


def visible(drawn: str) -> str:
    """What a terminal shows of `drawn`: without its colour and cursor sequences."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)


def agent(leaky: Leaky, cwd: Path, *args: str) -> str:
    """`agent ARGS` without a terminal; its stdout and stderr (it must succeed)."""
    done = run_agent(list(args), leaky.env, cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_listings_reach_the_store_and_the_cli_masked_and_a_leaky_name_is_withheld(
    leaky: Leaky, agent_home: Path, tmp_path: Path
) -> None:
    tools = agent(leaky, tmp_path, "mcp", "tools", SERVER)  # lists them and caches them
    schemas = agent(leaky, tmp_path, "mcp", "tools", SERVER, "--schema")
    inspected = agent(leaky, tmp_path, "mcp", "inspect", SERVER)
    resources = agent(leaky, tmp_path, "mcp", "resources", SERVER)
    prompts = agent(leaky, tmp_path, "mcp", "prompts", SERVER)
    stored = (agent_home / "mcp-servers.json").read_text(encoding="utf-8")

    for shown in (tools, schemas, inspected, resources, prompts, stored):
        assert leaky.secret not in shown
    cached = json.loads(stored)["runtime"][SERVER]["cached_tools"]
    assert [tool["name"] for tool in cached] == ["query", "ask", "ask_named"]
    query = cached[0]
    assert query["description"] == f"Run SQL on {MASKED_URL}."
    sql = query["input_schema"]["properties"]["sql"]
    assert sql == {
        "type": "string",
        "title": f"SQL for {MASKED_URL}",
        "description": "The query to run as app (password ***)",
        "default": "select '***'",
        "examples": [f"select 1 -- {MASKED_URL}"],
    }
    assert query["input_schema"]["properties"]["target"]["enum"] == ["***", "replica"]
    assert query["input_schema"]["required"] == ["sql"]  # the structure is whole
    assert WITHHELD in tools  # said, with the reason, instead of a tool nobody can call
    assert "tool connect of MCP server lx cannot be offered: an argument name" in tools
    assert f"Connect with {MASKED_URL}; the password is ***." in inspected
    assert "Notes on ***" in resources and "Explain ***" in prompts


def test_the_models_request_never_carries_a_servers_secret(
    leaky: Leaky, agent_home: Path, tmp_path: Path
) -> None:
    agent(leaky, tmp_path, "mcp", "tools", SERVER)
    done, requests = one_shot([{"text": "ok"}], "hi", leaky.env, tmp_path)

    assert done.returncode == 0, done.stderr
    assert leaky.secret not in json.dumps(requests) + done.stdout + done.stderr
    offered = {tool["function"]["name"]: tool["function"] for tool in requests[0]["body"]["tools"]}
    assert offered["mcp__lx__query"]["description"] == f"Run SQL on {MASKED_URL}."
    assert not any("login" in name or "connect" in name for name in offered)


def test_a_form_in_mcp_call_trace_shows_the_secret_masked_and_a_leaky_field_is_declined(
    leaky: Leaky, tmp_path: Path
) -> None:
    call = spawn_agent(
        ["mcp", "call", SERVER, "ask", "--args", "{}", "--trace"], leaky.env, tmp_path
    )
    call.expect("Answer")
    output = call.before + call.after
    call.send("y\r")
    call.expect(re.escape(f"User at {MASKED_URL}"))
    call.expect(": ")
    output += call.before + call.after
    call.send("ada\r")
    call.expect(pexpect.EOF)
    output += call.before
    call.close()
    named = run_agent(["mcp", "call", SERVER, "ask_named", "--args", "{}"], leaky.env, tmp_path)

    assert call.exitstatus == 0, output
    assert leaky.secret not in output
    assert f"Log in to {MASKED_URL}" in output and "[app-***]" in output
    assert '{"action": "accept", "content": {"user": "ada"}}' in output  # what the server got
    assert named.returncode == 0, named.stderr
    assert leaky.secret not in named.stdout + named.stderr
    assert named.stdout.strip() == '{"action": "decline"}'
    assert "Declined a form from MCP server lx" in named.stderr


def test_a_chat_form_and_the_models_requests_never_show_the_secret(
    agent_home: Path, tmp_path: Path
) -> None:
    turns = [
        {"tool_calls": [{"id": "c1", "name": "mcp__lx__ask", "arguments": {}}]},
        {"text": "Connected."},
    ]
    with leaky_server("stdio", agent_home, tmp_path / "home") as leaky:
        agent(leaky, tmp_path, "mcp", "tools", SERVER)  # lists and selects them
        with scripted_chat(tmp_path, turns, leaky.env) as (chat, fake):
            chat.expect("MCP server lx ready")
            chat.expect("›")
            chat.send("connect me\r")
            chat.expect("Approve\\?")
            chat.send("y")
            chat.expect("Answer")
            form = chat.before
            chat.send("y")
            chat.expect(re.escape("(string): app-***"))  # the default, masked, to edit
            fields = chat.before + chat.after
            chat.send("\x15ada\r")  # Ctrl-U clears it
            chat.expect("Connected.")
            chat.send("/exit\r")
            chat.expect(pexpect.EOF)
            requests = fake.requests()

    assert f"Log in to {MASKED_URL}" in visible(form)
    assert f"User at {MASKED_URL}" in visible(fields)
    assert leaky.secret not in form + fields + json.dumps(requests)
    result = json.loads(requests[1]["body"]["messages"][-1]["content"])
    assert result == {"action": "accept", "content": {"user": "ada"}}


def test_the_console_receives_listings_instructions_and_forms_masked(
    leaky: Leaky, agent_home: Path
) -> None:
    with running_console(agent_home, env=leaky.env) as console, ThreadPoolExecutor(1) as pool:
        events = EventStream(console)
        try:
            connected = console.post(f"/api/servers/{SERVER}/connect", {})
            lists = {
                kind: console.post(f"/api/servers/{SERVER}/list", {"kind": kind})
                for kind in ("tools", "resources", "resourceTemplates", "prompts")
            }
            called = pool.submit(
                console.post, f"/api/servers/{SERVER}/call", {"tool": "ask", "arguments": {}}
            )
            _, form = events.wait_for(lambda kind, data: kind == "elicitation")
            answer = {"action": "accept", "content": {"user": "ada"}}
            answered = console.post(f"/api/elicitations/{form['id']}", answer)
            result = called.result(timeout=60)
            leaky_call = console.post(
                f"/api/servers/{SERVER}/call", {"tool": "login_***", "arguments": {}}
            )
        finally:
            events.close()
        servers = console.request("GET", "/api/servers")

    answers: list[Any] = [connected, *lists.values(), answered, result, servers]
    for got in answers:
        assert got.status == 200, got.text
        assert leaky.secret not in got.text
    assert leaky.secret not in json.dumps(events.seen)
    info = connected.json()["server"]["info"]
    assert info["instructions"] == f"Connect with {MASKED_URL}; the password is ***."
    names = [tool["name"] for tool in lists["tools"].json()["items"]]
    assert names == ["query", "ask", "ask_named"]
    assert form["message"] == f"Log in to {MASKED_URL}\nwith the password ***"
    assert form["schema"]["properties"]["user"]["default"] == "app-***"
    told = json.loads(result.json()["result"]["content"][0]["text"])
    assert told == {"action": "accept", "content": {"user": "ada"}}
    assert leaky_call.status == 404, leaky_call.text  # withheld, not called as "login_***"
