"""Tab completion of @-mentions against a real server (tests/fixtures/servers/resources_server.py)
run by a real McpHost, asked from a worker thread as the chat's ThreadedCompleter asks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import anyio.to_thread
import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from agent.mcp.store import McpStore
from agent.ui.completion.catalog_bridge import CatalogBridge
from agent.ui.completion.completer import chat_completer
from agent.ui.completion.uri_templates import TemplateState, template_state
from tests import deadlines
from tests.fixtures.mcp_fixtures import trust_launch
from tests.mcp.runtime_helpers import enable, resources_server, runtime, save, served_host

pytestmark = pytest.mark.anyio


@pytest.fixture
async def chat(agent_home: Path, tmp_path: Path) -> AsyncIterator[Any]:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"rs": resources_server(), "off": resources_server()})
    trust_launch(store, "rs", tmp_path)
    enable(store, "rs")
    async with served_host(store, agent_home, tmp_path) as host:
        # A project of its own with no files: only the server's mentions are offered here.
        empty = tmp_path / "empty-project"
        empty.mkdir()
        yield SimpleNamespace(host=host, project=empty)


async def offered(chat: Any, text: str) -> list[tuple[str, int]]:
    completer = chat_completer(lambda: chat, asyncio.get_running_loop())

    def complete() -> list[tuple[str, int]]:
        found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
        return [(c.text, c.start_position) for c in found]

    with anyio.fail_after(deadlines.PROCESS):
        return await anyio.to_thread.run_sync(complete)


async def test_at_offers_enabled_trusted_servers(chat: Any) -> None:
    assert await offered(chat, "look at @") == [("rs:", 0)]
    assert await offered(chat, "look at @r") == [("rs:", -1)]


async def test_a_server_offers_its_resources_from_every_page_and_its_template(chat: Any) -> None:
    found = [text for text, _ in await offered(chat, "see @rs:fixture://")]
    assert found[:2] == ["rs:fixture://notes/1", "rs:fixture://notes/2"]
    assert "rs:fixture://notes/25" in found and "rs:fixture://image.png" in found
    assert found[-1] == "rs:fixture://greeting/"
    assert await offered(chat, "see @rs:fixture://notes/2") == [
        ("rs:fixture://notes/2", -len("rs:fixture://notes/2")),
        *[(f"rs:fixture://notes/2{n}", -len("rs:fixture://notes/2")) for n in range(6)],
    ]


async def test_a_template_variable_completes_through_the_server(chat: Any) -> None:
    typed = "rs:fixture://greeting/al"
    assert await offered(chat, f"@{typed}") == [
        ("rs:fixture://greeting/alice", -len(typed)),
        ("rs:fixture://greeting/albert", -len(typed)),
    ]


async def test_from_the_loops_own_thread_only_caches_answer(chat: Any) -> None:
    bridge = CatalogBridge(lambda: chat, asyncio.get_running_loop())
    assert bridge.resources("rs") == []  # never listed yet, and waiting here would block
    await chat.host.runtime.resources("rs")
    assert len(bridge.resources("rs")) == 27


def test_template_state_follows_literals_and_variables() -> None:
    template = "db://{table}/rows/{id}"
    assert template_state(template, "db:") == TemplateState("", None, literal="db://")
    assert template_state(template, "db://us") == TemplateState("db://", "table", "us")
    assert template_state(template, "db://users/ro") == TemplateState(
        "db://users", None, literal="db://users/rows/"
    )
    assert template_state(template, "db://users/rows/4") == TemplateState(
        "db://users/rows/", "id", "4", {"table": "users"}
    )
    assert template_state(template, "file://") is None
    assert template_state("x://{+path}", "x://a/b") == TemplateState(
        "x://", "path", "a/b", operator="+"
    )


async def test_a_key_press_never_starts_a_local_server(agent_home: Path, tmp_path: Path) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"rs": resources_server()})
    trust_launch(store, "rs", tmp_path)
    enable(store, "rs")
    with anyio.fail_after(60):
        async with runtime(store, agent_home, tmp_path) as rt:
            empty = tmp_path / "empty-project"
            empty.mkdir()
            chat = SimpleNamespace(host=SimpleNamespace(runtime=rt), project=empty)
            assert await offered(chat, "@") == []
            assert await offered(chat, "@rs:fixture://") == []
            assert rt.running() == []
