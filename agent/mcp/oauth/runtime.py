"""The runtime's OAuth: stored tokens on every request, refreshed in time; never a browser.

A chat, a one-shot run or a console command uses what `agent mcp login` stored. It refreshes
a token before it expires and once after a 401; when that cannot help, the server "needs
login" (recorded in the token file for `agent mcp list`) and the connection fails with one
line naming the command to run. Only `agent mcp login` opens a browser (oauth/login.py).

A refresh re-reads the file under its lock first: when another process refreshed meanwhile its
newer token is used, never our stale refresh token (a rotating authorization server would
revoke the whole grant on its reuse). The lock is never held across the request, and never
waited for on the event loop; the result is stored only if the record is still the one the
refresh started from. Only an error saying the grant is gone (invalid_grant, ...) drops the
login; an unreachable authorization server keeps it for the next try.
"""

from __future__ import annotations

import base64
import os
import stat
from collections.abc import AsyncGenerator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import quote, urlsplit

import anyio
import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.utils import extract_field_from_www_auth, union_scopes

from agent.errors import NeedsLoginError, ServerStartError
from agent.mcp.config.launch import HttpLaunch
from agent.mcp.oauth.http_client import http_client
from agent.mcp.oauth.issuer import BoundIssuer, require_issuer
from agent.mcp.oauth.secure import SecureOnly, require_secure
from agent.mcp.oauth.storage import FileTokenStorage, record_tokens
from agent.mcp.oauth.token_store import ServerAuth, TokenStore
from agent.text import sanitize_line

REFRESH_TIMEOUT = 30.0
# An OAuth error that means the grant itself is gone, so only a new login helps: invalid_grant
# (the refresh token expired, was revoked or already used), invalid_client (the registration
# was deleted) and unauthorized_client (the client may no longer use this grant).
GRANT_GONE_ERRORS = frozenset({"invalid_grant", "invalid_client", "unauthorized_client"})
# One lock per server in this process: two tasks refreshing the same server at once would both
# spend the refresh token. It orders tasks only; it never blocks the event loop.
_SERVER_LOCKS: dict[str, anyio.Lock] = {}


def _server_lock(name: str) -> anyio.Lock:
    return _SERVER_LOCKS.setdefault(name, anyio.Lock())


def grant_gone(response: httpx2.Response) -> bool:
    """True when a token endpoint's error answer says the grant can never be refreshed."""
    if response.status_code not in (400, 401):
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("error") in GRANT_GONE_ERRORS


