"""A hostile authorization server against the real `agent mcp login`.

The server is tests/fixtures/oauth_server.py in a child process, switched at run time into
one trick each: a redirect carrying another login's `state` (login CSRF: slipping the
attacker's code into our session), a redirect naming another issuer (the RFC 9207 mix-up
attack), and error answers whose text is terminal escapes and a forged "logged in" line.
The browser is tests/fixtures/follow_redirect.py through $BROWSER; the CLI runs as a real
process (under a pty where it waits for a person).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests import deadlines
from tests.fixtures.follow_redirect import DONE_LINE
from tests.fixtures.oauth_fixtures import (
    PRE_REGISTERED_ID,
    OAuthServer,
    browser_wrapper,
    running_oauth_server,
)

TIMEOUT = deadlines.PROCESS  # seconds for one CLI command on a loaded machine
# Escapes that would recolour, clear and retitle the terminal, then a forged success line.
HOSTILE = "\x1b[31mred\x1b[0m\x1b[2J\x1b]0;pwned\x07\nLogged in to fx: logged in (expires never)."


@pytest.fixture
def server() -> Iterator[OAuthServer]:
    """The fixture authorization server with default options."""
    with running_oauth_server() as running:
        yield running


def agent_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of every `agent` run: this test's AGENT_HOME and the stand-in browser
    (which says DONE_LINE on the terminal it shares with the CLI when it is done)."""
    browser = browser_wrapper(tmp_path, log=tmp_path / "hops.jsonl", announce=True)
    return {**os.environ, "BROWSER": str(browser), "PROMPT_TOOLKIT_NO_CPR": "1", **extra}


def agent(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run `agent ARGS` to the end, with no terminal and nothing on stdin."""
    return subprocess.run(
        [sys.executable, "-m", "agent", *args],
        env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=TIMEOUT, check=False,
    )  # fmt: skip


def import_server(env: dict[str, str], tmp_path: Path, server: OAuthServer,
                  oauth: dict[str, object] | None = None) -> None:  # fmt: skip
    """Import the fixture's /mcp as server "fx"."""
    definition: dict[str, object] = {"type": "streamable-http", "url": server.mcp_url}
    if oauth is not None:
        definition["oauth"] = oauth
    document = tmp_path / "servers.json"
    document.write_text(json.dumps({"mcpServers": {"fx": definition}}), encoding="utf-8")
    imported = agent(env, "mcp", "import", str(document))
    assert imported.returncode == 0, imported.stderr


def hops(tmp_path: Path) -> list[dict[str, object]]:
    """What the stand-in browser fetched, in order."""
    path = tmp_path / "hops.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_redirect_with_a_forged_state_never_completes_the_login(
    server: OAuthServer, tmp_path: Path
) -> None:
    env = agent_env(tmp_path)
    import_server(env, tmp_path, server)
    server.knobs(forge_state=True)

    login = pexpect.spawn(
        sys.executable, ["-m", "agent", "mcp", "login", "fx"], env=env, encoding="utf-8",
        timeout=TIMEOUT, dimensions=(40, 200),
    )  # fmt: skip
    try:
        login.expect("not from this login")
        login.expect(DONE_LINE)  # the browser has its answer (Ctrl-C would reach it too)
        login.sendintr()  # the person gives up: Ctrl-C cancels
        login.expect(pexpect.EOF)
    finally:
        login.close(force=True)

    callback_hop = hops(tmp_path)[-1]
    assert callback_hop["status"] == 400  # our listener refused the forged callback
    assert str(callback_hop["url"]).startswith("http://127.0.0.1:")
    assert login.exitstatus != 0 or login.signalstatus is not None
    state = server.state()
    assert state["grants"] == {}  # the attacker's code was never exchanged
    assert "/token" not in state["requests"]
    assert server.tokens() == []


def test_a_redirect_naming_another_issuer_is_refused_before_the_code_is_used(
    server: OAuthServer, tmp_path: Path
) -> None:
    env = agent_env(tmp_path)
    import_server(env, tmp_path, server)
    server.knobs(forge_iss="http://127.0.0.1:9/evil-issuer")

    login = agent(env, "mcp", "login", "fx")

    assert login.returncode != 0
    assert "iss" in login.stderr and "evil-issuer" in login.stderr, login.stderr
    state = server.state()
    assert state["grants"] == {}  # the code was not taken to any token endpoint
    assert "/token" not in state["requests"]
    assert "fx" in agent(env, "mcp", "list").stdout


@pytest.mark.parametrize("where", ["authorization redirect", "token endpoint"])
def test_hostile_error_text_reaches_the_terminal_inert(
    server: OAuthServer, tmp_path: Path, where: str
) -> None:
    if where == "authorization redirect":
        env = agent_env(tmp_path)
        import_server(env, tmp_path, server)
        server.knobs(deny_authorize=True, hostile_text=HOSTILE)
    else:  # client credentials, wrong secret: the token endpoint's error is the hostile text
        env = agent_env(tmp_path, FX_SECRET="wrong-secret")
        oauth = {"grant": "client_credentials", "clientId": PRE_REGISTERED_ID,
                 "clientSecret": "${FX_SECRET}", "issuer": server.base}  # fmt: skip
        import_server(env, tmp_path, server, oauth)
        server.knobs(hostile_text=HOSTILE)

    login = agent(env, "mcp", "login", "fx")

    said = login.stdout + login.stderr
    assert login.returncode != 0
    assert "\x1b" not in said and "\x07" not in said, repr(said)
    # The hostile text stays inside the one error line that quotes it: no line of its own.
    error_lines = [line for line in said.splitlines() if "pwned" in line]
    assert len(error_lines) == 1, said
    assert [line for line in said.splitlines() if "Logged in to fx" in line] == error_lines
    assert server.tokens() == []
