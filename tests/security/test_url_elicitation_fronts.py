"""URL-mode elicitation on the other front ends, with the real fixture server: `agent mcp call`
on a plain terminal (its y/N; only a typed y opens), `agent -p` (nobody to say yes: declined and
said on stderr with the host, never opened), and a -32042 error from a tool call (its page offered
the same way, then the call said to be retriable).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pexpect

from tests.fake_openai import FakeOpenAI
from tests.pty_chat import AGENT, TIMEOUT, pty_env, spawn_agent
from tests.security.url_pages import (
    browser_calls,
    page_tool,
    recording_browser,
    save_trusted_pages_server,
)

URL = "https://login.example.org/authorize?request=7f3a"


def pages_env(tmp_path: Path, agent_home: Path) -> tuple[dict[str, str], Path]:
    """An environment with the recording browser as $BROWSER and the server saved; the record."""
    env = pty_env(agent_home, tmp_path)
    browser, record = recording_browser(tmp_path)
    env["BROWSER"] = str(browser)
    env.pop("DISPLAY", None)
    save_trusted_pages_server(agent_home, env)
    return env, record


def test_mcp_call_on_a_plain_terminal_opens_the_page_only_after_a_typed_y(
    tmp_path: Path, agent_home: Path
) -> None:
    env, record = pages_env(tmp_path, agent_home)
    arguments = json.dumps({"url": URL})
    call = spawn_agent(["mcp", "call", "pages", "open_page", "--args", arguments], env, tmp_path)
    call.expect("Open it in your browser\\? \\[y/N\\] ")
    shown = call.before
    assert browser_calls(record) == []
    call.send("y\r")
    call.expect("Opened login.example.org in your browser.")
    call.expect(pexpect.EOF)
    output = call.before
    call.close()
    assert call.exitstatus == 0, output
    assert URL in shown and "Host: login.example.org" in shown
    assert browser_calls(record) == [[URL]]
    assert '"action": "accept"' in output


def test_mcp_call_on_a_plain_terminal_declines_on_enter_and_opens_nothing(
    tmp_path: Path, agent_home: Path
) -> None:
    env, record = pages_env(tmp_path, agent_home)
    arguments = json.dumps({"url": URL})
    call = spawn_agent(["mcp", "call", "pages", "open_page", "--args", arguments], env, tmp_path)
    call.expect("Open it in your browser\\? \\[y/N\\] ")
    call.send("\r")
    call.expect(pexpect.EOF)
    output = call.before
    call.close()
    assert '"action": "decline"' in output
    assert browser_calls(record) == []


def test_one_shot_declines_a_page_says_its_host_on_stderr_and_opens_nothing(
    tmp_path: Path, agent_home: Path
) -> None:
    env, record = pages_env(tmp_path, agent_home)
    call = {"id": "c1", "name": page_tool("open_page"), "arguments": {"url": URL}}
    with FakeOpenAI([{"tool_calls": [call]}, {"text": "Done."}]) as fake:
        model = ["--model", "openai/fake-model", "--api-base", fake.base_url]
        command = shlex.join([AGENT, *model, "-p", "connect me"])
        agent = pexpect.spawn(
            "/bin/sh", ["-c", command], env=env, cwd=str(tmp_path), encoding="utf-8",
            timeout=TIMEOUT, dimensions=(40, 120),
        )  # fmt: skip
        agent.expect("Approve\\?")
        agent.send("y")  # the person approves the call; nobody is asked about the page
        agent.expect("Declined a web page on login.example.org from MCP server pages: "
                     "nobody is here to say yes \\(nothing was opened\\)\\.")  # fmt: skip
        agent.expect("Done.")
        agent.expect(pexpect.EOF)
        agent.close()
        requests = fake.requests
    assert browser_calls(record) == []
    assert json.loads(requests[1]["body"]["messages"][-1]["content"]) == {"action": "decline"}


def test_a_call_that_needs_a_page_first_offers_it_then_says_the_call_can_be_retried(
    tmp_path: Path, agent_home: Path
) -> None:
    env, record = pages_env(tmp_path, agent_home)
    arguments = json.dumps({"url": URL})
    call = spawn_agent(["mcp", "call", "pages", "needs_page", "--args", arguments], env, tmp_path)
    call.expect("Open it in your browser\\? \\[y/N\\] ")
    shown = call.before
    call.send("y\r")
    call.expect(pexpect.EOF)
    output = call.before
    call.close()
    assert "| Sign in before this call." in shown and "Host: login.example.org" in shown
    assert browser_calls(record) == [[URL]]
    assert "retry the call once they have finished there" in output
    assert call.exitstatus != 0
