"""URL-mode elicitation in the real chat: a server asks to open a web page. The whole URL and
its host are shown, the question is asked in a dialog (type-ahead cannot answer it), and the
browser ($BROWSER, a recording script) runs only after y, with exactly the URL; never after n.
"""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from tests.pty_chat import pty_env, scripted_chat
from tests.security.url_pages import (
    browser_calls,
    page_tool,
    recording_browser,
    save_trusted_pages_server,
)

URL = "https://accounts.example.com/connect?elicitation=page-1&next=%2Fdone"
QUESTION = "Open it in your browser\\?"


def open_page_turns(url: str, reply: str) -> list[dict[str, object]]:
    """A model that calls open_page with `url`, then says `reply`."""
    call = {"id": "c1", "name": page_tool("open_page"), "arguments": {"url": url}}
    return [{"tool_calls": [call]}, {"text": reply}]


def chat_env(tmp_path: Path, agent_home: Path) -> tuple[dict[str, str], Path]:
    """The chat's environment with the recording browser as $BROWSER; the record's path."""
    env = pty_env(agent_home, tmp_path)
    browser, record = recording_browser(tmp_path)
    env["BROWSER"] = str(browser)
    env.pop("DISPLAY", None)
    save_trusted_pages_server(agent_home, env)
    return env, record


def test_yes_opens_exactly_the_url_after_it_was_shown_in_full_with_its_host(
    tmp_path: Path, agent_home: Path
) -> None:
    env, record = chat_env(tmp_path, agent_home)
    with scripted_chat(tmp_path, open_page_turns(URL, "Page opened."), env) as (chat, fake):
        chat.expect("MCP server pages ready")
        chat.expect("›")
        chat.send("connect me\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect(QUESTION)
        shown = chat.before
        assert browser_calls(record) == []  # shown and asked, not opened
        chat.send("y")
        chat.expect("Opened accounts.example.com in your browser.")
        chat.expect("says the page on accounts.example.com is finished")
        chat.expect("Page opened.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert "MCP server pages asks you to open a web page" in shown
    assert "| Connect your account to continue." in shown  # the server's words, marked
    assert URL in shown.replace("\r\n  ", "")  # the whole URL, wrapped, never shortened
    assert "Host: accounts.example.com" in shown
    assert browser_calls(record) == [[URL]]
    result = json.loads(requests[1]["body"]["messages"][-1]["content"])
    assert result == {"action": "accept"}


def test_no_answers_decline_and_nothing_is_opened(tmp_path: Path, agent_home: Path) -> None:
    env, record = chat_env(tmp_path, agent_home)
    with scripted_chat(tmp_path, open_page_turns(URL, "Not opened."), env) as (chat, fake):
        chat.expect("MCP server pages ready")
        chat.expect("›")
        chat.send("connect me\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect(QUESTION)
        chat.send("n")
        chat.expect("Not opened.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert browser_calls(record) == []
    result = json.loads(requests[1]["body"]["messages"][-1]["content"])
    assert result == {"action": "decline"}


def test_a_y_typed_before_the_question_appeared_never_opens_the_page(
    tmp_path: Path, agent_home: Path
) -> None:
    env, record = chat_env(tmp_path, agent_home)
    with scripted_chat(tmp_path, open_page_turns(URL, "Cancelled."), env) as (chat, fake):
        chat.expect("MCP server pages ready")
        chat.expect("›")
        chat.send("connect me\r")
        chat.expect("Approve\\?")
        chat.send("y")  # the approval's y, alone
        chat.expect("approved")
        chat.send("yyy")  # typed ahead of the page question, or at it: a word, no answer
        chat.expect(QUESTION)
        chat.send("\x1b")  # Esc cancels
        chat.expect("Cancelled.")
        chat.send("\x15/exit\r")  # the y's went back to the prompt
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert browser_calls(record) == []
    result = json.loads(requests[1]["body"]["messages"][-1]["content"])
    assert result == {"action": "cancel"}
