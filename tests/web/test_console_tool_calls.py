"""A tool call from the page sends only what the person asked for: no tools/list of our own
before it when the page has listed the tool already on this connection."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from unittest import mock

from tests.fixtures.mcp_fixtures import save_trusted_stdio_server, server_command
from tests.web.console_helpers import Console, EventStream, running_console


def save_servers(home: Path) -> None:
    """fx: tools_server, trusted."""
    home.mkdir(parents=True, exist_ok=True)
    environ = {**os.environ, "AGENT_HOME": str(home)}
    with mock.patch.dict(os.environ, {"AGENT_HOME": str(home)}):  # the trust key's home too
        command = server_command("tools_server.py")
        save_trusted_stdio_server(home, "fx", command, environ, selected=None)


def sent_methods(events: EventStream) -> list[str]:
    """The methods of the requests the bridge sent to fx so far, in order, but the era probe
    (server/discover, which this handshake-era fixture refuses) that precedes the handshake."""
    return [
        data["method"]
        for kind, data in events.seen
        if kind == "log"
        and data["server"] == "fx"
        and data["direction"] == "sent"
        and data["kind"] == "request"
        and data["method"] != "server/discover"
    ]


def call_echo(console: Console) -> Any:
    answer = console.post("/api/servers/fx/call", {"tool": "echo", "arguments": {"text": "hi"}})
    assert answer.status == 200, answer.text
    return answer.json()["result"]


def test_a_call_after_the_page_listed_the_tool_sends_no_tools_list(tmp_path: Path) -> None:
    save_servers(tmp_path / "home")
    with running_console(tmp_path / "home") as console:
        events = EventStream(console)
        try:
            assert console.post("/api/servers/fx/connect", {}).status == 200
            listed = console.post("/api/servers/fx/list", {"kind": "tools"})
            assert "echo" in [tool["name"] for tool in listed.json()["items"]]
            call_echo(console)
            call_echo(console)
            events.wait_for(lambda kind, data: sent_methods(events)[-1:] == ["tools/call"])
            events.wait_for(lambda kind, data: sent_methods(events).count("tools/call") == 2)
        finally:
            events.close()

    # The start's own listing (every start lists again), then the page's: the calls list nothing.
    assert sent_methods(events) == [
        "initialize",
        "tools/list",
        "tools/list",
        "tools/call",
        "tools/call",
    ]


def test_a_call_of_a_tool_the_page_never_listed_lists_once_then_remembers(tmp_path: Path) -> None:
    save_servers(tmp_path / "home")
    with running_console(tmp_path / "home") as console:
        events = EventStream(console)
        try:
            assert console.post("/api/servers/fx/connect", {}).status == 200
            call_echo(console)
            call_echo(console)
            events.wait_for(lambda kind, data: sent_methods(events).count("tools/call") == 2)
        finally:
            events.close()

    methods = sent_methods(events)
    assert methods[0] == "initialize" and methods[-2:] == ["tools/call", "tools/call"]
    assert set(methods[1:-2]) == {"tools/list"}  # every page of one listing, before the calls
