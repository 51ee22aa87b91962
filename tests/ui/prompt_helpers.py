"""A chat whose McpHost serves a real resources_server.py (named rs), for prompt and
@-mention tests in the terminal UI."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from agent.chat.state import ChatSession
from agent.mcp.host import McpHost
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import trust_launch
from tests.mcp.runtime_helpers import enable, resources_server, runtime, save, script_server
from tests.ui.ui_helpers import chat_state


@asynccontextmanager
async def served_chat(
    home: Path, project: Path, *args: str, script: str | None = None
) -> AsyncIterator[ChatSession]:
    """The chat, with rs (resources_server.py `args`, or another fixture `script`) trusted,
    enabled and started."""
    store = McpStore(home / "mcp-servers.json")
    save(store, {"rs": script_server(script) if script else resources_server(*args)})
    trust_launch(store, "rs", project)
    enable(store, "rs")
    host = McpHost(lambda: runtime(store, home, project), report=lambda line: None)
    stop = anyio.Event()
    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(host.serve, stop)
            await host.started.wait()
            yield chat_state(project, host=host)
            stop.set()
