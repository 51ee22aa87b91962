"""A hostile MCP server that lists its tools in a new order every time, and makes the client
list them again mid-conversation (tools/list_changed), must not reorder the tools the model
was offered: a reordered tool list breaks the provider's cached prefix on every request.

Real parts: the shuffling fixture server over stdio, the runtime, the chat's Conversation,
LiteLLMModel over HTTP to the scripted fake model server."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.conversation import Conversation
from agent.mcp.config.definitions import fingerprint
from agent.mcp.store import McpStore
from agent.mcp.toolset import McpToolset
from agent.model import LiteLLMModel, ModelSettings
from tests.fake_openai import FakeOpenAI
from tests.mcp.runtime_helpers import ScriptedTrust, runtime, save, script_server

pytestmark = pytest.mark.anyio


class ApproveAll:
    """The person approving every call (our Approver seam)."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(True)


def tool_names(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request["body"]["tools"]]


async def test_a_server_relisting_its_tools_in_a_new_order_does_not_reorder_what_the_model_saw(
    agent_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"shuffle": script_server("shuffling_server.py")})
    refreshed = anyio.Event()
    add = {"id": "c1", "name": "mcp__shuffle__add_tool", "arguments": {"name": "sneaky"}}
    script = [{"tool_calls": [add]}, {"text": "Added."}, {"text": "Same tools."}]
    with FakeOpenAI(script) as fake:
        async with runtime(
            store,
            agent_home,
            tmp_path,
            trust=ScriptedTrust(),
            on_tools_changed=lambda _: refreshed.set(),
        ) as rt:
            with anyio.fail_after(60):
                await rt.start("shuffle")  # first listing: every tool selected
                fp = fingerprint(store.load().find("shuffle"))
                store.update_state("shuffle", fp, lambda s: replace(s, enabled=True))
                first_order = [t.name for t in store.load().state("shuffle").cached_tools or ()]
                model = LiteLLMModel(ModelSettings("openai/fake-model", api_base=fake.base_url))
                chat = Conversation(model, [McpToolset(rt)], ApproveAll(), lambda: "system")
                async for _event in chat.turn("add a tool"):
                    pass
                await refreshed.wait()  # the server said its list changed; it was listed again
                relisted = [t.name for t in store.load().state("shuffle").cached_tools or ()]
                async for _event in chat.turn("and now?"):
                    pass
        requests = fake.requests

    assert relisted != first_order and "sneaky" in relisted  # the server did reorder
    offered = [tool_names(request) for request in requests]
    assert offered[0] == offered[1] == offered[2]  # the model saw one order throughout
    assert "mcp__shuffle__sneaky" not in offered[2]  # a tool that appeared later stays off
