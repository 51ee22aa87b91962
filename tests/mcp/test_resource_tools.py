"""The model's resource tools against a real server (tests/fixtures/servers/resources_server.py):
each call is approved first, and what the model reads back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.conversation import Conversation
from agent.mcp.resource_tools import SOURCE, resource_tools
from agent.mcp.store import McpStore
from agent.messages import ToolCall
from agent.ui.dialogs.call_rows import RESOURCE_TOOLS
from tests.fixtures.mcp_fixtures import trust_launch
from tests.mcp.runtime_helpers import enable, resources_server, runtime, save
from tests.scripted_model import Reply, ScriptedModel

pytestmark = pytest.mark.anyio


@dataclass
class Approver:
    answer: bool = True
    requests: list[ApprovalRequest] = field(default_factory=list)

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return Decision(self.answer)


class Toolset:
    def __init__(self, tools: list[object]) -> None:
        self.items = tools

    def tools(self) -> list[object]:
        return self.items


@pytest.fixture
def store(agent_home: Path, tmp_path: Path) -> McpStore:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"rs": resources_server(), "off": resources_server()})
    trust_launch(store, "rs", tmp_path)
    enable(store, "rs")
    return store


async def run_calls(
    store: McpStore, home: Path, project: Path, calls: list[ToolCall], vision: bool = False
) -> tuple[ScriptedModel, Approver]:
    model = ScriptedModel([Reply(calls=calls), Reply("ok")], vision=vision)
    approver = Approver()
    with anyio.fail_after(60):
        async with runtime(store, home, project) as rt:
            await rt.start("rs")
            chat = Conversation(model, [Toolset(resource_tools(rt))], approver, lambda: "")
            async for _event in chat.turn("go"):
                pass
    return model, approver


async def test_listing_shows_every_page_and_the_templates_after_approval(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    calls = [ToolCall("c1", "list_mcp_resources", "{}")]
    model, approver = await run_calls(store, agent_home, tmp_path, calls)
    assert [r.call.name for r in approver.requests] == ["list_mcp_resources"]
    text = model.sent()[-1]["content"]
    lines = text.splitlines()
    assert lines[0] == "server rs: 27 resources, 1 template"
    assert "  fixture://notes/25 note 25 (text/plain)" in lines
    assert lines[-1] == "  template fixture://greeting/{name} greeting"
    assert "server off" not in text  # a disabled server is not listed


async def test_reading_gives_text_and_an_image_part_for_a_vision_model(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    calls = [
        ToolCall("c1", "read_mcp_resource", '{"server": "rs", "uri": "fixture://notes/3"}'),
        ToolCall("c2", "read_mcp_resource", '{"server": "rs", "uri": "fixture://image.png"}'),
        ToolCall("c3", "read_mcp_resource", '{"server": "off", "uri": "fixture://notes/3"}'),
    ]
    model, approver = await run_calls(store, agent_home, tmp_path, calls, vision=True)
    assert len(approver.requests) == 3
    sent = model.sent()
    assert sent[3]["content"] == "[resource fixture://notes/3, text/plain]\nNote 3."
    assert sent[4]["content"] == (
        "[resource fixture://image.png: image/png, 69 bytes]\n"
        "[its images follow in the next user message]"
    )
    assert sent[5]["content"] == (
        "Error: MCP server 'off' is disabled; enable it with: agent mcp enable off"
    )
    assert sent[6]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


async def test_resource_tools_only_while_a_started_trusted_server_declares_resources(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"rs": resources_server()})
    enable(store, "rs")  # enabled, never trusted
    with anyio.fail_after(60):
        async with runtime(store, agent_home, tmp_path) as rt:
            assert resource_tools(rt) == []
            trust_launch(store, "rs", tmp_path)
            assert resource_tools(rt) == []  # not started yet: nothing says it has resources
            await rt.start("rs")
            assert [t.spec.name for t in resource_tools(rt)] == [
                "list_mcp_resources",
                "read_mcp_resource",
            ]
    assert SOURCE == RESOURCE_TOOLS  # the dialog knows these tools by their source
