"""upgrading_server.py saved as a trusted, enabled stdio server whose release file a test
rewrites between two chats (the command line, and so the trust, stays the same)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from agent.mcp.config.document import parse_document_data
from agent.mcp.host import McpHost
from agent.mcp.store import McpStore
from agent.tools.base import ToolSpec
from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch
from tests.mcp.runtime_helpers import ScriptedTrust, runtime


def release(path: Path, number: int, **options: Any) -> None:
    """Write the release the server offers from its next start."""
    path.write_text(json.dumps({"release": number, **options}), encoding="utf-8")


def save_upgrading(
    store: McpStore,
    name: str,
    release_file: Path,
    environ: Mapping[str, str],
    *,
    env: dict[str, str] | None = None,
    also: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Save the server as `name` (and the servers in `also`), each trusted for `environ` and
    enabled, tools never listed: the first start lists and selects them all."""
    from dataclasses import replace

    from agent.mcp.config.definitions import fingerprint

    command = server_command("upgrading_server.py", "--release-file", str(release_file))
    server: dict[str, Any] = {"command": command[0], "args": command[1:], "cwd": str(SERVERS)}
    if env:
        server["env"] = env
    others = {key: {**value, "cwd": str(SERVERS)} for key, value in (also or {}).items()}
    document = {"mcpServers": {name: server, **others}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    for saved in (name, *others):
        trust_launch(store, saved, SERVERS, environ)
        fp = fingerprint(store.load().find(saved))
        store.update_state(saved, fp, lambda s: replace(s, enabled=True))


async def start_chat(
    store: McpStore, home: Path, project: Path
) -> tuple[list[str], dict[str, ToolSpec]]:
    """One chat's start, as its host does it: the reports and the tools it offers then."""
    reports: list[str] = []
    trust = ScriptedTrust(answer=False)
    host = McpHost(lambda: runtime(store, home, project, trust=trust), report=reports.append)
    stop = anyio.Event()
    offered: dict[str, ToolSpec] = {}
    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(host.serve, stop)
            await host.wait_for_servers(lambda names: None)
            offered = {t.spec.name: t.spec for t in host.tools() if t.spec.name.startswith("mcp__")}
            stop.set()
    assert trust.requests == []  # a changed list never asks for trust again
    return reports, offered
