"""Attacks on the console bridge (issue 14) through plain HTTP with raw headers, against the real
`agent mcp console --no-browser` and real fixture servers.

Whoever can call the bridge can run the configured programs: another web site (a form post,
a DNS-rebinding page, a page in a frame), another user's process on a shared machine that
guesses the port, a leaked link, or a page that names a program of its own. Each test makes
one such attempt and shows it is refused and changed nothing.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from tests import deadlines
from tests.commands.test_cli_mcp_console import AGENT
from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch
from tests.web.console_helpers import (
    Console,
    EventStream,
    goes_on_to_the_console,
    running_console,
)

SECRET = "console-canary-5d81e2"
NO_COOKIE = "open the link that agent mcp console printed\n"
USED = "this console link was already used: run agent mcp console again for a new one\n"


def save_servers(home: Path, servers: dict[str, Any], trusted: tuple[str, ...]) -> None:
    """Save these mcpServers in `home`, trusting the named ones for the console's environment."""
    from agent.mcp.config.document import parse_document_data
    from agent.mcp.store import McpStore

    home.mkdir(parents=True, exist_ok=True)
    environ = {**os.environ, "AGENT_HOME": str(home), "PAGE_SECRET": SECRET}
    with mock.patch.dict(os.environ, {"AGENT_HOME": str(home)}):  # the trust key's home too
        store = McpStore(home / "mcp-servers.json")
        document = parse_document_data({"mcpServers": servers}, "test")
        store.replace_definitions(document.definitions)
        for name in trusted:
            trust_launch(store, name, SERVERS, environ)


def fixture_server(script: str, **extra: Any) -> dict[str, Any]:
    command = server_command(script)
    return {"command": command[0], "args": command[1:], "cwd": str(SERVERS), **extra}


def marker_program(marker: Path) -> dict[str, Any]:
    """A server definition whose program, if it ever ran, would create `marker`."""
    code = f"open({str(marker)!r}, 'w').close()"
    return {"command": sys.executable, "args": ["-c", code], "cwd": str(SERVERS)}


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    """A bridge with fx (tools_server, trusted), evil (a marker program, untrusted) and ax
    (page_attack_server, trusted, its secret from ${PAGE_SECRET})."""
    root = tmp_path_factory.mktemp("guard")
    home = root / "home"
    servers = {
        "fx": fixture_server("tools_server.py"),
        "evil": marker_program(root / "evil-ran"),
        "ax": fixture_server("page_attack_server.py", env={"CONSOLE_SECRET": "${PAGE_SECRET}"}),
    }
    save_servers(home, servers, trusted=("fx", "ax"))
    with mock.patch.dict(os.environ, {"PAGE_SECRET": SECRET}), running_console(home) as console:
        yield console


# --- who may call it -------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.com:{port}", "127.0.0.1:1", "localhost.evil.com:{port}"])
def test_a_request_naming_another_host_is_refused_even_with_the_cookie(
    bridge: Console, host: str
) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 under its own name: the Host header says so.
    answer = bridge.request("GET", "/api/servers", headers={"Host": host.format(port=bridge.port)})

    assert (answer.status, answer.text) == (403, "wrong Host header\n")
    assert answer.headers["content-type"].startswith("text/plain")


def test_a_request_with_the_right_and_a_second_wrong_host_header_is_refused(
    bridge: Console,
) -> None:
    connection = socket.create_connection(("127.0.0.1", bridge.port), timeout=deadlines.REQUEST)
    with connection:
        request = (
            f"GET /api/servers HTTP/1.1\r\nHost: {bridge.host}\r\nHost: evil.com\r\n"
            f"Cookie: agent_console={bridge.cookie}\r\nConnection: close\r\n\r\n"
        )
        connection.sendall(request.encode())
        answer = connection.makefile("rb").read()

    assert answer.split(b"\r\n", 1)[0] in (b"HTTP/1.1 400 Bad Request", b"HTTP/1.1 403 Forbidden")
    assert b'"servers"' not in answer


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1"])
def test_a_request_from_another_origin_is_refused_even_with_the_cookie(
    bridge: Console, origin: str
) -> None:
    answer = bridge.post_with({"Origin": origin}, "/api/servers/fx/connect")

    assert (answer.status, answer.text) == (403, "foreign Origin\n")
    assert bridge.request("GET", "/api/servers").json()["servers"][0]["state"] == "stopped"


