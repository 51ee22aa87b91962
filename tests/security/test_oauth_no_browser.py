"""Only `agent mcp login` and `/mcp login` open a browser: never a chat or a one-shot run by
itself. A server whose login ran out is reported once, with the command to run, and left out;
`/mcp login` in the chat brings its tools back."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pexpect

from tests.fake_openai import FakeOpenAI
from tests.fixtures.oauth_cli import AGENT, OAuthCli, recording_browser
from tests.fixtures.oauth_fixtures import OAuthServer, running_oauth_server
from tests.pty_chat import FakeModelProcess, spawn_chat

ECHO = "mcp__fx__echo"
NEEDS_LOGIN = "MCP server fx needs login; its tools are left out. run: agent mcp login fx"


def _enabled_server_that_needs_login(cli: OAuthCli, server: OAuthServer, browser: Path) -> None:
    cli.login()
    assert cli.run("mcp", "enable", "fx").returncode == 0
    assert cli.run("mcp", "tools", "fx", "--enable", "echo").returncode == 0
    server.knobs(expire_all=True, refresh_fails=True)
    refused = cli.echo()
    assert refused.stderr == "agent: fx needs login: run agent mcp login fx\n"
    server.knobs(refresh_fails=False)


def _env(tmp_path: Path, browser: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "OPENAI_API_KEY": "sk-test",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "NO_COLOR": "1",
        "TERM": "xterm",
        "BROWSER": str(browser),
    }
    env.pop("AGENT_MODEL", None)
    return env


def test_one_shot_says_run_login_goes_on_without_the_server_and_opens_no_browser(
    tmp_path: Path,
) -> None:
    browser, record = recording_browser(tmp_path)
    with running_oauth_server() as server, FakeOpenAI([{"text": "Answered."}]) as fake:
        cli = OAuthCli(tmp_path, server)
        _enabled_server_that_needs_login(cli, server, browser)

        done = subprocess.run(
            [AGENT, "--model", "openai/fake-model", "--api-base", fake.base_url, "-p", "hi"],
            capture_output=True,
            text=True,
            env=_env(tmp_path, browser),
            cwd=tmp_path,
            timeout=60,
            start_new_session=True,
        )
        requests = fake.requests

    assert (done.returncode, done.stdout) == (0, "Answered.\n"), done.stderr
    assert NEEDS_LOGIN in done.stderr
    assert "/mcp login" not in done.stderr
    tools = [tool["function"]["name"] for tool in requests[0]["body"].get("tools", [])]
    assert ECHO not in tools
    assert not record.exists()


def test_a_chat_reports_needs_login_once_and_slash_login_brings_the_tools_back(
    tmp_path: Path,
) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        _enabled_server_that_needs_login(cli, server, cli.browser)
        fake = FakeModelProcess(tmp_path, [{"text": "Before."}, {"text": "After."}])
        hops_before = cli.hops.read_text()
        try:
            chat = spawn_chat(
                fake.base_url, _env(tmp_path, cli.browser), tmp_path, dimensions=(40, 200)
            )
            chat.expect_exact(NEEDS_LOGIN + " (or /mcp login fx here)")
            chat.expect("›")
            chat.send("/mcp\r")  # the runtime is up: a missing tool is left out, not late
            chat.expect("auth: needs login")
            chat.expect("›")
            chat.send("first\r")
            chat.expect("Before.")
            chat.expect("›")
            hops_at_first_turn = cli.hops.read_text()
            chat.send("/mcp login fx\r")
            chat.expect("Logged in to fx: logged in")
            chat.expect("›")
            chat.send("second\r")
            chat.expect("After.")
            chat.expect("›")
            chat.send("/exit\r")
            chat.expect(pexpect.EOF)
            chat.close()
            requests = fake.requests()
        finally:
            fake.stop()

    assert hops_at_first_turn == hops_before  # nothing opened a browser before /mcp login
    first = [tool["function"]["name"] for tool in requests[0]["body"]["tools"]]
    second = [tool["function"]["name"] for tool in requests[1]["body"]["tools"]]
    assert (ECHO in first, ECHO in second) == (False, True)
    assert chat.before.count("needs login") == 0  # reported once, at the start
