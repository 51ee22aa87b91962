"""A chat whose McpHost serves a real resources_server.py (named rs), for prompt and
@-mention tests in the terminal UI."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from agent.chat.state import ChatSession
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import trust_launch
from tests.mcp.runtime_helpers import (
    enable,
    resources_server,
    save,
    script_server,
    served_host,
)
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
    async with served_host(store, home, project) as host:
        yield chat_state(project, host=host)
