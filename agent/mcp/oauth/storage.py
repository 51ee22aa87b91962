"""The SDK's `TokenStorage` over our token file: one server's tokens and client registration.

The SDK calls these on the event loop; every file access runs in a worker thread, because the
file lock must never be waited for on the loop (another task of this process may hold it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import anyio
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from agent.mcp.oauth.token_store import ServerAuth, TokenStore


def token_from_record(record: ServerAuth | None) -> OAuthToken | None:
    """The SDK token for a stored record, with expires_in counted from now."""
    if record is None or record.tokens is None or record.access_token() is None:
        return None
    data = {k: v for k, v in record.tokens.items() if k not in ("expires_at", "issued_at")}
    expires = record.expires_at()
    if expires is not None:
        data["expires_in"] = max(0, int(expires - time.time()))
    return OAuthToken.model_validate(data)


def record_tokens(token: OAuthToken) -> dict[str, Any]:
    """The stored form of an SDK token: expiry made absolute so any process can judge it."""
    data = token.model_dump(mode="json", exclude_none=True)
    expires_in = data.pop("expires_in", None)
    if isinstance(expires_in, int | float):
        now = time.time()
        data["expires_at"], data["issued_at"] = now + expires_in, now
    return data


class FileTokenStorage:
    """TokenStorage for one server, keyed by its name and URL, in oauth-tokens.json."""

    def __init__(
        self,
        store: TokenStore,
        name: str,
        url: str,
        *,
        fresh_login: bool = False,
        configured_client: OAuthClientInformationFull | None = None,
        on_token: Callable[[str], None] = lambda value: None,
    ) -> None:
        self.store, self.name, self.url = store, name, url
        # A pre-registered client (oauth.clientId) comes from the configuration every time
        # and is never written: its secret lives only in the environment.
        self._configured = configured_client
        self._on_token = on_token  # every token handed out is masked by the connection
        # A login starts from no tokens (so the server's 401 starts the flow) but keeps the
        # registration, whose redirect URI the listener then reuses.
        self._hide_tokens = fresh_login

    def logged_in(self) -> bool:
        """True once this login stored new tokens."""
        return not self._hide_tokens

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens for this server and URL."""
        if self._hide_tokens:
            return None
        record = await anyio.to_thread.run_sync(self.store.get, self.name, self.url)
        token = token_from_record(record)
        if token is not None:
            self._heard(token)
        return token

    def _heard(self, token: OAuthToken) -> None:
        for value in (token.access_token, token.refresh_token):
            if value:
                self._on_token(value)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store new tokens; the server no longer needs a login."""
        self._hide_tokens = False
        self._heard(tokens)
        stored = record_tokens(tokens)
        await anyio.to_thread.run_sync(
            self.store.update,
            self.name,
            self.url,
            lambda record: replace(record, tokens=stored, needs_login=False, scope=None),
        )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The configured client, else the stored registration (dynamic or CIMD), if any,
        bound to the authorization server it was registered with."""
        if self._configured is not None:
            return self._configured
        record = await anyio.to_thread.run_sync(self.store.get, self.name, self.url)
        if record is None or record.client is None:
            return None
        client = dict(record.client)
        issuer = (record.metadata or {}).get("issuer")
        if client.get("issuer") is None and isinstance(issuer, str):
            # SEP-2352: the SDK reuses a registration that names no issuer with any server.
            # One stored before the SDK recorded it was made at the login's issuer, which the
            # login stored beside it: so a resource that moved gets a new registration, and
            # never the old server's client id or secret.
            client["issuer"] = issuer
        return OAuthClientInformationFull.model_validate(client)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Remember the registration, so the next login reuses it."""
        if self._configured is not None and client_info.client_id == self._configured.client_id:
            return
        client = client_info.model_dump(mode="json", exclude_none=True)
        await anyio.to_thread.run_sync(
            self.store.update, self.name, self.url, lambda record: replace(record, client=client)
        )
