"""McpHost's one-shot shortcut: it decides from the store the runtime will use."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from agent.mcp.definitions import fingerprint
from agent.mcp.document import parse_document_data
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
