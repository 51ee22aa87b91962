"""With HTTP_PROXY set, no token or client secret goes in clear text to the proxy.

"Plain http only to this machine" holds because a loopback connection never leaves it; a
proxy is another machine (or another user's program), and plain http to it carries the token
request and every bearer header in clear text. So a plain-http loopback connection never goes
through a proxy, and a plain-http URL that only a proxy could reach is refused. The proxy here
is a real forwarding HTTP proxy on 127.0.0.1 that keeps every request it is sent.
"""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from tests.fixtures.oauth_cli import OAuthCli, client_credentials_cli
from tests.fixtures.oauth_fixtures import running_oauth_server

FORWARD_TIMEOUT = 30.0
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te"}


@contextmanager
def recording_proxy() -> Iterator[tuple[str, list[str]]]:
    """An HTTP proxy on 127.0.0.1 that forwards each request and keeps its line and
    headers: (its URL for HTTP_PROXY, what it was sent)."""
    seen: list[str] = []

    class Forward(BaseHTTPRequestHandler):
        def forward(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            seen.append(f"{self.command} {self.path}\n{self.headers}")
            target = urlsplit(self.path)
            upstream = http.client.HTTPConnection(
                target.hostname or "", target.port or 80, timeout=FORWARD_TIMEOUT
            )
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            try:
                path = target.path + (f"?{target.query}" if target.query else "")
                upstream.request(self.command, path, body=body, headers=headers)
                answer = upstream.getresponse()
            except OSError as error:
                self.send_error(502, str(error))
                return
            self.send_response(answer.status)
            for key, value in answer.getheaders():
                if key.lower() not in HOP_BY_HOP | {"content-length"}:
                    self.send_header(key, value)
            self.send_header("Connection", "close")  # the body ends when we close
            self.end_headers()
            while chunk := answer.read1(65536):
                self.wfile.write(chunk)
                self.wfile.flush()
            upstream.close()

        do_GET = do_POST = do_DELETE = forward

        def log_message(self, format: str, *args: object) -> None:
            pass  # the test reads `seen`, not stderr

    proxy = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    proxy.daemon_threads = True
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}", seen
    finally:
        proxy.shutdown()
        proxy.server_close()


def proxied(proxy: str) -> dict[str, str]:
    """The environment of a person behind a proxy (every variable http clients read)."""
    return {"HTTP_PROXY": proxy, "http_proxy": proxy, "ALL_PROXY": proxy, "NO_PROXY": ""}


def test_a_loopback_servers_token_request_and_bearer_headers_never_go_to_the_proxy(
    tmp_path: Path,
) -> None:
    with recording_proxy() as (proxy, seen), running_oauth_server() as server:
        cli = client_credentials_cli(tmp_path, server, env_extra=proxied(proxy))

        inspected = cli.run("mcp", "inspect", "fx")  # token request, then bearer headers
        called = cli.echo()
        state = server.state()

    assert seen == []
    assert inspected.returncode == 0, inspected.stderr
    assert called.returncode == 0, called.stderr
    assert state["grants"] == {"client_credentials": 1}


def test_stored_login_tokens_never_go_to_the_proxy(tmp_path: Path) -> None:
    with recording_proxy() as (proxy, seen), running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()  # the browser stand-in follows redirects without the proxy
        server.knobs(expire_all=True)  # so the call refreshes first: a token request
        cli.env_extra.update(proxied(proxy))

        called = cli.echo()
        state = server.state()

    assert seen == []
    assert called.returncode == 0, called.stderr
    assert state["grants"].get("refresh_token") == 1


def test_a_plain_http_url_only_a_proxy_could_reach_is_refused(tmp_path: Path) -> None:
    remote = "http://mcp.example.test/mcp"  # another machine: the proxy would carry it
    with recording_proxy() as (proxy, seen), running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server, env_extra=proxied(proxy))
        cli.import_server(remote)

        login = cli.run("mcp", "login", "fx")
        inspected = cli.run("mcp", "inspect", "fx")

    assert seen == []
    for run in (login, inspected):
        assert run.returncode != 0
        assert f"its URL {remote} is not https" in run.stderr, run.stderr
