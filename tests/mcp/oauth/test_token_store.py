"""oauth-tokens.json: keyed by server name and URL, 0600, locked, never repaired."""

from __future__ import annotations

import stat
import time
from dataclasses import replace
from pathlib import Path

from agent.mcp.oauth.token_store import AuthStatus, ServerAuth, TokenStore

URL = "https://mcp.example.com/mcp"


def stored(store: TokenStore, name: str = "gh", url: str = URL, **tokens: object) -> None:
    data = {"access_token": "a" * 20, "token_type": "Bearer", **tokens}
    store.update(name, url, lambda record: replace(record, tokens=data))


def test_tokens_are_written_0600_and_read_back_for_the_same_url_only(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "oauth-tokens.json")
    stored(store)

    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    record = store.get("gh", URL)
    assert record is not None and record.access_token() == "a" * 20
    assert store.get("gh", URL + "/other") is None


def test_keep_only_drops_removed_servers_and_changed_urls(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "oauth-tokens.json")
    stored(store, "gh")
    stored(store, "moved")
    stored(store, "gone")

    store.keep_only({"gh": URL, "moved": "https://new.example.com/mcp"})

    assert list(store.load().servers) == ["gh"]


def test_status_says_none_logged_in_with_expiry_or_needs_login(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "oauth-tokens.json")
    expires = time.time() + 3600
    stored(store, expires_at=expires, refresh_token="r" * 20)
    logged_in = store.status("gh", URL)
    store.mark_needs_login("gh", URL, scope="repo admin")
    needs = store.status("gh", URL)
    record = store.get("gh", URL)

    assert store.status("other", URL) == AuthStatus("none")
    assert logged_in == AuthStatus("logged in", expires)
    assert logged_in.describe().startswith("logged in (expires ")
    assert needs == AuthStatus("needs login")
    assert record == ServerAuth(url=URL, needs_login=True, scope="repo admin")


def test_an_expired_token_without_a_refresh_token_needs_login(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "oauth-tokens.json")
    stored(store, expires_at=time.time() - 5)

    assert store.status("gh", URL) == AuthStatus("needs login")
