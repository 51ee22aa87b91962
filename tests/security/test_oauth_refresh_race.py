"""Two processes refreshing at once must not lose the newer token.

The fixture rotates refresh tokens (a used one dies), so a process that refreshed with the
refresh token it read before another process refreshed would be refused and drop the login.
Here this test process plays the other `agent`: it holds the token file's lock, refreshes,
stores the new tokens and lets go, while a real `agent mcp call` waits on that lock.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import httpx2

from agent.mcp.oauth.token_store import TokenStore
from tests import deadlines
from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import running_oauth_server

WAIT = deadlines.PROCESS


def test_a_refresh_waits_for_the_other_process_and_uses_its_newer_token(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()
        server.knobs(expire_all=True)  # the next request with the stored token gets a 401
        store = TokenStore(cli.token_file)
        record = store.get("fx", server.mcp_url)
        assert record is not None and record.client is not None
        with store.locked():
            import subprocess

            call = subprocess.Popen(
                [*_agent_call(cli)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            _wait_for_a_rejected_request(server, before=_mcp_requests(server))
            # Another agent's refresh, stored while the call waits for the lock.
            answer = httpx2.post(
                f"{server.base}/token",
                data={
                    "grant_type": "refresh_token",
                    "refresh_token": record.refresh_token() or "",
                    "client_id": record.client["client_id"],
                },
                timeout=10,
            )
            fresh = answer.json()
            fresh["expires_at"] = time.time() + fresh.pop("expires_in")
            store.update_locked("fx", server.mcp_url, lambda r: replace(r, tokens=fresh))
        out, err = call.communicate(timeout=WAIT)
        grants = server.state()["grants"]

    assert (call.returncode, out.splitlines()[0]) == (0, "hi"), err
    assert grants == {"authorization_code": 1, "refresh_token": 1}  # only the other one's
    assert cli.tokens()["servers"]["fx"]["tokens"]["access_token"] == fresh["access_token"]


def _agent_call(cli: OAuthCli) -> list[str]:
    from tests.fixtures.oauth_cli import AGENT

    return [AGENT, "mcp", "call", cli.name, "echo", "--args", json.dumps({"text": "hi"})]


def _mcp_requests(server: object) -> int:
    state = server.state()  # type: ignore[attr-defined]
    return int(state["requests"].get("/mcp", 0))


def _wait_for_a_rejected_request(server: object, before: int) -> None:
    # The call's first request gets the 401; after it the call needs the lock we hold.
    deadline = time.monotonic() + WAIT
    while _mcp_requests(server) == before:
        assert time.monotonic() < deadline, "agent mcp call never reached the server"
