"""McpHost's one-shot shortcut: it decides from the store the runtime will use."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.host import McpHost
from agent.mcp.store import McpStore

pytestmark = pytest.mark.anyio


class RuntimeWanted(Exception):
    """Raised by the runtime factory: the host decided it needs a runtime."""


def _make_runtime() -> None:
    raise RuntimeWanted


def _store(path: Path, enabled: bool) -> McpStore:
    store = McpStore(path)
    document = {"mcpServers": {"fx": {"command": "python3", "args": ["-c", "pass"]}}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    definition = store.load().find("fx")
    store.update_state("fx", fingerprint(definition), lambda s: replace(s, enabled=enabled))
    return store


async def test_an_enabled_server_in_the_hosts_own_store_brings_the_runtime_up(
    tmp_path: Path, agent_home: Path
) -> None:
    # The default store (in agent_home) has nothing; the host's store has an enabled server.
    store = _store(tmp_path / "elsewhere.json", enabled=True)
    host = McpHost(_make_runtime, report=lambda line: None, store_path=store.path)  # type: ignore[arg-type]

    with pytest.raises(RuntimeWanted):
        await host.serve(anyio.Event(), only_if_used=True)


async def test_with_no_server_enabled_one_shot_brings_nothing_up(
    tmp_path: Path, agent_home: Path
) -> None:
    _store(agent_home / "mcp-servers.json", enabled=True)  # the default store must not count
    store = _store(tmp_path / "elsewhere.json", enabled=False)
    host = McpHost(_make_runtime, report=lambda line: None, store_path=store.path)  # type: ignore[arg-type]

    await host.serve(anyio.Event(), only_if_used=True)

    assert host.started.is_set() and host.runtime is None


async def test_a_request_with_no_server_enabled_does_not_wait_for_the_mcp_side(
    tmp_path: Path, agent_home: Path
) -> None:
    store = _store(tmp_path / "elsewhere.json", enabled=False)
    host = McpHost(_make_runtime, report=lambda line: None, store_path=store.path)  # type: ignore[arg-type]
    told: list[list[str]] = []

    with anyio.fail_after(5):
        await host.wait_for_servers(told.append)  # the host was never served: nothing to wait for

    assert told == [] and not host.started.is_set()


async def test_a_request_waits_for_a_starting_server_and_is_told_its_name(
    tmp_path: Path, agent_home: Path
) -> None:
    import os

    from tests.fixtures.mcp_fixtures import save_trusted_stdio_server, server_command
    from tests.mcp.runtime_helpers import runtime

    command = server_command("slow_start_server.py", "1")
    save_trusted_stdio_server(agent_home, "slow", command, os.environ)
    store = McpStore(agent_home / "mcp-servers.json")
    reports: list[str] = []
    host = McpHost(lambda: runtime(store, agent_home, tmp_path), report=reports.append)
    told: list[list[str]] = []
    stop = anyio.Event()
    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(host.serve, stop)
            await host.wait_for_servers(told.append)
            state = host.runtime.status("slow").state if host.runtime else None
            stop.set()

    assert told[-1] == ["slow"]  # the last thing waited for was the server itself
    # The cache held only echo; the start listed the server's 16 tools: 15 are new (said once).
    assert state == "ready" and len(reports) == 1
    assert reports[0].startswith("MCP server slow ready (1 tool); 15 new tools, not selected: ")


OAUTH_PROBE = """
import sys
from pathlib import Path

import anyio

from agent.mcp.host import McpHost


def make_runtime():
    raise LookupError("runtime wanted")  # the imports are done by now


async def main():
    host = McpHost(make_runtime, report=print, store_path=Path(sys.argv[1]))
    try:
        await host.serve(anyio.Event())
    except LookupError:
        pass
    print("agent.mcp.oauth.runtime" in sys.modules)


anyio.run(main)
"""


def _oauth_loaded_before_any_connection(store: McpStore) -> bool:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", OAUTH_PROBE, str(store.path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return {"True\n": True, "False\n": False}[done.stdout]


def _remote_store(path: Path, server: dict[str, object], enabled: bool = True) -> McpStore:
    store = McpStore(path)
    document = {"mcpServers": {"fx": {"command": "python3"}, "remote": server}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    for name in ("fx", "remote"):
        definition = store.load().find(name)
        store.update_state(name, fingerprint(definition), lambda s: replace(s, enabled=enabled))
    return store


def test_an_enabled_remote_server_that_may_log_in_has_the_oauth_side_imported_with_the_runtime(
    tmp_path: Path,
) -> None:
    # In the worker thread with the rest of the runtime, not on the event loop when it connects.
    store = _remote_store(tmp_path / "servers.json", {"url": "https://mcp.example/mcp"})

    assert _oauth_loaded_before_any_connection(store) is True


@pytest.mark.parametrize(
    ("server", "enabled"),
    [
        ({"url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer ${T}"}}, True),
        ({"url": "https://mcp.example/mcp"}, False),
    ],
    ids=["its-own-authorization-header", "disabled"],
)
def test_without_a_remote_server_that_may_log_in_the_oauth_side_is_not_imported(
    tmp_path: Path, server: dict[str, object], enabled: bool
) -> None:
    store = _remote_store(tmp_path / "servers.json", server, enabled)

    assert _oauth_loaded_before_any_connection(store) is False
