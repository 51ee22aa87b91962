"""No bearer token, code or client secret over plain http to another host (review finding 4).

A network attacker on the path reads whatever crosses plain http. Here a TCP relay on this
machine's non-loopback address (a stand-in for that path) forwards to the fixture server and
records every Authorization header that crosses it: the login and the call must refuse with
a line naming the URL and https, and nothing must cross.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path

import pytest

from agent.mcp.oauth.token_store import ServerAuth, TokenStore
from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import running_oauth_server


def _outside_address() -> str | None:
    # The address this machine would use to reach another (no packet is sent).
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.123", 9))
        except OSError:
            return None
        address: str = probe.getsockname()[0]
    return None if address.startswith("127.") else address


@contextmanager
def relay(address: str) -> Iterator[tuple[socket.socket, list[bytes], list[int]]]:
    """A listening relay on `address`; set target[0] to the loopback port to forward to."""
    listener = socket.create_server((address, 0))
    seen: list[bytes] = []
    target: list[int] = []

    def pipe(source: socket.socket, sink: socket.socket, record: bool) -> None:
        try:
            while data := source.recv(65536):
                if record:
                    seen.extend(
                        line for line in data.split(b"\r\n") if line.lower().startswith(b"auth")
                    )
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def serve() -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", target[0]))
            threading.Thread(target=pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=pipe, args=(upstream, client, False), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener, seen, target
    finally:
        listener.close()


def test_no_token_crosses_plain_http_to_another_host(tmp_path: Path) -> None:
    address = _outside_address()
    if address is None:
        pytest.skip("this machine has no non-loopback address to stand for another host")
    with relay(address) as (listener, seen, target):
        plain = f"http://{address}:{listener.getsockname()[1]}/mcp"
        with running_oauth_server() as server:
            target.append(int(server.base.rsplit(":", 1)[1]))
            cli = OAuthCli(tmp_path, server)
            document = tmp_path / "both.json"
            servers = {"fx": {"url": server.mcp_url}, "plain": {"url": plain}}
            document.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
            assert cli.run("mcp", "import", str(document)).returncode == 0
            login = cli.run("mcp", "login", "plain")
            # Tokens stored for the plain URL (as a login before this fix would have).
            assert cli.run("mcp", "login", "fx").returncode == 0
            store = TokenStore(cli.token_file)
            good = store.get("fx", server.mcp_url)
            assert good is not None

            def same_tokens(record: ServerAuth) -> ServerAuth:
                return replace(good, url=record.url)

            store.update("plain", plain, same_tokens)
            call = cli.run("mcp", "call", "plain", "echo", "--args", '{"text": "hi"}')

    assert login.returncode != 0
    assert f"its URL {plain} is not https" in login.stderr, login.stderr
    assert call.returncode != 0
    assert f"its URL {plain} is not https" in call.stderr, call.stderr
    assert "use an https:// URL" in call.stderr
    assert seen == []  # no Authorization header ever crossed plain http
