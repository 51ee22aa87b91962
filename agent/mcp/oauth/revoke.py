"""Logout: token revocation (RFC 7009) where the authorization server offers it, then forget."""

from __future__ import annotations

import httpx2
from mcp.client.auth.utils import issuers_match

from agent.mcp.config.definitions import HttpDefinition
from agent.mcp.config.launch import HttpLaunch
from agent.mcp.oauth.http_client import http_client
from agent.mcp.oauth.runtime import client_identity, token_request_auth
from agent.mcp.oauth.secure import insecure_reason
from agent.mcp.oauth.token_store import ServerAuth, TokenStore
from agent.text import sanitize_line

_TIMEOUT = 30.0


async def revoke(launch: HttpLaunch | None, record: ServerAuth) -> str:
    """Revoke the refresh and access tokens; a short phrase saying what happened."""
    endpoint = (record.metadata or {}).get("revocation_endpoint")
    if not isinstance(endpoint, str):
        return " (the server offers no revocation)"
    if insecure_reason(endpoint) is not None:  # never a token or client secret over http
        return f" (not revoked: its revocation endpoint {sanitize_line(endpoint)} is not https)"
    oauth = launch.oauth if launch is not None else None
    issuer = (record.metadata or {}).get("issuer")
    if (
        oauth is not None
        and oauth.issuer is not None
        and not issuers_match(str(issuer), oauth.issuer)
    ):  # the client's secret goes only to the server it belongs to (oauth/issuer.py)
        return f" (not revoked: the login was with {sanitize_line(str(issuer))}, not oauth.issuer)"
    client = client_identity(
        record,
        oauth.client_id if oauth else None,
        launch.client_secret if launch is not None else None,
    )
    tokens = [
        (token, hint)
        for token, hint in (
            (record.refresh_token(), "refresh_token"),
            (record.access_token(), "access_token"),
        )
        if token is not None
    ]
    refused = 0
    named = f" of MCP server {launch.server!r}" if launch is not None else ""
    server = f"the authorization server{named}"
    async with http_client(server, timeout=_TIMEOUT, follow_redirects=False) as http:
        for token, hint in tokens:
            data, headers = token_request_auth({"token": token, "token_type_hint": hint}, client)
            try:
                response = await http.post(endpoint, data=data, headers=headers)
            except httpx2.HTTPError:
                refused += 1
                continue
            refused += response.status_code != 200
    if not tokens:
        return ""
    if refused:
        return " (the server did not confirm the revocation)"
    return " (tokens revoked)"


async def logout(definition: HttpDefinition, launch: HttpLaunch | None, tokens: TokenStore) -> str:
    """Revoke (where offered) and forget a server's tokens and registration; one line to show."""
    # Whatever is stored under the name goes: under the expanded URL (token_key), or a record
    # for an earlier URL, which is still live at its authorization server until revoked.
    record = tokens.load().servers.get(definition.name)
    if record is None or (record.tokens is None and record.client is None):
        tokens.forget(definition.name)
        return f"{definition.name}: not logged in; nothing to forget."
    outcome = await revoke(launch, record)
    tokens.forget(definition.name)
    return f"Logged out of {definition.name}: tokens and registration forgotten{outcome}."
