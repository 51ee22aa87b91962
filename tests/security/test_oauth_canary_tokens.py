"""Canary tokens: after a login, calls with --trace, a refresh and a chat session, no access
token, refresh token or client secret is in any file agent wrote or any output it printed,
except the 0600 token file (which holds no client secret)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pexpect

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import PRE_REGISTERED_ID, running_oauth_server
from tests.pty_chat import FakeModelProcess, spawn_chat

CLIENT_SECRET = "canary-client-secret-7f3a9c1e"
ECHO = "mcp__fx__echo"


def test_no_token_or_client_secret_is_written_or_printed_outside_the_token_file(
    tmp_path: Path,
) -> None:
    outputs: list[str] = []
    with running_oauth_server("--client-secret", CLIENT_SECRET) as server:
        cli = OAuthCli(
            tmp_path,
            server,
            oauth={
                "clientId": PRE_REGISTERED_ID,
                "clientSecret": "${FX_CLIENT_SECRET}",
                "issuer": server.base,
            },
            env_extra={"FX_CLIENT_SECRET": CLIENT_SECRET},
        )
        for args in (
            ("mcp", "login", "fx"),
            ("mcp", "enable", "fx"),
            ("mcp", "tools", "fx", "--enable", "echo"),
            ("mcp", "call", "fx", "echo", "--args", '{"text": "one"}', "--trace"),
            ("mcp", "inspect", "fx", "--trace"),
            ("mcp", "list"),
            ("mcp", "export"),
        ):
            result = cli.run(*args)
            assert result.returncode == 0, (args, result.stderr)
            outputs += [result.stdout, result.stderr]
        server.knobs(expire_all=True)  # the next use refreshes (with the client secret)
        refreshed = cli.run("mcp", "call", "fx", "echo", "--args", '{"text": "two"}', "--trace")
        outputs += [refreshed.stdout, refreshed.stderr]
        outputs.append(_chat_with_one_call(tmp_path, cli))
        issued = [token["token"] for token in server.tokens()]
        grants = server.state()["grants"]

    assert refreshed.returncode == 0, refreshed.stderr
    assert grants == {"authorization_code": 1, "refresh_token": 2}  # trace call + chat
    canaries = [*issued, CLIENT_SECRET]
    assert len(canaries) >= 5
    for text in outputs:
        assert not [c for c in canaries if c in text], text
    written = [path for path in cli.home.rglob("*") if path.is_file()]
    assert any(path.suffix == ".jsonl" for path in written)  # the chat's session was saved
    for path in written:
        content = path.read_text(encoding="utf-8", errors="replace")
        found = [c for c in canaries if c in content]
        if path == cli.token_file:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            assert CLIENT_SECRET not in found
        else:
            assert found == [], path


def _chat_with_one_call(tmp_path: Path, cli: OAuthCli) -> str:
    turns = [
        {"tool_calls": [{"id": "c1", "name": ECHO, "arguments": {"text": "chat-call"}}]},
        {"text": "Echoed."},
    ]
    fake = FakeModelProcess(tmp_path, turns)
    (tmp_path / "home").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "OPENAI_API_KEY": "sk-test",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "NO_COLOR": "1",
        "TERM": "xterm",
        "FX_CLIENT_SECRET": CLIENT_SECRET,
    }
    try:
        cli.server.knobs(expire_all=True)
        chat = spawn_chat(fake.base_url, env, tmp_path, dimensions=(40, 200))
        chat.logfile_read = transcript = _Transcript()
        chat.expect("›")
        chat.send("/mcp\r")  # waits for the chat's MCP runtime, so the tool is on offer
        chat.expect("auth: logged in")
        chat.expect("›")
        chat.send("echo please\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Echoed.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
    finally:
        fake.stop()
    return transcript.text


class _Transcript:
    """Everything the chat printed (pexpect's logfile_read)."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, data: str) -> None:
        self.text += data

    def flush(self) -> None:
        pass