class StoredTokenAuth(httpx2.Auth):
    """Bearer tokens from the token file for one server (authorization-code logins)."""

    requires_response_body = True

    def __init__(
        self, store: TokenStore, launch: HttpLaunch, on_token: Callable[[str], None]
    ) -> None:
        self.store, self.name, self.url = store, launch.server, launch.url
        self._on_token = on_token
        self._client_id = launch.oauth.client_id if launch.oauth else None
        self._client_secret = launch.client_secret
        self._issuer = launch.oauth.issuer if launch.oauth else None

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """Send with the stored token; refresh before expiry and once on a 401."""
        record = await anyio.to_thread.run_sync(self.store.get, self.name, self.url)
        if record is not None and record.access_token() and not record.fresh():
            record = await self._refreshed(record)
        sent = self._bearer(request, record)
        response = yield request
        if response.status_code == 401:
            if sent is None:
                await self._needs_login()
            record = await self._refreshed(record, rejected=sent)
            self._bearer(request, record)
            response = yield request
            if response.status_code == 401:
                await self._needs_login()
        if _insufficient_scope(response):
            # Only this request needs more: the tokens still serve every other tool, so they
            # are kept; the 403 fails this call alone, and the next login asks for the union.
            wanted = union_scopes(
                (record.tokens or {}).get("scope") if record else None,
                extract_field_from_www_auth(response, "scope"),
            )
            await anyio.to_thread.run_sync(
                self.store.update, self.name, self.url, lambda r: replace(r, scope=wanted)
            )

    def _bearer(self, request: httpx2.Request, record: ServerAuth | None) -> str | None:
        token = record.access_token() if record is not None else None
        if token is not None:
            for value in (token, record.refresh_token() if record else None):
                if value:
                    self._on_token(value)  # masked in whatever the server sends back
            request.headers["Authorization"] = f"Bearer {token}"
        return token

    async def _needs_login(self) -> NoReturn:
        # In a worker thread: the file lock must never be waited for on the event loop.
        await anyio.to_thread.run_sync(self.store.mark_needs_login, self.name, self.url)
        raise NeedsLoginError(self.name)

    async def _refreshed(
        self, record: ServerAuth | None, rejected: str | None = None
    ) -> ServerAuth:
        """A usable record after a refresh (ours, or one another process just stored).

        The file lock is never held across the request (a write elsewhere in this process
        would wait on it forever): re-read under it, refresh unlocked, then store under it
        only if the record is still the one we started from (else the newer one wins).
        """
        async with _server_lock(self.name):
            latest = await anyio.to_thread.run_sync(self._read_locked)
            if latest is not None and latest.fresh() and latest.access_token() != rejected:
                return latest  # still good, or another process refreshed meanwhile
            if latest is None or latest.refresh_token() is None or latest.metadata is None:
                return await self._needs_login()
            tokens = await self._refresh(latest)
            return await anyio.to_thread.run_sync(self._settle, latest, tokens)

    def _read_locked(self) -> ServerAuth | None:
        # Under the lock: a process that is storing its refresh finishes first.
        with self.store.locked():
            return self.store.get(self.name, self.url)

    def _settle(self, started: ServerAuth, tokens: dict[str, Any] | None) -> ServerAuth:
        """Store our refresh (None: the grant is gone) unless another process stored newer."""
        newer: list[ServerAuth] = []

        def change(current: ServerAuth) -> ServerAuth:
            if current.tokens != started.tokens and current.access_token() is not None:
                newer.append(current)  # another process refreshed meanwhile: keep its tokens
                return current
            if tokens is None:
                return replace(current, tokens=None, needs_login=True)
            return replace(current, tokens=tokens, needs_login=False)

        after = self.store.update(self.name, self.url, change)
        if newer:
            return newer[0]
        if tokens is None or after is None:
            raise NeedsLoginError(self.name)
        return after

    async def _refresh(self, record: ServerAuth) -> dict[str, Any] | None:
        """New tokens; None when the authorization server says the grant is gone.

        Anything else (offline, a timeout, a 5xx, a proxy's page) keeps the refresh token:
        the connection fails for now and the next one tries again.
        """
        assert record.metadata is not None
        token_endpoint = record.metadata.get("token_endpoint")
        refresh_token = record.refresh_token()
        if not isinstance(token_endpoint, str) or refresh_token is None:
            return None
        require_secure(self.name, token_endpoint, "token endpoint")
        # The stored metadata came from the login; a secret goes only to the configured issuer.
        require_issuer(self.name, record.metadata.get("issuer"), self._issuer)
        data, headers = self._client_auth(
            {"grant_type": "refresh_token", "refresh_token": refresh_token}, record
        )
        resource = record.metadata.get("resource")
        if isinstance(resource, str):
            data["resource"] = resource
        async with http_client(
            f"the authorization server of MCP server {self.name!r}",
            timeout=REFRESH_TIMEOUT,
            follow_redirects=False,
        ) as client:
            try:
                response = await client.post(token_endpoint, data=data, headers=headers)
            except httpx2.HTTPError as error:
                raise self._unreachable(token_endpoint, type(error).__name__) from None
        if response.status_code != 200:
            if grant_gone(response):
                return None
            raise self._unreachable(token_endpoint, f"HTTP {response.status_code}")
        tokens = _refreshed_tokens(response, record)
        if tokens is None:
            raise self._unreachable(token_endpoint, "the answer was not a token")
        return tokens

    def _unreachable(self, endpoint: str, reason: str) -> ServerStartError:
        host = urlsplit(endpoint).netloc
        return ServerStartError(
            sanitize_line(
                f"MCP server {self.name!r} could not refresh its login at {host} ({reason}); "
                "the login is kept: try again later"
            )
        )

    def _client_auth(
        self, data: dict[str, str], record: ServerAuth
    ) -> tuple[dict[str, str], dict[str, str]]:
        return token_request_auth(
            data, client_identity(record, self._client_id, self._client_secret)
        )


def client_identity(
    record: ServerAuth, client_id: str | None, client_secret: str | None
) -> dict[str, Any]:
    """Who we are at the token endpoint: the configured client, else the stored registration."""
    if client_id is not None:  # pre-registered: identity from the configuration, never stored
        method = "client_secret_basic" if client_secret else None
        return {
            "client_id": client_id,
            "client_secret": client_secret,
            "token_endpoint_auth_method": method,
        }
    return record.client or {}


def token_request_auth(
    data: dict[str, str], client: dict[str, Any]
) -> tuple[dict[str, str], dict[str, str]]:
    """The form and headers of a token-endpoint request, authenticated as `client` says."""
    client_id = str(client.get("client_id", ""))
    secret = client.get("client_secret")
    method = client.get("token_endpoint_auth_method")
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if secret and method == "client_secret_basic":
        pair = f"{quote(client_id, safe='')}:{quote(str(secret), safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    else:
        data["client_id"] = client_id
        if secret and method == "client_secret_post":
            data["client_secret"] = str(secret)
    return data, headers


def _refreshed_tokens(response: httpx2.Response, record: ServerAuth) -> dict[str, Any] | None:
    from mcp.shared.auth import OAuthToken

    try:
        token = OAuthToken.model_validate_json(response.content)
    except ValueError:  # pydantic's ValidationError is a ValueError
        return None
    tokens = record_tokens(token)
    previous = record.tokens or {}
    # RFC 6749 section 6: an omitted refresh token or scope means unchanged.
    for key in ("refresh_token", "scope"):
        if key not in tokens and key in previous:
            tokens[key] = previous[key]
    return tokens


def _insufficient_scope(response: httpx2.Response) -> bool:
    return (
        response.status_code == 403
        and extract_field_from_www_auth(response, "error") == "insufficient_scope"
    )


