"""`agent mcp login NAME`: the one place that runs an OAuth flow with a person and a browser.

The SDK's OAuthClientProvider does discovery (RFC 9728, RFC 8414 and OpenID, the 2025-03-26
fallbacks), the client identity (pre-registered id > client ID metadata document > dynamic
registration), PKCE S256, the resource indicator and scope selection. We give it the storage,
the browser and the callback: a loopback listener (oauth/callback.py) or a pasted URL.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.utils import union_scopes
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata

from agent.errors import AgentError, LoginError, ServerStartError
from agent.home import data_home
from agent.link_file import LOGIN_FOLDER, open_link_file, remove_link_file, write_link_file
from agent.mcp.config.launch import HttpLaunch
from agent.mcp.oauth.callback import (
    Callback,
    CallbackListener,
    can_read_paste,
    raise_for_error,
    wait_for_paste,
)
from agent.mcp.oauth.issuer import BoundIssuer
from agent.mcp.oauth.probe import probe
from agent.mcp.oauth.runtime import client_credentials_auth, read_private_key
from agent.mcp.oauth.secure import require_secure
from agent.mcp.oauth.storage import FileTokenStorage
from agent.mcp.oauth.token_store import ServerAuth, TokenStore
from agent.text import sanitize_line

# The SDK logs its flow errors with tracebacks; what matters reaches the person as our own
# LoginError (as in client/transports.py).
for _logger_name in ("mcp", "httpx2", "httpcore2"):
    logging.getLogger(_logger_name).addHandler(logging.NullHandler())
    logging.getLogger(_logger_name).propagate = False

LOGIN_TIMEOUT = 300.0


@dataclass(frozen=True)
class LoginIO:
    """How a login talks to the person: lines out, the browser, pasted URLs in."""

    say: Callable[[str], None]
    open_browser: bool = True
    read_paste: bool = True


class _LoginProvider(BoundIssuer):
    """The SDK provider, asking for the configured and step-up scopes on top of its choice,
    following the resource only to the configured issuer (oauth/issuer.py)."""

    extra_scope: str | None = None

    async def _perform_authorization(self) -> httpx2.Request:
        metadata = self.context.client_metadata
        metadata.scope = union_scopes(metadata.scope, self.extra_scope)
        return await super()._perform_authorization()


async def login(
    launch: HttpLaunch, store: TokenStore, io: LoginIO, timeout: float = LOGIN_TIMEOUT
) -> ServerAuth:
    """Log in to `launch`'s server now; return what was stored. Raises LoginError."""
    if not launch.uses_oauth():
        raise LoginError(
            f"{launch.server} sends its own Authorization header (see agent mcp export); "
            "remove that header to log in with OAuth instead"
        )
    oauth = launch.oauth
    try:
        with anyio.fail_after(timeout):
            if oauth is not None and oauth.grant == "client_credentials":
                provider = _client_credentials(launch, store)
                await probe(launch, provider, provider.context.storage.logged_in)
                _remember_metadata(store, launch, provider)
            else:
                await _authorization_code(launch, store, io)
    except TimeoutError:
        minutes = f"{timeout / 60:g} minutes" if timeout >= 60 else f"{timeout:g} s"
        raise LoginError(
            f"{launch.server}: no login arrived within {minutes}; run agent mcp login "
            f"{launch.server} again"
        ) from None
    record = store.get(launch.server, launch.url)
    if record is None or record.access_token() is None:
        raise LoginError(
            f"{launch.server} did not ask for a login (it answered without one); nothing stored"
        )
    return record


def _client_credentials(launch: HttpLaunch, store: TokenStore) -> Any:
    key = read_private_key(launch)
    store.update(launch.server, launch.url, lambda r: replace(r, tokens=None))
    storage = FileTokenStorage(store, launch.server, launch.url, fresh_login=True)
    try:
        return client_credentials_auth(storage, launch, key)
    except ServerStartError as error:
        raise LoginError(str(error)) from None


async def _authorization_code(launch: HttpLaunch, store: TokenStore, io: LoginIO) -> None:
    oauth = launch.oauth
    record = store.get(launch.server, launch.url)
    listener = await _open_listener(launch, record)
    try:
        configured = None
        if oauth is not None and oauth.client_id is not None:
            configured = OAuthClientInformationFull(
                client_id=oauth.client_id,
                client_secret=launch.client_secret,
                redirect_uris=[listener.redirect_uri],  # type: ignore[list-item]
                token_endpoint_auth_method=(
                    "client_secret_basic" if launch.client_secret else "none"
                ),
            )
        elif (
            record is not None
            and record.client is not None
            and (record.client.get("redirect_uris") != [listener.redirect_uri])
        ):
            # A registration is bound to its redirect URI: another port means registering again.
            store.update(launch.server, launch.url, lambda r: replace(r, client=None))
        storage = FileTokenStorage(
            store, launch.server, launch.url, fresh_login=True, configured_client=configured
        )
        flow = _BrowserFlow(launch.server, listener, io)
        provider = _LoginProvider(
            launch.url,
            OAuthClientMetadata(
                redirect_uris=[listener.redirect_uri],  # type: ignore[list-item]
                client_name="agent",
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                token_endpoint_auth_method="none",  # noqa: S106 (a public client)
            ),
            storage,
            redirect_handler=flow.redirect,
            callback_handler=flow.callback,
            client_metadata_url=oauth.client_metadata_url if oauth else None,
        )
        wanted = [
            *(oauth.scopes if oauth else ()),
            *((record.scope or "").split() if record else ()),
        ]
        provider.extra_scope = " ".join(dict.fromkeys(wanted)) or None
        provider.server_name, provider.bound_issuer = launch.server, oauth.issuer if oauth else None
        try:
            await probe(launch, provider, storage.logged_in)
        finally:
            flow.close()
        _remember_metadata(store, launch, provider)
    finally:
        await listener.aclose()


