"""The console bridge as the page uses it: the real `agent mcp console --no-browser`, real
fixture servers as its children, a real HTTP client on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from tests import deadlines
from tests.commands.test_cli_mcp_console import TOOL_NAMES
from tests.fixtures.mcp_fixtures import pid_alive, save_trusted_stdio_server, server_command
from tests.web.console_helpers import (
    Console,
    EventStream,
    goes_on_to_the_console,
    running_console,
    stop,
)


def save_servers(home: Path) -> None:
    """fx: tools_server paging 5 tools at a time; rs: resources_server; both trusted."""
    home.mkdir(parents=True, exist_ok=True)
    environ = {**os.environ, "AGENT_HOME": str(home)}
    fx = server_command("tools_server.py", "--page-size", "5")
    rs = server_command("resources_server.py", "--notes", "12", "--page-size", "10")
    with mock.patch.dict(os.environ, {"AGENT_HOME": str(home)}):  # the trust key's home too
        save_trusted_stdio_server(home, "fx", fx, environ, selected=None)
        save_trusted_stdio_server(home, "rs", rs, environ, selected=None)


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    """One bridge for this module's tests, fx and rs connected."""
    home = tmp_path_factory.mktemp("console") / "home"
    save_servers(home)
    with running_console(home) as bridge:
        for name in ("fx", "rs"):
            assert bridge.post(f"/api/servers/{name}/connect", {}).status == 200
        yield bridge


def call(console: Console, tool: str, arguments: dict[str, Any]) -> Any:
    answer = console.post("/api/servers/fx/call", {"tool": tool, "arguments": arguments})
    assert answer.status == 200, answer.text
    return answer.json()["result"]


def test_the_link_sets_a_strict_http_only_cookie_and_the_servers_show_no_program(
    tmp_path: Path,
) -> None:
    save_servers(tmp_path / "home")
    with running_console(tmp_path / "home", opened=False) as bridge:
        opened = bridge.open_link()

        assert goes_on_to_the_console(opened)
        attributes = {part.strip().lower() for part in opened.headers["set-cookie"].split(";")}
        assert {"httponly", "samesite=strict", "path=/"} <= attributes
        answer = bridge.request("GET", "/api/servers")
        assert answer.status == 200
        servers = answer.json()["servers"]
        assert [server["name"] for server in servers] == ["fx", "rs"]
        assert servers[0] == {
            "name": "fx",
            "type": "stdio",
            "enabled": True,
            "trusted": True,
            "startable": True,
            "note": None,
            "state": "stopped",
            "error": None,
            "info": None,
        }
        assert "tools_server.py" not in answer.text


def test_connect_answers_once_the_handshake_is_done_with_the_servers_info(
    console: Console,
) -> None:
    answer = console.post("/api/servers/fx/connect", {})

    assert answer.status == 200
    server = answer.json()["server"]
    assert server["state"] == "ready"
    assert server["info"]["name"] == "tools_server"
    assert server["info"]["protocolVersion"] == "2025-11-25"
    assert server["info"]["instructions"] == "Fixture server for tests."
    assert "tools" in server["info"]["capabilities"]


