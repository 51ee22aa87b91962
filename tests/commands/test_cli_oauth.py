"""`agent mcp login|logout|call|list` against a real authorization server on 127.0.0.1.

The server (tests/fixtures/oauth_server.py) is a separate process; the CLI runs as a person
runs it; $BROWSER is a stand-in that follows the authorization redirect to our listener.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import time
from pathlib import Path
from urllib.parse import unquote

import httpx2
import pexpect
import pytest

from tests import deadlines
from tests.fixtures.oauth_cli import AGENT, OAuthCli, client_credentials_cli, recording_browser
from tests.fixtures.oauth_fixtures import (
    JWT_CLIENT_ID,
    PRE_REGISTERED_SECRET,
    jwt_key_pair,
    running_oauth_server,
)
from tests.pty_chat import spawn_agent


def test_login_stores_tokens_in_their_own_0600_file_and_a_call_uses_them(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)

        login = cli.login()
        call = cli.echo("hello")

        host = server.base.removeprefix("http://")
        assert f"To log in to fx, open this URL (authorization server {host}):" in login.stdout
        assert login.stdout.splitlines()[-1].startswith("Logged in to fx: logged in (expires ")
        assert (call.returncode, call.stdout.splitlines()[0]) == (0, "hello")
        assert stat.S_IMODE(cli.token_file.stat().st_mode) == 0o600
        access = server.tokens("access")[-1]["token"]
        assert access in cli.token_file.read_text()
        assert access not in (cli.home / "mcp-servers.json").read_text()
        assert server.state()["authorize_requests"][0]["resource"] == server.mcp_url


def test_list_shows_none_then_logged_in_then_needs_login(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)

        def auth_column() -> str:
            lines = cli.run("mcp", "list").stdout.splitlines()
            start = lines[0].index("AUTH")
            end = lines[0].index("TARGET")
            return lines[1][start:end].strip()

        before = auth_column()
        cli.login()
        after = auth_column()
        server.knobs(expire_all=True, refresh_fails=True)
        cli.echo()
        expired = auth_column()

    assert (before, after.split(" (")[0], expired) == ("none", "logged in", "needs login")


def test_a_call_before_any_login_says_needs_login_and_opens_no_browser(tmp_path: Path) -> None:
    browser, record = recording_browser(tmp_path)
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)

        result = cli.run("mcp", "call", "fx", "echo", "--args", '{"text": "x"}', browser=browser)

    assert (result.returncode, result.stderr) == (
        1,
        "agent: fx needs login: run agent mcp login fx\n",
    )
    assert not record.exists()


def test_a_token_near_its_expiry_is_refreshed_before_it_is_used(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()
        # The server would take this token for an hour more; our record says it ends in 10 s,
        # inside the margin: the call must refresh first (no 401 could have prompted it).
        data = cli.tokens()
        data["servers"]["fx"]["tokens"]["expires_at"] = time.time() + 10
        data["servers"]["fx"]["tokens"].pop("issued_at")
        cli.token_file.write_text(json.dumps(data), encoding="utf-8")

        call = cli.echo()
        state = server.state()

    assert call.returncode == 0, call.stderr
    assert state["grants"] == {"authorization_code": 1, "refresh_token": 1}
    assert cli.tokens()["servers"]["fx"]["tokens"]["expires_at"] > time.time() + 3000


def test_a_401_is_answered_by_one_refresh_and_one_retry(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()
        server.knobs(expire_all=True)  # the stored expiry still says an hour

        call = cli.echo("again")
        state = server.state()

    assert (call.returncode, call.stdout.splitlines()[0]) == (0, "again")
    assert state["grants"].get("refresh_token") == 1


def test_a_refused_refresh_means_needs_login_and_a_new_login_fixes_it(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()
        server.knobs(expire_all=True, refresh_fails=True)

        refused = cli.echo()
        server.knobs(refresh_fails=False)
        cli.login()
        fixed = cli.echo("back")

    assert refused.stderr == "agent: fx needs login: run agent mcp login fx\n"
    assert cli.tokens()["servers"]["fx"]["needs_login"] is False
    assert (fixed.returncode, fixed.stdout.splitlines()[0]) == (0, "back")


def test_step_up_fails_the_call_and_the_next_login_asks_for_the_union(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()

        denied = cli.echo(tool="scoped_echo")
        cli.login()
        allowed = cli.echo("up", tool="scoped_echo")
        asked = server.state()["authorize_requests"][-1]["scope"]

    assert denied.stderr == (
        "agent: MCP server 'fx' needs more access for this (mcp:read mcp:admin); the other "
        "tools still work; to allow it run agent mcp login fx\n"
    )
    assert set(asked.split()) == {"mcp:read", "mcp:admin"}
    assert (allowed.returncode, allowed.stdout.splitlines()[0]) == (0, "scoped: up")


def test_logout_revokes_the_tokens_and_forgets_them(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()

        logout = cli.run("mcp", "logout", "fx")
        tokens = server.tokens()

    assert logout.stdout == (
        "Logged out of fx: tokens and registration forgotten (tokens revoked).\n"
    )
    assert {t["kind"]: t["revoked_by"] for t in tokens} == {
        "access": "revoke",
        "refresh": "revoke",
    }
    assert cli.tokens()["servers"] == {}


def test_a_second_login_reuses_the_registration_and_its_port(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()
        cli.login()
        state = server.state()

    assert len(state["clients"]) == 2  # the pre-registered fixture client and ours, once
    first, second = state["authorize_requests"]
    assert first["redirect_uri"] == second["redirect_uri"]


def test_the_pasted_redirect_url_completes_a_login_without_a_browser(tmp_path: Path) -> None:
    browser, record = recording_browser(tmp_path)
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        with subprocess.Popen(
            [AGENT, "mcp", "login", "fx", "--no-browser"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "BROWSER": str(browser)},
        ) as process:
            assert process.stdout is not None and process.stdin is not None
            lines = []
            while not (lines and lines[-1].startswith("  http")):
                lines.append(process.stdout.readline())
                assert lines[-1], "login ended before printing the URL"
            # The "browser on another machine" ends on the callback URL, which is pasted.
            answer = httpx2.get(lines[-1].strip(), follow_redirects=False, timeout=10)
            process.stdin.write(answer.headers["location"] + "\n")
            process.stdin.flush()
            out = "".join(lines) + process.stdout.read()  # the rest, to the end
            process.wait(timeout=60)
        call = cli.echo()

    assert process.returncode == 0, out
    assert "Waiting for the browser; or paste the URL it ended on here.\n" in out
    assert "Logged in to fx: logged in" in out
    assert call.returncode == 0
    assert not record.exists()


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_client_credentials_log_in_without_a_browser(tmp_path: Path, method: str) -> None:
    browser, record = recording_browser(tmp_path)
    with running_oauth_server("--token-auth-methods", f"{method},none") as server:
        cli = client_credentials_cli(tmp_path, server)

        login = cli.run("mcp", "login", "fx", browser=browser)
        call = cli.echo()
        state = server.state()

    assert login.returncode == 0, login.stderr
    assert call.returncode == 0, call.stderr
    assert state["auth_methods"] == {method: 1}
    assert state["grants"] == {"client_credentials": 1}
    assert not record.exists()
    assert PRE_REGISTERED_SECRET not in cli.token_file.read_text()


def test_client_credentials_log_in_by_themselves_on_first_use(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = client_credentials_cli(tmp_path, server)

        call = cli.echo("auto")

    assert (call.returncode, call.stdout.splitlines()[0]) == (0, "auto")


@pytest.mark.parametrize("algorithm", ["ES256", "RS256"])
def test_private_key_jwt_client_credentials(tmp_path: Path, algorithm: str) -> None:
    private, public = jwt_key_pair(tmp_path, algorithm)
    with running_oauth_server("--jwt-public-key", str(public)) as server:
        cli = OAuthCli(
            tmp_path,
            server,
            oauth={
                "grant": "client_credentials",
                "clientId": JWT_CLIENT_ID,
                "privateKeyFile": "${FX_KEY}",
                "signingAlgorithm": algorithm,
                "issuer": server.base,
            },
            env_extra={"FX_KEY": str(private)},
        )

        login = cli.run("mcp", "login", "fx")
        call = cli.echo()
        state = server.state()

    assert login.returncode == 0, login.stderr
    assert call.returncode == 0, call.stderr
    assert state["auth_methods"] == {"private_key_jwt": 1}
    assert private.read_text() not in cli.token_file.read_text()


def test_a_changed_url_or_a_removed_server_drops_its_tokens(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()

        cli.import_server(server.mcp_url + "?v=2")
        after_change = cli.tokens()["servers"]
        cli.import_server(server.mcp_url)
        cli.login()
        cli.run("mcp", "remove", "fx")
        after_remove = cli.tokens()["servers"]

    assert (after_change, after_remove) == ({}, {})


def test_login_of_a_stdio_server_is_refused_clearly(tmp_path: Path) -> None:
    document = tmp_path / "local.json"
    document.write_text(json.dumps({"mcpServers": {"loc": {"command": "true"}}}))
    subprocess.run([AGENT, "mcp", "import", str(document)], check=True, capture_output=True)

    result = subprocess.run(
        [AGENT, "mcp", "login", "loc"], capture_output=True, text=True, timeout=deadlines.PROCESS
    )

    assert (result.returncode, result.stderr) == (
        1,
        "agent: loc is a local (stdio) server; OAuth login is for remote servers\n",
    )


def test_client_credentials_step_up_at_once_with_the_union_of_scopes(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = client_credentials_cli(tmp_path, server)
        cli.login()

        call = cli.echo("up", tool="scoped_echo")
        state = server.state()

    assert (call.returncode, call.stdout.splitlines()[0]) == (0, "scoped: up"), call.stderr
    assert state["grants"] == {"client_credentials": 2}  # the login, then one step-up
    last = [t for t in state["tokens"] if t["kind"] == "access"][-1]
    assert set(last["scopes"]) == {"mcp:read", "mcp:admin"}


def test_a_server_that_lets_the_handshake_through_still_gets_its_login(tmp_path: Path) -> None:
    with running_oauth_server("--open-handshake") as server:
        cli = OAuthCli(tmp_path, server)
        before = cli.echo()

        login = cli.run("mcp", "login", "fx")
        call = cli.echo("open")
        grants = server.state()["grants"]

    assert before.stderr == "agent: fx needs login: run agent mcp login fx\n"
    assert login.returncode == 0, login.stdout + login.stderr
    assert (call.returncode, call.stdout.splitlines()[0]) == (0, "open")
    assert grants == {"authorization_code": 1}


def test_ctrl_c_cancels_a_login_waiting_for_the_browser_and_closes_the_listener(
    tmp_path: Path,
) -> None:
    browser, _ = recording_browser(tmp_path)
    with running_oauth_server() as server:
        OAuthCli(tmp_path, server)
        login = spawn_agent(
            ["mcp", "login", "fx", "--no-browser"],
            {**os.environ, "BROWSER": str(browser)},
            None,
            dimensions=(40, 400),
        )
        login.expect("redirect_uri=([^&]+)&")
        callback = unquote(login.match.group(1))
        login.expect("paste the URL it ended on here")
        login.sendintr()
        login.expect(pexpect.EOF)
        login.close()
        grants = server.state()["grants"]

    assert login.exitstatus == 130
    assert "agent: interrupted" in (login.before or "")
    assert grants == {}
    with pytest.raises(httpx2.ConnectError):  # the listener is gone with the login
        httpx2.get(callback, timeout=5)


def test_the_configured_callback_port_is_used_and_a_taken_one_is_named(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        with running_oauth_server() as server:
            cli = OAuthCli(tmp_path, server, oauth={"callbackPort": taken})
            refused = cli.run("mcp", "login", "fx")
            holder.close()
            cli.login()
            asked = server.state()["authorize_requests"]

    assert refused.returncode == 1
    assert refused.stderr.startswith(f"agent: fx: cannot listen on 127.0.0.1:{taken} for the login")
    assert refused.stderr.endswith("; free that port or change oauth.callbackPort\n")
    assert [request["redirect_uri"] for request in asked] == [f"http://127.0.0.1:{taken}/callback"]