async def _open_listener(launch: HttpLaunch, record: ServerAuth | None) -> CallbackListener:
    oauth = launch.oauth
    if oauth is not None and oauth.callback_port is not None:
        try:
            return await CallbackListener.open(oauth.callback_port)
        except OSError as error:
            raise LoginError(
                f"{launch.server}: cannot listen on 127.0.0.1:{oauth.callback_port} for the "
                f"login ({error.strerror}); free that port or change oauth.callbackPort"
            ) from None
    registered = _registered_port(record)
    if registered is not None:
        try:
            return await CallbackListener.open(registered)
        except OSError:
            pass  # taken now: a new port, and so a new registration
    return await CallbackListener.open(0)


def _registered_port(record: ServerAuth | None) -> int | None:
    uris = (record.client or {}).get("redirect_uris") if record is not None else None
    if not isinstance(uris, list) or len(uris) != 1 or not isinstance(uris[0], str):
        return None
    parts = urlsplit(uris[0])
    return parts.port if parts.hostname == "127.0.0.1" else None


class _BrowserFlow:
    """The SDK's redirect and callback handlers: print and open the URL, then wait."""

    def __init__(self, server: str, listener: CallbackListener, io: LoginIO) -> None:
        self.server, self.listener, self.io = server, listener, io
        self.state = ""
        self.paste = io.read_paste and can_read_paste()
        self.pages: list[Path] = []

    async def redirect(self, authorization_url: str) -> None:
        """Show the URL (and where it leads), open the browser unless told not to."""
        parts = urlsplit(authorization_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            # Metadata names this URL; only a web page may reach the browser command.
            raise LoginError(f"{self.server}: the authorization URL is not an http(s) URL")
        require_secure(self.server, authorization_url, "authorization endpoint", LoginError)
        self.state = (parse_qs(parts.query).get("state") or [""])[0]
        host = parts.netloc  # where the person is sent
        shown = sanitize_line(authorization_url)
        self.io.say(f"To log in to {self.server}, open this URL (authorization server {host}):")
        self.io.say(f"  {shown}")
        if self.io.open_browser:
            self._open_browser(authorization_url)
        if self.paste:
            self.io.say("Waiting for the browser; or paste the URL it ended on here.")
        else:
            self.io.say("Waiting for the browser...")

    def _open_browser(self, authorization_url: str) -> None:
        # Never the URL itself on the browser's command line: other local users read it in
        # /proc and could finish this login as themselves (link_file.py). A private page that
        # leads there instead, opened beside the flow (the browser needs our listener).
        try:
            page = write_link_file(
                data_home(),
                authorization_url,
                folder=LOGIN_FOLDER,
                title=f"agent: log in to {self.server}",
                text=f"Continue to the login for {self.server}",
            )
        except (AgentError, OSError) as error:
            reason = str(error) if isinstance(error, AgentError) else error.strerror
            self.io.say(f"Not opening the browser: {reason}. Open the URL above.")
            return
        self.pages.append(page)
        open_link_file(page)

    def close(self) -> None:
        """Remove the page handed to the browser: once the login ends its URL is spent."""
        for page in self.pages:
            remove_link_file(page)

    async def callback(self) -> AuthorizationCodeResult:
        """Wait for the listener or a pasted URL, whichever brings this login's code first."""
        result: list[Callback] = []
        note = lambda text: self.io.say(f"{self.server}: {text}")  # noqa: E731
        async with anyio.create_task_group() as group:

            async def take(source: Any) -> None:
                result.append(await source(self.state, note))
                group.cancel_scope.cancel()

            group.start_soon(take, self.listener.wait)
            if self.paste:
                group.start_soon(take, wait_for_paste)
        callback = result[0]
        code = raise_for_error(self.server, callback)
        return AuthorizationCodeResult(code=code, state=callback.state, iss=callback.iss)


def _remember_metadata(
    store: TokenStore, launch: HttpLaunch, provider: OAuthClientProvider
) -> None:
    context = provider.context
    asm = context.oauth_metadata
    metadata: dict[str, Any] = {
        "issuer": str(asm.issuer) if asm else None,
        "token_endpoint": provider._get_token_endpoint(),
        "revocation_endpoint": str(asm.revocation_endpoint)
        if asm and asm.revocation_endpoint
        else None,
        "resource": context.get_resource_url()
        if context.protected_resource_metadata is not None
        else None,
    }
    store.update(launch.server, launch.url, lambda r: replace(r, metadata=metadata))
