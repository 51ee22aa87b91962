"""The login's loopback listener and the paste path take only this login's own callback.

A page in the person's browser can reach 127.0.0.1 too: it could send a code of the attacker's
own account (login CSRF), or guess at the listener. Only a callback on the redirect path with
the state of the login in progress completes it; anything else is refused and ignored.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2

from tests.fixtures.oauth_cli import AGENT, OAuthCli, recording_browser
from tests.fixtures.oauth_fixtures import running_oauth_server


def _start_login(browser: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [AGENT, "mcp", "login", "fx", "--no-browser"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "BROWSER": str(browser)},
    )


def _authorization_url(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        assert line, "login ended before printing the URL"
        if line.startswith("  http"):
            return line.strip()


def test_callbacks_without_this_logins_state_are_refused_and_the_real_one_wins(
    tmp_path: Path,
) -> None:
    browser, record = recording_browser(tmp_path)
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        with _start_login(browser) as process:
            url = _authorization_url(process)
            callback = parse_qs(urlsplit(url).query)["redirect_uri"][0]
            forged = [
                httpx2.get(f"{callback}?code=attacker-code&state=guessed", timeout=10),
                httpx2.get(f"{callback}?code=attacker-code", timeout=10),
                httpx2.get(callback.replace("/callback", "/other?code=x"), timeout=10),
            ]
            # Then the real browser: the authorization server sends it back with the code.
            real = httpx2.get(url, follow_redirects=False, timeout=10)
            landed = httpx2.get(real.headers["location"], timeout=10)
            assert process.stdout is not None
            out = process.stdout.read()
            process.wait(timeout=60)
        state = server.state()
        call = cli.echo()

    assert [answer.status_code for answer in forged] == [400, 400, 404]
    assert "not from the login agent is waiting for" in forged[0].text
    assert landed.status_code == 200
    assert process.returncode == 0, out
    assert out.count("ignored a callback that is not from this login") == 2
    assert state["grants"] == {"authorization_code": 1}
    assert state["requests"]["/token"] == 1  # the attacker's code was never exchanged
    assert not record.exists()
    assert call.returncode == 0


def test_a_pasted_url_with_another_state_is_ignored(tmp_path: Path) -> None:
    browser, _ = recording_browser(tmp_path)
    with running_oauth_server() as server:
        OAuthCli(tmp_path, server)
        with _start_login(browser) as process:
            url = _authorization_url(process)
            callback = parse_qs(urlsplit(url).query)["redirect_uri"][0]
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(f"{callback}?code=attacker-code&state=guessed\n")
            process.stdin.flush()
            real = httpx2.get(url, follow_redirects=False, timeout=10)
            process.stdin.write(real.headers["location"] + "\n")
            process.stdin.flush()
            out = process.stdout.read()
            process.wait(timeout=60)
        state = server.state()

    assert process.returncode == 0, out
    assert "fx: that URL is not from this login (its state does not match); ignored" in out
    assert state["requests"]["/token"] == 1