def test_the_bridges_own_origin_is_let_through(bridge: Console) -> None:
    answer = bridge.request(
        "GET", "/api/servers", headers={"Origin": f"http://localhost:{bridge.port}"}
    )

    assert answer.status == 200


@pytest.mark.parametrize("cookie", [None, "agent_console=wrong", "other=1"])
def test_a_request_without_the_session_cookie_is_refused(
    bridge: Console, cookie: str | None
) -> None:
    headers = {"Cookie": cookie} if cookie else {}
    answer = bridge.request("GET", "/api/servers", headers=headers, cookie=False)
    posted = bridge.request(
        "POST",
        "/api/servers/fx/connect",
        b"{}",
        {**headers, "Content-Type": "application/json"},
        cookie=False,
    )

    assert (answer.status, answer.text) == (401, NO_COOKIE)
    assert (posted.status, posted.text) == (401, NO_COOKIE)
    assert bridge.request("GET", "/api/servers").json()["servers"][0]["state"] == "stopped"


def test_the_link_works_once_then_never_again_with_or_without_the_cookie(
    bridge: Console,
) -> None:
    # The module's bridge opened its link already.
    again = bridge.request("GET", f"/open?token={bridge.token}", cookie=False)
    with_cookie = bridge.request("GET", f"/open?token={bridge.token}")
    wrong = bridge.request("GET", "/open?token=guess", cookie=False)

    for answer in (again, with_cookie, wrong):
        assert (answer.status, answer.text) == (403, USED)
        assert "set-cookie" not in answer.headers


def test_a_wrong_token_sets_no_cookie_and_leaves_the_right_one_working(tmp_path: Path) -> None:
    save_servers(tmp_path / "home", {}, trusted=())
    with running_console(tmp_path / "home", opened=False) as console:
        wrong = console.request("GET", "/open?token=guess", cookie=False)
        right = console.open_link()

    assert wrong.status == 403 and "set-cookie" not in wrong.headers
    assert goes_on_to_the_console(right) and console.cookie


def test_every_answer_carries_the_lock_down_headers(bridge: Console) -> None:
    for answer in (
        bridge.request("GET", "/api/servers"),
        bridge.request("GET", "/api/servers", cookie=False),
        bridge.request("GET", "/static/..%2F..%2Fguard.py"),
    ):
        assert answer.headers["content-security-policy"].startswith("default-src 'none';")
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["cache-control"] == "no-store"
        assert answer.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("name", ["..%2F..%2Fguard.py", "guard.py", "x.html", "A.js", ".js"])
def test_only_plain_static_file_names_are_served(bridge: Console, name: str) -> None:
    answer = bridge.request("GET", f"/static/{name}")

    assert answer.status == 404
    assert b"import" not in answer.body


@pytest.mark.parametrize(
    "host",
    ["0.0.0.0", "::", "192.168.1.10", "example.com", "myhost"],  # noqa: S104
)
def test_a_host_that_is_not_loopback_is_refused_before_anything_is_bound(
    tmp_path: Path, host: str
) -> None:
    with socket.socket() as probe:  # a port that is free now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "AGENT_HOME": str(tmp_path / "home")}

    result = subprocess.run(
        [AGENT, "mcp", "console", "--no-browser", "--host", host, "--port", str(port)],
        capture_output=True,
        text=True,
        env=env,
        timeout=deadlines.PROCESS,
        check=False,
    )

    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "agent mcp console serves this computer only: --host must be a loopback address such "
        "as 127.0.0.1\n"
    )
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port)):
        pass


# --- what a request may carry ----------------------------------------------------------------


def test_a_form_post_as_text_plain_is_refused_and_starts_nothing(bridge: Console) -> None:
    # What an HTML form on another site can send without a preflight.
    answer = bridge.request(
        "POST", "/api/servers/fx/connect", b"{}", {"Content-Type": "text/plain"}
    )

    assert answer.status == 415
    assert bridge.request("GET", "/api/servers").json()["servers"][0]["state"] == "stopped"