class _StoredExpiry(BoundIssuer):
    """Client-credentials providers: a stored token's expiry is known across restarts."""

    async def _initialize(self) -> None:
        await super()._initialize()
        record = await anyio.to_thread.run_sync(
            self.context.storage.store.get,  # type: ignore[attr-defined]
            self.context.storage.name,  # type: ignore[attr-defined]
            self.context.storage.url,  # type: ignore[attr-defined]
        )
        expires = record.expires_at() if record is not None else None
        self.context.token_expiry_time = expires
        tokens = self.context.current_tokens
        if tokens is not None and tokens.refresh_token:
            # After a restart no metadata is known yet, and the SDK would send a refresh (with
            # our secret) to the resource server's origin unchecked. The grant itself gets a
            # new token just as well, through discovery and the issuer check.
            self.context.current_tokens = tokens.model_copy(update={"refresh_token": None})


class _SecretProvider(_StoredExpiry, ClientCredentialsOAuthProvider):
    async def _exchange_token_client_credentials(self) -> httpx2.Request:
        # The method the authorization server's metadata offers: basic first, else post.
        metadata, client = self.context.oauth_metadata, self.context.client_info
        offered = (metadata.token_endpoint_auth_methods_supported if metadata else None) or []
        if client is not None and offered and client.token_endpoint_auth_method not in offered:
            for method in ("client_secret_basic", "client_secret_post"):
                if method in offered:
                    client.token_endpoint_auth_method = method
                    break
        return await super()._exchange_token_client_credentials()


class _KeyProvider(_StoredExpiry, PrivateKeyJWTOAuthProvider):
    pass


def client_credentials_auth(
    storage: FileTokenStorage,
    launch: HttpLaunch,
    private_key: str | None,
) -> OAuthClientProvider:
    """The SDK's client-credentials provider (secret or private_key_jwt) over our storage,
    bound to the configured issuer (the SDK's own check, and ours: oauth/issuer.py)."""
    oauth = launch.oauth
    assert oauth is not None and oauth.client_id is not None
    # Configuration requires it with a secret or key (config/oauth.py); never run without.
    if oauth.issuer is None:
        raise ServerStartError(
            f"MCP server {launch.server!r} oauth.issuer: required with client credentials; "
            "set it to the authorization server's issuer URL"
        )
    scope = " ".join(oauth.scopes) or None
    provider: _StoredExpiry
    if private_key is not None:
        signer = SignedJWTParameters(
            issuer=oauth.client_id,
            subject=oauth.client_id,
            signing_key=private_key,
            signing_algorithm=oauth.signing_algorithm or "RS256",
        )
        provider = _KeyProvider(
            storage.url,
            storage,
            oauth.client_id,
            signer.create_assertion_provider(),
            scope=scope,
            issuer=oauth.issuer,
        )
    else:
        provider = _SecretProvider(
            storage.url,
            storage,
            oauth.client_id,
            launch.client_secret or "",
            scope=scope,
            issuer=oauth.issuer,
        )
    provider.server_name, provider.bound_issuer = launch.server, oauth.issuer
    return provider


def runtime_auth(
    launch: HttpLaunch,
    store: TokenStore | None = None,
    on_token: Callable[[str], None] = lambda value: None,
) -> httpx2.Auth:
    """The auth a chat or console connection uses for `launch`: never one that opens a browser.

    `on_token` hears every token sent, so the connection masks it in what the server says.
    """
    store = TokenStore() if store is None else store
    require_secure(launch.server, launch.url, "URL")  # a clear line before any connection
    return SecureOnly(_auth(launch, store, on_token), launch.server, launch.url)


def _auth(launch: HttpLaunch, store: TokenStore, on_token: Callable[[str], None]) -> httpx2.Auth:
    oauth = launch.oauth
    if oauth is not None and oauth.grant == "client_credentials" and oauth.client_id:
        storage = FileTokenStorage(store, launch.server, launch.url, on_token=on_token)
        return client_credentials_auth(storage, launch, read_private_key(launch))
    return StoredTokenAuth(store, launch, on_token)


def read_private_key(launch: HttpLaunch) -> str | None:
    """The PEM text of oauth.privateKeyFile, or None; an unreadable or loose file names the field.

    Like ssh, a key that others can read (or replace with their own) is refused: the mode is
    checked on the opened file itself, so a swap between check and read cannot slip past.
    """
    if launch.private_key_file is None:
        return None
    path = Path(launch.private_key_file).expanduser()
    where = f"MCP server {launch.server!r} oauth.privateKeyFile"
    try:
        with path.open("rb") as handle:
            info = os.fstat(handle.fileno())
            mode = stat.S_IMODE(info.st_mode)
            if mode & 0o077 or info.st_uid != os.getuid():
                owner = "" if info.st_uid == os.getuid() else ", and it is not yours"
                raise ServerStartError(
                    f"{where}: {path} can be read or changed by others (mode {mode:o}{owner}); "
                    f"run chmod 600 {path} (a private key must be yours alone)"
                )
            return handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not a PEM text file"
        raise ServerStartError(f"{where}: cannot read {path}: {reason}") from None
