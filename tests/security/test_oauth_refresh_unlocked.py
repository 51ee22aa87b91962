"""A refresh never holds the token file's lock across the network, nor waits for it on the loop.

Review finding 1: a refresh held the file lock across its token request while another server's
401 in the same process wrote the file from the event loop: the loop waited for a lock only
the loop could release, and the process (and every agent touching the file) hung for good.
Here two servers share one process through the real runtime_auth: `aa` refreshes through a
token endpoint held open until `bb` (401, never logged in) has recorded "needs login".
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2

from agent.mcp.oauth.token_store import TokenStore
from tests import deadlines
from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import running_oauth_server

WAIT = deadlines.PROCESS
RUNNER = Path(__file__).parents[1] / "fixtures" / "oauth_two_servers.py"


@contextmanager
def held_token_endpoint(target: str) -> Iterator[tuple[str, threading.Event, threading.Event]]:
    """A token endpoint that forwards to `target` once released: (url, arrived, release)."""
    arrived, release = threading.Event(), threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            arrived.set()
            release.wait(WAIT)
            keep = {"content-type", "authorization"}
            headers = {k: v for k, v in self.headers.items() if k.lower() in keep}
            answer = httpx2.post(target, content=body, headers=headers, timeout=WAIT)
            self.send_response(answer.status_code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/token", arrived, release
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def test_a_401_elsewhere_in_the_process_during_a_slow_refresh_does_not_hang_it(
    tmp_path: Path,
) -> None:
    with running_oauth_server() as a, running_oauth_server() as c:
        cli = OAuthCli(tmp_path, a, name="aa")
        cli.login()
        store = TokenStore(cli.token_file)
        with held_token_endpoint(f"{a.base}/token") as (endpoint, arrived, release):

            def expired_and_slow(record):  # type: ignore[no-untyped-def]
                tokens = {**(record.tokens or {}), "expires_at": time.time() - 10}
                metadata = {**(record.metadata or {}), "token_endpoint": endpoint}
                return replace(record, tokens=tokens, metadata=metadata)

            store.update("aa", a.mcp_url, expired_and_slow)
            runner = subprocess.Popen(
                [sys.executable, str(RUNNER), a.mcp_url, c.mcp_url],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ},
            )
            lines: queue.Queue[str] = queue.Queue()
            threading.Thread(
                target=lambda: [lines.put(x) for x in runner.stdout], daemon=True
            ).start()  # type: ignore[union-attr]
            try:
                assert arrived.wait(WAIT), "aa never refreshed"
                runner.stdin.write("go\n")  # type: ignore[union-attr]
                runner.stdin.flush()  # type: ignore[union-attr]
                try:
                    bb = lines.get(timeout=WAIT)
                except queue.Empty:
                    raise AssertionError("bb never finished: the process hangs") from None
                release.set()
                aa = lines.get(timeout=WAIT)
            finally:
                runner.kill()
                runner.wait(WAIT)
                for pipe in (runner.stdin, runner.stdout, runner.stderr):
                    pipe.close()  # type: ignore[union-attr]

    assert bb.startswith("bb raised NeedsLoginError: bb needs login"), bb
    assert aa == "aa answered 200\n", aa
    saved = store.load().servers
    assert saved["aa"].access_token() and not saved["aa"].needs_login
    assert saved["bb"].needs_login
