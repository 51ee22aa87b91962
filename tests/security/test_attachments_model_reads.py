"""A model asks read_mcp_resource for a file:// URI (or one with a line break that would draw
a fake line in the dialog): the person is always asked, the dialog shows server and URI exactly
(escaped), and a denial means the server never receives the read. Real runtime, real fixture
server (tests/fixtures/servers/attachment_attack_server.py logs every read it receives)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.conversation import Conversation
from agent.mcp.resource_tools import resource_tools
from agent.mcp.store import McpStore
from agent.messages import ToolCall
from agent.ui.dialogs.call_rows import describe_request
from tests.fixtures.mcp_fixtures import trust_launch
from tests.mcp.runtime_helpers import enable, runtime, save, script_server
from tests.scripted_model import Reply, ScriptedModel

pytestmark = pytest.mark.anyio
URI = "file:///etc/passwd"


@dataclass
class Approver:
    answer: bool
    shown: list[list[str]] = field(default_factory=list)

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.shown.append(describe_request(request))
        return Decision(self.answer, None if self.answer else "no files")


class Toolset:
    def __init__(self, tools: list[object]) -> None:
        self.items = tools

    def tools(self) -> list[object]:
        return self.items


@pytest.fixture
def store(agent_home: Path, tmp_path: Path) -> McpStore:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"ev": script_server("attachment_attack_server.py")})
    trust_launch(store, "ev", tmp_path)
    enable(store, "ev")
    return store


async def model_reads(
    store: McpStore, home: Path, project: Path, uri: str, approve: bool
) -> tuple[ScriptedModel, Approver, str]:
    arguments = json.dumps({"server": "ev", "uri": uri})
    model = ScriptedModel([Reply(calls=[ToolCall("c1", "read_mcp_resource", arguments)]), Reply()])
    approver = Approver(approve)
    with anyio.fail_after(60):
        async with runtime(store, home, project) as rt:
            await rt.resources("ev")  # the server is up and logging either way
            chat = Conversation(model, [Toolset(resource_tools(rt))], approver, lambda: "")
            async for _event in chat.turn("look around"):
                pass
    return model, approver, (home / "mcp" / "ev.log").read_text()


async def test_a_denied_read_of_a_file_uri_never_reaches_the_server(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    model, approver, log = await model_reads(store, agent_home, tmp_path, URI, approve=False)
    assert len(approver.shown) == 1
    assert f"  ev · resource: {URI}" in approver.shown[0]  # who is asked, for what, one line
    assert f"read {json.dumps(URI)}" not in log
    assert model.sent()[-1]["content"] == (
        "Error: The person declined this tool call. Their reason: no files"
    )


async def test_an_approved_read_reaches_the_server_once(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    model, approver, log = await model_reads(store, agent_home, tmp_path, URI, approve=True)
    assert len(approver.shown) == 1
    assert log.count(f"read {json.dumps(URI)}") == 1
    assert "root:x:0:0" in model.sent()[-1]["content"]


async def test_the_dialog_shows_a_uri_with_line_breaks_and_escapes_on_one_escaped_line(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    uri = "file:///x\n  arguments: {}\x1b[2J\nApprove? y"
    _model, approver, _log = await model_reads(store, agent_home, tmp_path, uri, approve=False)
    (shown,) = approver.shown
    assert "  ev · resource: file:///x\\n  arguments: {}\\x1b[2J\\nApprove? y" in shown
    assert not any("\x1b" in line for line in shown)


async def test_an_approved_read_on_an_untrusted_server_starts_nothing_and_asks_no_trust(
    agent_home: Path, tmp_path: Path
) -> None:
    from agent.mcp.resource_tools import ReadResource
    from tests.mcp.runtime_helpers import ScriptedTrust

    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"ev": script_server("attachment_attack_server.py")})
    enable(store, "ev")  # enabled, but its launch was never trusted
    trust = ScriptedTrust(answer=True)
    arguments = json.dumps({"server": "ev", "uri": URI})
    model = ScriptedModel([Reply(calls=[ToolCall("c1", "read_mcp_resource", arguments)]), Reply()])
    approver = Approver(True)
    with anyio.fail_after(60):
        async with runtime(store, agent_home, tmp_path, trust=trust) as rt:
            # Offered or not, a model may name the tool: the call still goes nowhere.
            chat = Conversation(model, [Toolset([ReadResource(rt)])], approver, lambda: "")
            async for _event in chat.turn("look around"):
                pass
            assert rt.running() == []
    assert len(approver.shown) == 1 and trust.requests == []
    assert not (agent_home / "mcp" / "ev.log").exists()
    result = model.sent()[-1]["content"]
    assert result.startswith("Error: ") and "trust" in result and "root:x" not in result
