"""A server's completion values for a resource template are its text: one like "../../admin"
must not leave its template variable when Tab puts it into an @-mention. Real chat completer,
real McpHost, real server (tests/fixtures/servers/attachment_attack_server.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from agent.mcp.store import McpStore
from agent.ui.completion.completer import chat_completer
from tests.fixtures.mcp_fixtures import trust_launch
from tests.mcp.runtime_helpers import enable, save, script_server, served_host
from tests.ui.ui_helpers import chat_state

pytestmark = pytest.mark.anyio


async def test_a_completion_value_stays_inside_its_template_variable(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"ev": script_server("attachment_attack_server.py")})
    trust_launch(store, "ev", tmp_path)
    enable(store, "ev")
    async with served_host(store, agent_home, tmp_path) as host:
        chat = chat_state(tmp_path, host=host)
        completer = chat_completer(lambda: chat, asyncio.get_running_loop())
        text = "@ev:fixture://greeting/"

        def complete() -> list[str]:
            event = CompleteEvent(completion_requested=True)
            return [c.text for c in completer.get_completions(Document(text), event)]

        offered = await anyio.to_thread.run_sync(complete)
    assert offered == ["ev:fixture://greeting/..%2F..%2Fadmin", "ev:fixture://greeting/bob"]
