"""The login flow's own limits, through the real module and the real fixture server."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.errors import LoginError
from agent.mcp.config.launch import HttpLaunch
from agent.mcp.oauth.login import LoginIO, login
from agent.mcp.oauth.token_store import TokenStore
from tests.fixtures.oauth_fixtures import browser_wrapper, running_oauth_server


@pytest.mark.anyio
async def test_a_login_nobody_completes_gives_up_with_a_clear_message(tmp_path: Path) -> None:
    said: list[str] = []
    store = TokenStore(tmp_path / "oauth-tokens.json")
    with running_oauth_server() as server:
        launch = HttpLaunch("fx", server.mcp_url, "streamable-http", {})

        with pytest.raises(LoginError) as caught:
            await login(launch, store, LoginIO(said.append, False, False), timeout=2.0)

    assert str(caught.value) == "fx: no login arrived within 2 s; run agent mcp login fx again"
    assert said[0].startswith("To log in to fx, open this URL")
    assert store.get("fx", server.mcp_url) is None or not store.get("fx", server.mcp_url).tokens  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_a_server_that_sends_its_own_authorization_header_is_not_logged_in(
    tmp_path: Path,
) -> None:
    launch = HttpLaunch("fx", "http://127.0.0.1:9/mcp", "streamable-http", {"Authorization": "x"})

    with pytest.raises(LoginError) as caught:
        await login(launch, TokenStore(tmp_path / "t.json"), LoginIO(print, False, False))

    assert "sends its own Authorization header" in str(caught.value)


@pytest.mark.anyio
@pytest.mark.parametrize("handshake", ["protected", "--open-handshake"])
async def test_a_server_of_the_stateless_revision_gets_its_login_from_the_modern_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, handshake: str
) -> None:
    # A 2026-07-28-only server refuses initialize (400) and protects discovery, or lets
    # discovery through and protects tools/list: either way the 401 must start the login.
    monkeypatch.setenv("AGENT_HOME", str(tmp_path / "home"))
    # The browser follows the redirect to our callback: no person needed.
    monkeypatch.setenv("BROWSER", str(browser_wrapper(tmp_path, log=tmp_path / "hops.jsonl")))
    store = TokenStore(tmp_path / "oauth-tokens.json")
    options = ["--modern-only"] + ([handshake] if handshake.startswith("--") else [])
    with running_oauth_server(*options) as server:
        launch = HttpLaunch("fx", server.mcp_url, "streamable-http", {})
        io = LoginIO(lambda line: None, open_browser=True, read_paste=False)
        record = await login(launch, store, io, timeout=60.0)
        state = server.state()

    assert record.access_token() is not None
    assert state["grants"] == {"authorization_code": 1}
    modern = [s for s in state["seen"] if s["path"] == "/mcp" and "server/discover" in s["body"]]
    assert modern, "the login never sent server/discover"
