"""Configured client credentials are bound to the authorization server they were issued by.

A client secret or private key (oauth.clientSecret, oauth.privateKeyFile) belongs to one
authorization server: `oauth.issuer` (required with either). The resource server only names
an authorization server in its metadata (RFC 9728), and a hostile or taken-over one could
name an attacker's. So the server it names, the metadata found for it (RFC 8414: its `issuer`
must be that exact string) and the metadata stored at login must all be the configured
issuer; anything else is refused before a single request goes to that server.

The endpoints that metadata names are trusted wherever they are: RFC 8414 lets an issuer put
its token endpoint on another host (Google's is on oauth2.googleapis.com), and the metadata
is the issuer's own word, fetched from the issuer's origin (the SDK follows no redirect out
of an origin, and SecureOnly allows plain http only to this machine).
"""

from __future__ import annotations

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.utils import issuers_match

from agent.errors import ServerStartError
from agent.text import sanitize_line


def issuer_refusal(server: str, named: str, expected: str) -> ServerStartError:
    """The error for a resource (or stored metadata) that leads to another authorization server."""
    return ServerStartError(
        sanitize_line(
            f"MCP server {server!r} names the authorization server {named}, but its client "
            f"credentials belong to {expected} (oauth.issuer); nothing was sent there. If the "
            "server really moved, set oauth.issuer to the new authorization server's issuer "
            "URL (agent mcp edit)"
        )
    )


def require_issuer(server: str, found: object, expected: str | None) -> None:
    """Refuse unless `found` (an issuer from metadata) is the configured issuer, if any."""
    if expected is None:
        return
    if not isinstance(found, str) or not issuers_match(found, expected):
        raise issuer_refusal(server, str(found) if found else "(none recorded)", expected)


class BoundIssuer(OAuthClientProvider):
    """An SDK provider that follows the resource only to the configured issuer.

    Set `server_name` and `bound_issuer` after construction; with no issuer it behaves as
    the SDK does (a client of its own registration, or a public one, has nothing to lose).
    """

    server_name: str = ""
    bound_issuer: str | None = None

    def _select_authorization_server(self, advertised: list[str]) -> str:
        # Of several servers the resource lists, the one our credentials belong to.
        for candidate in advertised:
            if self.bound_issuer is not None and issuers_match(candidate, self.bound_issuer):
                return candidate
        return super()._select_authorization_server(advertised)

    def _expected_issuer(self) -> str:
        # The SDK asks this once discovery has decided which server to use (the one the
        # resource names, or on the legacy path its own origin), before any request to it;
        # every later metadata check compares against the answer, so this one check binds
        # the whole flow: metadata, registration, authorization and token requests.
        expected: str = super()._expected_issuer()
        require_issuer(self.server_name, expected, self.bound_issuer)
        return expected

    async def _perform_authorization(self) -> httpx2.Request:
        # Belt and braces: the token request is built from this metadata alone.
        metadata = self.context.oauth_metadata
        if self.bound_issuer is not None:
            require_issuer(
                self.server_name, str(metadata.issuer) if metadata else None, self.bound_issuer
            )
        return await super()._perform_authorization()
