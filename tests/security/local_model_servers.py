"""A local model server as anyone on the machine could run one: a real HTTP server on a free
127.0.0.1 port that answers model-list requests with whatever the test scripts, including
hostile lists, answers that never finish, and answers trickled a byte at a time."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pexpect

from tests.pty_chat import spawn_agent


@dataclass
class Listing:
    """What the server does: `body` for every path in `paths`; `trickle` sends the headers,
    then one byte every 50 ms until the server stops; `silent` accepts and never answers."""

    paths: tuple[str, ...] = ("/api/tags", "/v1/models")
    body: bytes = b'{"models": []}'
    trickle: bool = False
    silent: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read the recorded requests."""

    def do_GET(self) -> None:
        """Record the request (with its headers), then act as the listing says."""
        listing = self.server.listing
        headers = {name.lower(): value for name, value in self.headers.items()}
        listing.requests.append({"path": self.path, "headers": headers})
        if listing.silent:
            listing.stopping.wait(60)
            return
        if self.path.split("?")[0] not in listing.paths:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if listing.trickle:
            self.end_headers()
            try:
                while not listing.stopping.wait(0.05):
                    self.wfile.write(b" ")
                    self.wfile.flush()
            except OSError:  # the client gave up: what the test wants
                return
            return
        self.send_header("Content-Length", str(len(listing.body)))
        self.end_headers()
        self.wfile.write(listing.body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    listing: Listing


@contextmanager
def local_server(listing: Listing) -> Iterator[int]:
    """Serve `listing` on a free port; yields the port."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.listing = listing
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        listing.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(10)


def ollama_tags(*names: str) -> bytes:
    """An Ollama /api/tags answer listing `names`."""
    return json.dumps({"models": [{"name": name, "model": name} for name in names]}).encode()


def discovery_settings(agent_home: Path, comment: str = "", **ports: float) -> Path:
    """A settings.yaml that looks only at the given ports (every other kind: 0, skipped)."""
    values: dict[str, float] = {"ollama_port": 0, "lm_studio_port": 0, "llama_cpp_port": 0}
    values["vllm_port"] = 0
    values.update(ports)
    agent_home.mkdir(parents=True, exist_ok=True)
    path = agent_home / "settings.yaml"
    lines = [comment, "model_discovery:"] if comment else ["model_discovery:"]
    lines += [f"  {key}: {value}" for key, value in values.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def chat_with_the_first_local_model(env: dict[str, str], cwd: Path, timeout: float) -> None:
    """The first run's chooser takes its first choice; one turn answered "Local answer."; exit."""
    chat = spawn_agent([], env, cwd, timeout=timeout)
    chat.expect("Enter for 1")
    chat.send("\r")  # the first choice: the local server's model
    chat.expect("Saved model: ")
    chat.expect("›")
    chat.send("hello\r")
    chat.expect("Local answer.")
    chat.expect("›")
    chat.send("/exit\r")
    chat.expect(pexpect.EOF)
    chat.close()
