"""upgrading_server.py saved as a trusted, enabled stdio server whose release file a test
rewrites between two chats (the command line, and so the trust, stays the same)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent.mcp.config.document import parse_document_data
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch


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