def test_a_list_comes_one_page_at_a_time_with_the_cursor_of_the_next(console: Console) -> None:
    names: list[str] = []
    cursor = None
    pages = 0
    while True:
        answer = console.post("/api/servers/fx/list", {"kind": "tools", "cursor": cursor})
        assert answer.status == 200, answer.text
        page = answer.json()
        pages += 1
        assert len(page["items"]) <= 5
        names += [tool["name"] for tool in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break

    assert (pages, names) == (4, TOOL_NAMES)
    first = console.post("/api/servers/fx/list", {"kind": "tools"}).json()["items"][1]
    assert first["name"] == "add"
    assert first["inputSchema"]["required"] == ["a", "b"]
    assert "outputSchema" in first  # MCP JSON, camelCase, as the server sent it


def test_a_list_of_a_kind_that_does_not_exist_is_refused_naming_the_field(
    console: Console,
) -> None:
    answer = console.post("/api/servers/fx/list", {"kind": "everything"})

    assert answer.status == 400
    assert answer.json()["error"].startswith("kind: ")


def test_a_tool_call_sends_typed_arguments_and_answers_the_mcp_result(console: Console) -> None:
    result = call(console, "add", {"a": 2, "b": 3})

    assert result["structuredContent"] == {"sum": 5}
    assert result["isError"] is False
    assert result["content"][0]["type"] == "text"


def test_arguments_that_break_the_schema_are_refused_before_anything_is_sent(
    console: Console,
) -> None:
    answer = console.post("/api/servers/fx/call", {"tool": "add", "arguments": {"a": "two"}})

    assert answer.status == 400
    error = answer.json()["error"]
    assert error.startswith("arguments: ")
    assert "'two' is not of type 'integer'" in error
    assert "'b' is a required property" in error


def test_a_resource_is_read_and_a_prompt_is_got_as_mcp_json(console: Console) -> None:
    listed = console.post("/api/servers/rs/list", {"kind": "resources"}).json()
    assert len(listed["items"]) == 10 and listed["nextCursor"] is not None
    assert listed["items"][0]["uri"] == "fixture://notes/1"

    read = console.post("/api/servers/rs/read", {"uri": "fixture://notes/3"})
    prompt = console.post(
        "/api/servers/rs/prompt", {"name": "review", "arguments": {"code": "x = 1"}}
    )

    assert read.status == 200, read.text
    assert read.json()["result"]["contents"] == [
        {"uri": "fixture://notes/3", "mimeType": "text/plain", "text": "Note 3."}
    ]
    assert prompt.status == 200, prompt.text
    got = prompt.json()["result"]
    assert got["description"] == "A code review"
    assert got["messages"][0]["role"] == "user"
    templates = console.post("/api/servers/rs/list", {"kind": "resourceTemplates"}).json()
    assert templates["items"] and "uriTemplate" in templates["items"][0]


def test_a_hand_written_request_is_answered_under_its_own_id(console: Console) -> None:
    answer = console.post("/api/servers/fx/send", {"message": {"id": 7, "method": "tools/list"}})

    assert answer.status == 200, answer.text
    sent = answer.json()["answer"]
    assert (sent["jsonrpc"], sent["id"]) == ("2.0", 7)
    assert len(sent["result"]["tools"]) == 5  # the first page: the server pages by itself
    error = console.post("/api/servers/fx/send", {"message": {"id": "x", "method": "no/such"}})
    assert error.json()["answer"]["error"]["code"] == -32601
    assert error.json()["answer"]["id"] == "x"


def test_a_hand_written_notification_answers_null_at_once(console: Console) -> None:
    message = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}

    answer = console.post("/api/servers/fx/send", {"message": message})

    assert (answer.status, answer.json()) == (200, {"answer": None})


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ([1], "message: "),
        ({"id": 1}, "message.method: "),
        ({"id": True, "method": "ping"}, "message.id: "),
        ({"id": 1.5, "method": "ping"}, "message.id: "),
        ({"method": "ping", "jsonrpc": "1.0"}, "message.jsonrpc: "),
    ],
)
def test_a_message_that_is_not_json_rpc_is_refused_naming_the_field(
    console: Console, message: object, field: str
) -> None:
    answer = console.post("/api/servers/fx/send", {"message": message})

    assert answer.status == 400
    assert answer.json()["error"].startswith(field)


