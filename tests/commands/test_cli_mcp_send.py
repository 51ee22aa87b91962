"""`agent mcp send` and the server's own requests in `agent mcp inspect`, as a person uses
them: the real `agent` binary, real fixture servers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.commands.test_cli_mcp_console import (  # noqa: F401  (fixtures: trusted_store, remote...)
    TOKEN,
    TOOL_NAMES,
    agent,
    headers_log,
    http_server,
    import_servers,
    remote,
    trace_messages,
    trusted_store,
)
from tests.fixtures.mcp_fixtures import server_command, trust_launch


@pytest.fixture
def fx(trusted_store: Path, agent_home: Path) -> str:  # noqa: F811
    """This test's AGENT_HOME holds the trusted, discovered server fx (tools_server)."""
    agent_home.mkdir()
    for name in ("mcp-servers.json", "trust.key"):
        shutil.copy2(trusted_store / name, agent_home / name)
    return "fx"


def test_send_prints_the_answer_to_a_request_given_an_id_of_ours(fx: str) -> None:
    result = agent("mcp", "send", fx, '{"method": "tools/list"}')

    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert (answer["jsonrpc"], answer["id"]) == ("2.0", "agent-send-1")
    assert [tool["name"] for tool in answer["result"]["tools"]] == TOOL_NAMES


def test_send_keeps_a_hand_written_id_and_an_error_answer_exits_one(fx: str) -> None:
    result = agent("mcp", "send", fx, '{"jsonrpc": "2.0", "id": 7, "method": "no/such"}')

    assert (result.returncode, result.stdout) == (1, "")
    note, shown = result.stderr.split("\n", 1)
    assert "the answer is shown with your id" in note
    answer = json.loads(shown)
    assert (answer["id"], answer["error"]["code"]) == (7, -32601)


def test_send_of_a_notification_prints_nothing_and_the_trace_shows_it_sent(fx: str) -> None:
    result = agent("mcp", "send", fx, '{"method": "notifications/roots/list_changed"}', "--trace")

    assert (result.returncode, result.stdout) == (0, "")
    sent = [message for arrow, message in trace_messages(result.stderr) if arrow == "->"]
    assert sent[-1] == {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}


def test_send_refuses_what_is_not_a_json_rpc_message_and_starts_nothing(fx: str) -> None:
    for text, error in [
        ("[1]", 'agent: JSON: expected an object such as {"method": "tools/list"}'),
        ('{"id": 1}', 'agent: JSON: expected a "method"'),
        ('{"method": "ping", "id": true}', 'agent: JSON: "id" must be a string or an integer'),
        ('{"method": "ping", "jsonrpc": "1.0"}', 'agent: JSON: "jsonrpc" must be "2.0"'),
        ("{nope", "agent: JSON: not valid JSON (Expecting property name"),
    ]:
        result = agent("mcp", "send", fx, text)
        assert result.returncode == 1, text
        assert result.stderr.startswith(error), result.stderr


def test_send_answers_the_servers_own_requests_while_it_waits(fx: str) -> None:
    call = {"method": "tools/call", "params": {"name": "list_roots", "arguments": {}}}

    result = agent("mcp", "send", fx, json.dumps(call), "--trace")

    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert json.loads(answer["result"]["content"][0]["text"]) == [Path.cwd().resolve().as_uri()]
    messages = trace_messages(result.stderr)
    asked = next(m for arrow, m in messages if arrow == "<-" and m.get("method") == "roots/list")
    answers = [m for arrow, m in messages if arrow == "->" and "method" not in m]
    answered = next(m for m in answers if m["id"] == asked["id"])
    assert answered["result"]["roots"][0]["uri"] == Path.cwd().resolve().as_uri()


def test_inspect_lists_the_servers_requests_to_us_and_what_we_answered(
    agent_home: Path, tmp_path: Path
) -> None:
    command = server_command("asking_server.py")
    import_servers({"ask": {"command": command[0], "args": command[1:], "cwd": str(tmp_path)}})
    from agent.mcp.store import McpStore

    trust_launch(McpStore(agent_home / "mcp-servers.json"), "ask", Path.cwd())

    result = agent("mcp", "inspect", "ask")

    assert result.returncode == 0, result.stderr
    shown = result.stdout.split("requests from the server (3):\n", 1)[1]
    root = json.dumps({"roots": [{"uri": Path.cwd().resolve().as_uri(), "name": "project"}]})
    assert shown.splitlines() == [
        "  ping -> {}",
        f"  roots/list -> {root}",
        '  elicitation/create -> {"action": "decline"}',
    ]


def test_send_to_a_streamable_http_server_answers_and_the_trace_hides_its_token(
    remote: str,  # noqa: F811
) -> None:
    call = {"method": "tools/call", "params": {"name": "echo", "arguments": {"text": TOKEN}}}

    result = agent("mcp", "send", remote, json.dumps(call), "--trace")

    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["id"] == "agent-send-1"
    assert answer["result"]["content"][0]["text"] == "***"  # the token is the header's secret
    sent = [message for arrow, message in trace_messages(result.stderr) if arrow == "->"]
    assert sent[-1]["id"] == "agent-send-1"
    assert TOKEN not in result.stdout + result.stderr