def test_an_oversized_body_is_refused_before_it_is_sent(bridge: Console) -> None:
    with socket.create_connection(
        ("127.0.0.1", bridge.port), timeout=deadlines.REQUEST
    ) as connection:
        head = (
            f"POST /api/servers/fx/send HTTP/1.1\r\nHost: {bridge.host}\r\n"
            f"Cookie: agent_console={bridge.cookie}\r\nX-Console-Key: {bridge.key}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {64 * 1024 * 1024}\r\n\r\n"
        )
        connection.sendall(head.encode() + b'{"message": ')  # and never the rest
        status = connection.makefile("rb").readline()

    assert status.startswith(b"HTTP/1.1 413 ")


def test_an_oversized_chunked_body_is_cut_off_at_the_cap(bridge: Console) -> None:
    with socket.create_connection(
        ("127.0.0.1", bridge.port), timeout=deadlines.REQUEST
    ) as connection:
        head = (
            f"POST /api/servers/fx/send HTTP/1.1\r\nHost: {bridge.host}\r\n"
            f"Cookie: agent_console={bridge.cookie}\r\nX-Console-Key: {bridge.key}\r\n"
            "Content-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        )
        connection.sendall(head.encode())
        chunk = b" " * 65536
        for _ in range(17):  # 17 x 64 KiB: over the 1 MiB cap
            connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        status = connection.makefile("rb").readline()

    assert status.startswith(b"HTTP/1.1 413 ")


def pipelined_statuses(console: Console, count: int) -> list[int]:
    """The statuses of `count` keyed GETs of /api/servers written at once on one connection
    (HTTP/1.1 pipelining). One after another, each waiting for its answer, they came slower
    than the bucket refills on a busy machine, so the flood never drained it; pipelined, the
    bridge takes the next the moment it answered one."""
    request = (
        f"GET /api/servers HTTP/1.1\r\nHost: {console.host}\r\n"
        f"Cookie: agent_console={console.cookie}\r\nX-Console-Key: {console.key}\r\n\r\n"
    ).encode()
    address = ("127.0.0.1", console.port)
    with socket.create_connection(address, timeout=deadlines.REQUEST) as connection:
        # Written by a thread: unread answers filling the socket must not block the writing.
        writer = threading.Thread(target=connection.sendall, args=(request * count,))
        writer.start()
        answers = connection.makefile("rb")
        statuses = []
        for _ in range(count):
            statuses.append(int(answers.readline().split()[1]))
            length = 0
            while (line := answers.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                length = int(value) if name.strip().lower() == b"content-length" else length
            answers.read(length)
        writer.join(deadlines.REQUEST)
    return statuses


def test_a_flood_of_requests_is_limited(tmp_path: Path) -> None:
    save_servers(tmp_path / "home", {}, trusted=())
    with running_console(tmp_path / "home") as console:
        statuses = pipelined_statuses(console, 400)
        limited = console.request("GET", "/api/servers")

    assert statuses.count(200) >= 200  # the burst
    assert 429 in statuses
    assert limited.status in (200, 429)
    if limited.status == 429:
        assert limited.json() == {"error": "too many requests"}


def test_a_ninth_event_stream_is_refused(bridge: Console) -> None:
    streams = [EventStream(bridge) for _ in range(8)]
    try:
        ninth = bridge.request("GET", "/api/events")
    finally:
        for stream in streams:
            stream.close()

    assert ninth.status == 429


# --- the page names servers, never programs ----------------------------------------------------


@pytest.mark.parametrize(
    "name", ["..%2Fx", "%2Fbin%2Fsh", "python%20-c%20x", "FX", "fx%20", "evil%00", "nope"]
)
def test_a_name_that_is_not_configured_starts_nothing(
    bridge: Console, name: str, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    program = {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}

    answer = bridge.post(f"/api/servers/{name}/connect", program)

    assert answer.status == 404
    assert not marker.exists()


def test_fields_naming_a_program_are_ignored(bridge: Console, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w')"
    hostile = {"command": sys.executable, "args": ["-c", code], "url": "http://evil.example/"}

    answer = bridge.post("/api/servers/fx/connect", hostile)
    bridge.post("/api/servers/fx/disconnect", {})

    assert answer.status == 200
    assert answer.json()["server"]["info"]["name"] == "tools_server"
    assert not marker.exists()


def test_an_untrusted_server_is_refused_and_its_program_never_runs(
    bridge: Console, tmp_path_factory: pytest.TempPathFactory
) -> None:
    listed = bridge.request("GET", "/api/servers").json()["servers"]
    evil = next(server for server in listed if server["name"] == "evil")

    answer = bridge.post("/api/servers/evil/connect", {})
    called = bridge.post("/api/servers/evil/call", {"tool": "x", "arguments": {}})

    assert (evil["trusted"], evil["note"]) == (False, "untrusted: run agent mcp trust evil")
    assert (answer.status, answer.json()) == (409, {"error": "untrusted: run agent mcp trust evil"})
    assert called.status == 409
    assert not any(path.name == "evil-ran" for path in tmp_path_factory.getbasetemp().rglob("*"))


def test_a_hand_written_message_cannot_reach_a_server_that_is_not_connected(
    bridge: Console,
) -> None:
    message = {"id": 1, "method": "tools/call", "params": {"name": "x"}}

    answer = bridge.post("/api/servers/evil/send", {"message": message})

    assert answer.status == 409


# --- what a hostile server sends --------------------------------------------------------------


def test_a_hostile_servers_text_comes_back_as_json_text_without_its_secret(
    bridge: Console,
) -> None:
    events = EventStream(bridge)
    try:
        events.wait_for(lambda kind, data: kind == "server")
        connected = bridge.post("/api/servers/ax/connect", {})
        listed = bridge.post("/api/servers/ax/list", {"kind": "tools"})
        called = bridge.post("/api/servers/ax/call", {"tool": "shout", "arguments": {"text": "hi"}})
        read = bridge.post("/api/servers/ax/read", {"uri": "fixture://page"})
        resources = bridge.post("/api/servers/ax/list", {"kind": "resources"})
        events.wait_for(lambda kind, data: kind == "log" and data.get("id") is not None)
        stderr = events.wait_for(lambda kind, data: kind == "log" and data["direction"] == "stderr")
    finally:
        events.close()

    answers = (connected, listed, called, read, resources)
    for answer in answers:
        assert answer.status == 200, answer.text
        assert answer.headers["content-type"] == "application/json"
        assert SECRET not in answer.text
    tool = listed.json()["items"][0]
    assert tool["description"].startswith("<script>alert(1)</script>")  # as text, exactly
    assert "\n\nevent: elicitation\n" in tool["description"]
    assert called.json()["result"]["content"][0]["text"].count("<script>") == 1
    assert "*" in connected.json()["server"]["info"]["instructions"]  # the secret, masked
    assert "<script>" in stderr[1]["text"] and SECRET not in stderr[1]["text"]
    seen = json.dumps(events.seen)
    assert SECRET not in seen
    assert not any(kind == "elicitation" for kind, _ in events.seen)  # no forged event


def test_a_server_that_needs_a_login_says_so_and_no_browser_is_opened(
    tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fixtures.oauth_cli import OAuthCli, recording_browser
    from tests.fixtures.oauth_fixtures import running_oauth_server

    browser, record = recording_browser(tmp_path)
    monkeypatch.setenv("BROWSER", str(browser))
    with running_oauth_server() as server:
        OAuthCli(tmp_path, server)  # imports it as fx; nobody logged in
        with running_console(agent_home) as console:
            answer = console.post("/api/servers/fx/connect", {})
            listed = console.request("GET", "/api/servers").json()["servers"][0]

    assert (answer.status, answer.json()) == (409, {"error": "needs login: run agent mcp login fx"})
    assert (listed["trusted"], listed["note"]) == (True, "needs login: run agent mcp login fx")
    assert not record.exists()