def test_two_tabs_sending_the_same_id_at_once_each_get_their_own_answer(
    console: Console,
) -> None:
    slow = {"name": "slow", "arguments": {"seconds": 0.5, "steps": 1}}
    messages = {
        "slow": {"id": 1, "method": "tools/call", "params": slow},
        "echo": {"id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {}}},
    }
    messages["echo"]["params"]["arguments"] = {"text": "tab two"}
    answers: dict[str, Any] = {}
    start = threading.Barrier(2, timeout=deadlines.EXPECT)

    def send(which: str) -> None:
        start.wait()
        answers[which] = console.post("/api/servers/fx/send", {"message": messages[which]})

    threads = [threading.Thread(target=send, args=(which,)) for which in messages]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    slow_answer, echo_answer = answers["slow"].json()["answer"], answers["echo"].json()["answer"]
    assert (slow_answer["id"], echo_answer["id"]) == (1, 1)
    assert slow_answer["result"]["content"][0]["text"] == "done"
    assert echo_answer["result"]["content"][0]["text"] == "tab two"


def test_the_event_stream_shows_state_changes_messages_and_stderr_lines(
    console: Console,
) -> None:
    assert console.post("/api/servers/fx/disconnect", {}).json()["server"]["state"] == "stopped"
    events = EventStream(console)
    try:
        events.wait_for(lambda kind, data: kind == "server" and data["name"] == "fx")
        replayed = len(events.seen)  # the log kept from before, and the states
        assert console.post("/api/servers/fx/connect", {}).status == 200

        ready = events.wait_for(
            lambda kind, data: (
                kind == "server" and data["name"] == "fx" and data["state"] == "ready"
            )
        )
        # The handshake and the server's first stderr line came before it was ready.
        stderr = events.find(
            lambda kind, data: kind == "log" and data["direction"] == "stderr", replayed
        )
        sent = events.find(
            lambda kind, data: kind == "log" and data.get("method") == "initialize", replayed
        )
        received = events.find(
            lambda kind, data: kind == "log" and data["direction"] == "received", replayed
        )
    finally:
        events.close()

    assert ready[1]["info"]["name"] == "tools_server"
    assert stderr[1]["server"] == "fx"
    assert stderr[1]["text"].startswith("tools_server starting pid=")
    assert (sent[1]["direction"], sent[1]["kind"]) == ("sent", "request")
    assert json.loads(sent[1]["text"])["method"] == "initialize"
    assert received[1]["kind"] == "response"
    assert received[1]["time"].endswith("Z") and received[1]["cut"] is False


def test_a_form_is_shown_to_the_tabs_and_the_first_valid_answer_goes_to_the_server(
    console: Console,
) -> None:
    events = EventStream(console)
    result: dict[str, Any] = {}
    caller = threading.Thread(target=lambda: result.update(call(console, "ask_name", {})))
    try:
        events.wait_for(lambda kind, data: kind == "server")  # the stream is subscribed
        caller.start()
        _, form = events.wait_for(lambda kind, data: kind == "elicitation")
        assert (form["server"], form["message"]) == ("fx", "Who are you?")
        assert form["schema"]["required"] == ["name"]
        path = f"/api/elicitations/{form['id']}"

        wrong = console.post(path, {"action": "accept", "content": {"age": "old"}})
        right = console.post(path, {"action": "accept", "content": {"name": "Ada", "age": 36}})
        again = console.post(path, {"action": "decline"})
        _, done = events.wait_for(lambda kind, data: kind == "elicitation-done")
    finally:
        caller.join(timeout=60)
        events.close()

    assert wrong.status == 400
    assert "'name' is a required property" in wrong.json()["error"]
    assert "'old' is not of type 'number'" in wrong.json()["error"]
    assert (right.status, right.json()) == (200, {"ok": True})
    assert again.status == 404
    assert done == {"id": form["id"], "action": "accept"}
    assert json.loads(result["content"][0]["text"]) == {
        "action": "accept",
        "content": {"name": "Ada", "age": 36},
    }


def test_a_form_whose_every_page_closed_is_cancelled_with_a_note_not_declined(
    console: Console,
) -> None:
    events = EventStream(console)
    result: dict[str, Any] = {}
    caller = threading.Thread(target=lambda: result.update(call(console, "ask_name", {})))
    try:
        events.wait_for(lambda kind, data: kind == "server")
        caller.start()
        events.wait_for(lambda kind, data: kind == "elicitation")
    finally:
        events.close()  # the only page goes away with the form open
        caller.join(timeout=60)

    assert json.loads(result["content"][0]["text"]) == {"action": "cancel", "content": None}
    later = EventStream(console)
    try:
        later.wait_for(
            lambda kind, data: (
                kind == "log"
                and "the console page closed before the form was answered" in json.dumps(data)
            )
        )
    finally:
        later.close()


def test_a_form_with_no_tab_open_is_cancelled_at_once_since_nobody_declined_it(
    tmp_path: Path,
) -> None:
    save_servers(tmp_path / "home")
    with running_console(tmp_path / "home") as bridge:
        assert bridge.post("/api/servers/fx/connect", {}).status == 200

        result = call(bridge, "ask_name", {})

    assert json.loads(result["content"][0]["text"]) == {"action": "cancel", "content": None}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_ends_the_bridge_and_every_server_it_started(
    tmp_path: Path, signum: int
) -> None:
    home = tmp_path / "home"
    save_servers(home)
    with running_console(home) as bridge:
        assert bridge.post("/api/servers/fx/connect", {}).status == 200
        pid = server_pid(bridge)
        assert pid_alive(pid)
        events = EventStream(bridge)  # an open stream must not hold the stop up

        status = stop(bridge.process, signum)
        events.close()

    assert status in ((0,) if signum == signal.SIGTERM else (0, 130))
    assert not pid_alive(pid)


def server_pid(console: Console) -> int:
    """The pid of fx, from the stderr line it printed at start (the log's replay)."""
    events = EventStream(console)
    try:
        _, line = events.wait_for(
            lambda kind, data: kind == "log" and data["text"].startswith("tools_server starting")
        )
    finally:
        events.close()
    return int(line["text"].rsplit("=", 1)[1])


def test_a_long_message_is_cut_at_64_kib_in_the_log_but_not_in_the_answer(
    console: Console,
) -> None:
    events = EventStream(console)
    try:
        events.wait_for(lambda kind, data: kind == "server")
        result = call(console, "big_output", {"size": 100_000})
        _, entry = events.wait_for(
            lambda kind, data: kind == "log" and data["direction"] == "received" and data["cut"]
        )
    finally:
        events.close()

    assert len(result["content"][0]["text"]) == 100_000
    head, note = entry["text"][: 64 * 1024], entry["text"][64 * 1024 :]
    assert head.startswith('{"jsonrpc": "2.0", "id": ')
    assert note.startswith(f" [cut: {64 * 1024} of ") and note.endswith(" characters]")


@pytest.fixture(scope="module")
def impatient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    """A bridge whose tool timeout is 2 s, fx connected."""
    home = tmp_path_factory.mktemp("impatient") / "home"
    save_servers(home)
    (home / "settings.yaml").write_text("mcp:\n  tool_timeout_seconds: 2.0\n")
    with running_console(home) as bridge:
        assert bridge.post("/api/servers/fx/connect", {}).status == 200
        yield bridge


def test_a_hand_written_request_never_answered_times_out_with_504(impatient: Console) -> None:
    message = {"id": 1, "method": "tools/call", "params": {"name": "hang", "arguments": {}}}

    answer = impatient.post("/api/servers/fx/send", {"message": message})

    assert answer.status == 504
    assert "did not answer within 2 s" in answer.json()["error"]


def test_a_form_nobody_answers_is_closed_in_every_tab_when_its_time_is_up(
    impatient: Console,
) -> None:
    events = EventStream(impatient)
    called: dict[str, Any] = {}

    def ask() -> None:
        called["answer"] = impatient.post(
            "/api/servers/fx/call", {"tool": "ask_name", "arguments": {}}
        )

    caller = threading.Thread(target=ask)
    try:
        events.wait_for(lambda kind, data: kind == "server")
        caller.start()
        _, form = events.wait_for(lambda kind, data: kind == "elicitation")
        _, done = events.wait_for(lambda kind, data: kind == "elicitation-done")
    finally:
        caller.join(timeout=60)
        events.close()
    late = impatient.post(f"/api/elicitations/{form['id']}", {"action": "decline"})

    assert done == {"id": form["id"], "action": "cancel"}
    assert late.status == 404
    assert called["answer"].status in (200, 504)
