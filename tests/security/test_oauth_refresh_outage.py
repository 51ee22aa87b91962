"""An authorization server that is down or failing never costs the login (review finding 2).

Only an OAuth error saying the grant is gone (invalid_grant, ...) ends a login. A refresh that
meets a closed port or a 503 page keeps the refresh token: that call fails naming the host,
and once the server is back the next call refreshes and works, with no browser.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agent.mcp.oauth.token_store import ServerAuth, TokenStore
from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import running_oauth_server


@contextmanager
def closed_port() -> Iterator[str]:
    """A token endpoint nobody listens on (connection refused).

    The port stays bound without listening while the test runs: a connection to it is refused,
    and no other process (a parallel test's server) can take it meanwhile."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{probe.getsockname()[1]}/token"


@contextmanager
def unavailable() -> Iterator[str]:
    """A token endpoint behind a proxy that answers 503 with an HTML page."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            page = b"<html>503 Service Unavailable</html>"
            self.send_response(503)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/token"
    finally:
        server.shutdown()
        server.server_close()


def _token_endpoint(store: TokenStore, url: str, endpoint: str, *, expire: bool) -> None:
    def change(record: ServerAuth) -> ServerAuth:
        tokens = dict(record.tokens or {})
        if expire:
            tokens["expires_at"] = time.time() - 10
        metadata = {**(record.metadata or {}), "token_endpoint": endpoint}
        return replace(record, tokens=tokens, metadata=metadata)

    store.update("fx", url, change)


@pytest.mark.parametrize("outage", [closed_port, unavailable], ids=["refused", "503"])
def test_a_refresh_that_cannot_reach_the_server_keeps_the_login_for_the_next_try(
    tmp_path: Path, outage: object
) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()
        store = TokenStore(cli.token_file)
        real = f"{server.base}/token"
        with outage() as endpoint:  # type: ignore[operator]
            _token_endpoint(store, server.mcp_url, endpoint, expire=True)
            down = cli.echo("while down")
        kept = store.get("fx", server.mcp_url)
        _token_endpoint(store, server.mcp_url, real, expire=False)
        back = cli.echo("back")

    host = endpoint.split("/")[2]
    assert down.returncode != 0
    assert f"could not refresh its login at {host}" in down.stderr, down.stderr
    assert "the login is kept: try again later" in down.stderr
    assert "needs login" not in down.stderr
    assert kept is not None and kept.refresh_token() and not kept.needs_login
    assert (back.returncode, back.stdout.splitlines()[0]) == (0, "back"), back.stderr
