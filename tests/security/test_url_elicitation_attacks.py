"""A hostile server's web page requests (URL-mode elicitation), each against the real
`agent mcp call` on a plain terminal and the real fixture server: a scheme that is not a web
page, a look-alike host, a user name posing as the host, bidi and controls in the URL or the
message, a URL over the size cap, and a flood of requests. $BROWSER is a recording script:
a refused page never reaches it, and neither does one the person was not asked about."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect
import pytest

from tests.pty_chat import spawn_agent
from tests.security.test_url_elicitation_fronts import pages_env
from tests.security.url_pages import browser_calls

QUESTION = "Open it in your browser\\? \\[y/N\\] "


def call_open_page(
    tmp_path: Path, agent_home: Path, url: str, message: str | None = None
) -> tuple[pexpect.spawn, Path]:
    """`agent mcp call pages open_page` with `url` (and `message`), and the browser's record."""
    env, record = pages_env(tmp_path, agent_home)
    arguments: dict[str, str] = {"url": url}
    if message is not None:
        arguments["message"] = message
    call = spawn_agent(
        ["mcp", "call", "pages", "open_page", "--args", json.dumps(arguments)], env, tmp_path
    )
    return call, record


def refused(tmp_path: Path, agent_home: Path, url: str) -> str:
    """What the terminal showed for a page that must be declined unasked; checks it was."""
    call, record = call_open_page(tmp_path, agent_home, url)
    call.expect(pexpect.EOF)
    output = call.before
    call.close()
    assert "Open it in your browser?" not in output
    assert '"action": "decline"' in output
    assert browser_calls(record) == []
    return output


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("javascript:alert(document.cookie)", "this URL has javascript:"),
        ("file:///etc/passwd", "this URL has file:"),
        ("data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "this URL has data:"),
        ("x-agent-handler://run?cmd=id", "this URL has x-agent-handler:"),
        ("http://evil.example/login", "plain http to evil.example, another machine"),
    ],
)
def test_a_page_that_is_not_https_is_declined_unasked_and_said(
    tmp_path: Path, agent_home: Path, url: str, said: str
) -> None:
    output = refused(tmp_path, agent_home, url)
    assert "Declined a web page from MCP server pages: only https" in output or said in output
    assert said in output


def test_a_url_with_a_bidi_override_is_declined_unasked_and_shown_escaped(
    tmp_path: Path, agent_home: Path
) -> None:
    output = refused(tmp_path, agent_home, "https://example.com/\u202egnp.exe")
    assert "control, invisible or space characters" in output
    assert "\\u202e" in output and "\u202e" not in output


def test_a_url_over_the_size_cap_is_declined_unasked(tmp_path: Path, agent_home: Path) -> None:
    output = refused(tmp_path, agent_home, "https://example.com/?" + "a" * 5000)
    assert "characters long, over the 2048 this client shows" in output


def test_a_look_alike_host_is_shown_beside_its_xn_form(tmp_path: Path, agent_home: Path) -> None:
    call, record = call_open_page(tmp_path, agent_home, "https://p\u0430ypal.com/signin")
    call.expect(QUESTION)
    shown = call.before
    call.send("n\r")
    call.expect(pexpect.EOF)
    call.close()
    assert "Host: p\u0430ypal.com" in shown
    assert "the browser looks up xn--pypal-4ve.com" in shown
    assert browser_calls(record) == []


def test_a_trusted_name_before_an_at_sign_is_called_out_as_not_the_host(
    tmp_path: Path, agent_home: Path
) -> None:
    call, record = call_open_page(tmp_path, agent_home, "https://accounts.google.com@evil.example/")
    call.expect(QUESTION)
    shown = call.before
    call.send("n\r")
    call.expect(pexpect.EOF)
    call.close()
    assert "Host: evil.example" in shown
    assert '"accounts.google.com" before the @ is a user name, not the host' in shown
    assert browser_calls(record) == []


def test_controls_and_bidi_in_the_message_are_shown_as_escapes_under_the_servers_name(
    tmp_path: Path, agent_home: Path
) -> None:
    message = "Sign in\x1b[2J\u202e\nMCP server trusted asks nothing. Open it? y"
    call, _record = call_open_page(tmp_path, agent_home, "https://example.com/", message)
    call.expect(QUESTION)
    shown = call.before
    call.send("n\r")
    call.expect(pexpect.EOF)
    call.close()
    assert "\x1b[2J" not in shown and "\u202e" not in shown
    assert "| Sign in\\x1b[2J\\u202e" in shown
    assert "  | MCP server trusted asks nothing. Open it? y" in shown  # marked as its words


def test_a_flood_of_page_requests_asks_one_at_a_time_and_declines_the_rest_with_one_note(
    tmp_path: Path, agent_home: Path
) -> None:
    env, record = pages_env(tmp_path, agent_home)
    arguments = json.dumps({"url": "https://example.com/", "count": 40})
    call = spawn_agent(["mcp", "call", "pages", "flood", "--args", arguments], env, tmp_path)
    asked = 0
    while call.expect([QUESTION, pexpect.EOF]) == 0:
        asked += 1
        assert asked <= 3  # never more than a few questions in one call
        call.send("n\r")
    output = call.before
    call.close()
    actions = json.loads(output[output.index('{"actions"') :].split("\n")[0])["actions"]
    assert actions == ["decline"] * 40
    assert f"Declined {40 - asked} more web pages from MCP server pages" in output
    assert browser_calls(record) == []
