"""The toolbar under the prompt: model, tokens and cost of the session, MCP servers by state."""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from agent.mcp.config.definitions import fingerprint
from agent.mcp.host import McpHost, ServerCounts
from agent.mcp.store import McpStore
from agent.messages import Usage
from agent.ui.toolbar import StatusToolbar
from tests import deadlines
from tests.fixtures.mcp_fixtures import trust_launch
from tests.mcp.runtime_helpers import runtime, save, script_server, stdio_server
from tests.ui.ui_helpers import chat_state


def test_before_the_chat_is_set_up_the_toolbar_says_it_is_starting() -> None:
    assert StatusToolbar(lambda: None)() == " starting… "


def test_it_shows_the_model_the_sessions_tokens_and_cost_and_that_mcp_is_starting(
    tmp_path: Path,
) -> None:
    chat = chat_state(tmp_path)
    toolbar = StatusToolbar(lambda: chat)
    assert toolbar() == " openai/fake-model · 0 tokens · MCP starting "

    chat.conversation.history.add_usage(
        Usage(prompt_tokens=1200, completion_tokens=34, cost_usd=0.0123)
    )
    assert toolbar() == " openai/fake-model · 1,234 tokens · $0.0123 · MCP starting "


def test_in_plan_mode_the_toolbar_says_so_first(tmp_path: Path) -> None:
    from agent.ui.slash.commands import switch_plan_mode

    chat = chat_state(tmp_path)
    toolbar = StatusToolbar(lambda: chat)
    switch_plan_mode(chat)
    assert toolbar() == " plan mode · openai/fake-model · 0 tokens · MCP starting "
    switch_plan_mode(chat, "mcp")
    assert toolbar().startswith(" plan mode + MCP · openai/fake-model · ")
    switch_plan_mode(chat)
    assert toolbar() == " openai/fake-model · 0 tokens · MCP starting "


@pytest.mark.anyio
async def test_servers_are_counted_as_ready_starting_offline_or_untrusted(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(
        store,
        {
            "fx": stdio_server(),
            "dies": script_server("exit_on_start_server.py"),
            "stranger": stdio_server("--name", "stranger"),
            "off": stdio_server("--name", "off"),
            "web": {"url": "http://127.0.0.1:9/mcp"},
        },
    )
    for name in ("fx", "dies", "stranger", "web"):
        if name in ("fx", "dies"):
            trust_launch(store, name, tmp_path)
        fp = fingerprint(store.load().find(name))
        store.update_state(name, fp, lambda s: replace(s, enabled=True))
    host = McpHost(lambda: runtime(store, agent_home, tmp_path), report=lambda line: None)
    chat = chat_state(tmp_path, host=host)
    toolbar = StatusToolbar(lambda: chat)
    assert host.server_counts() is None

    stop = anyio.Event()
    async with anyio.create_task_group() as group:
        group.start_soon(host.serve, stop)
        with anyio.fail_after(deadlines.PROCESS):
            await host.ready.wait()
            starting = host.server_counts()
            await host.started.wait()
        counts, shown = host.server_counts(), toolbar()
        stop.set()

    # web is ready at once; stranger needs a yes here
    assert starting == ServerCounts(ready=1, starting=2, offline=0, untrusted=1)
    assert counts == ServerCounts(ready=2, starting=0, offline=1, untrusted=1)
    assert shown.endswith(" · MCP 2 ready, 1 offline, 1 untrusted ")


def test_once_litellm_is_loaded_it_shows_the_next_requests_tokens_and_share_of_the_window(
    tmp_path: Path,
) -> None:
    from agent.chat.context import measure_context
    from agent.messages import user_message
    from agent.model import LOADER, LiteLLMLoader, LiteLLMModel, ModelSettings

    chat = chat_state(tmp_path)  # a window of 100,000 tokens
    chat.conversation.history.add(user_message("lorem ipsum " * 10_000))
    toolbar = StatusToolbar(lambda: chat)
    chat.conversation.model = LiteLLMModel(ModelSettings(name="openai/fake-model"), LiteLLMLoader())
    assert "context" not in toolbar()  # litellm not loaded: the prompt does not wait for it

    chat.conversation.model = LiteLLMModel(ModelSettings(name="openai/fake-model"))
    LOADER.get()
    total = measure_context(chat).total  # what /context says
    assert total > 10_000
    assert "context" not in toolbar()  # counted in a thread: the prompt does not wait
    counting = chat.share_cache["thread"]
    assert isinstance(counting, threading.Thread)
    counting.join(timeout=deadlines.PROCESS)
    assert f" · context {total:,} tokens ({total / 100_000:.0%}) · " in toolbar()


def test_a_window_nobody_knows_gets_tokens_but_no_share(tmp_path: Path) -> None:
    from agent.model import LOADER, LiteLLMModel, ModelSettings

    chat = chat_state(tmp_path)
    chat.context_window = lambda: None
    chat.conversation.model = LiteLLMModel(ModelSettings(name="openai/fake-model"))
    LOADER.get()
    toolbar = StatusToolbar(lambda: chat)
    toolbar()
    counting = chat.share_cache["thread"]
    assert isinstance(counting, threading.Thread)
    counting.join(timeout=deadlines.PROCESS)
    assert re.search(r" · context [\d,]+ tokens · MCP starting $", toolbar())
