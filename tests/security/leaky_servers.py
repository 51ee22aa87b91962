"""leaky_listing_server.py saved as `lx`, two ways: over stdio with its secret from a `${VAR}`
in its env, and over HTTP with the secret as the bearer token of its Authorization header."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from tests.fixtures.mcp_fixtures import (
    SERVERS,
    read_port_line,
    server_command,
    stop_child,
    trust_launch,
)

SERVER = "lx"
DB_PASS = "Pa55canary4471"  # in the stdio server's env as postgres://app:${DB_PASS}@...
TOKEN = "tok-canary-8812"  # the HTTP server's bearer token


@dataclass(frozen=True)
class Leaky:
    """A saved leaky server: its secret and the environment agent must run with."""

    transport: str
    secret: str
    env: dict[str, str]


def agent_environment(agent_home: Path, home: Path) -> dict[str, str]:
    """The environment of a person running agent, with both secrets in their variables."""
    env = dict(os.environ)
    home.mkdir(exist_ok=True)
    env.update(
        HOME=str(home),
        AGENT_HOME=str(agent_home),
        OPENAI_API_KEY="sk-test",
        PROMPT_TOOLKIT_NO_CPR="1",
        NO_COLOR="1",
        TERM="xterm",
        DB_PASS=DB_PASS,
        API_TOKEN=TOKEN,
    )
    env.pop("AGENT_MODEL", None)
    return env


def _save(agent_home: Path, server: dict[str, object], env: dict[str, str]) -> None:
    """Save `server` as lx, enabled, tools never listed (the first listing selects them all)."""
    from agent.mcp.config.definitions import StdioDefinition, fingerprint
    from agent.mcp.config.document import parse_document_data
    from agent.mcp.store import McpStore

    store = McpStore(agent_home / "mcp-servers.json")
    document = {"mcpServers": {SERVER: server}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    if isinstance(store.load().find(SERVER), StdioDefinition):
        trust_launch(store, SERVER, SERVERS, env)
    fp = fingerprint(store.load().find(SERVER))
    store.update_state(SERVER, fp, lambda s: replace(s, enabled=True))


def save_leaky_stdio(agent_home: Path, env: dict[str, str]) -> Leaky:
    """The stdio server, its secret given by `${DB_PASS}` in its env."""
    command = server_command("leaky_listing_server.py")
    server = {
        "command": command[0],
        "args": command[1:],
        "cwd": str(SERVERS),
        "env": {"LEAKY_SECRET": "${DB_PASS}"},
    }
    _save(agent_home, server, env)
    return Leaky("stdio", DB_PASS, env)


@contextmanager
def running_leaky_http(agent_home: Path, env: dict[str, str]) -> Iterator[Leaky]:
    """The HTTP server running on 127.0.0.1, saved with `Authorization: Bearer ${API_TOKEN}`."""
    with tempfile.TemporaryDirectory(prefix="leaky-http-") as tmp:
        stderr_path = Path(tmp) / "stderr.log"
        with stderr_path.open("wb") as stderr:
            process = subprocess.Popen(
                server_command("leaky_listing_server.py", "--http"),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env={**os.environ, "LEAKY_SECRET": TOKEN},
                cwd=SERVERS,
            )
        try:
            port = read_port_line(process, stderr_path, "leaky_listing_server.py")
            url = f"http://127.0.0.1:{port}/mcp"
            headers = {"Authorization": "Bearer ${API_TOKEN}"}
            _save(agent_home, {"url": url, "headers": headers}, env)
            yield Leaky("http", TOKEN, env)
        finally:
            stop_child(process)


@contextmanager
def leaky_server(transport: str, agent_home: Path, home: Path) -> Iterator[Leaky]:
    """The leaky server over `transport` ("stdio" or "http"), saved as lx."""
    env = agent_environment(agent_home, home)
    if transport == "stdio":
        yield save_leaky_stdio(agent_home, env)
        return
    with running_leaky_http(agent_home, env) as leaky:
        yield leaky
