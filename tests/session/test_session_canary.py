"""A session never holds an MCP server's env or header values: a real turn, real servers."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import anyio
import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.conversation import Conversation
from agent.chat.events import TurnEnded
from agent.commands.sessions import list_command
from agent.mcp.config.definitions import fingerprint
from agent.mcp.store import McpStore
from agent.mcp.toolset import McpToolset
from agent.model import LiteLLMModel, ModelSettings
from agent.session.export import export_json, export_markdown
from agent.session.recorder import SessionRecorder
from agent.session.store import list_sessions, load_session
from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import running_http_server
from tests.mcp.runtime_helpers import ScriptedTrust, runtime, save, stdio_server

pytestmark = pytest.mark.anyio

ENV_CANARY = "canary-env-7f3a91"
HEADER_CANARY = "canary-header-c0ffee"


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@dataclass
class ApproveAll:
    """Our Approver seam: says yes, and remembers what it was asked."""

    asked: list[str] = field(default_factory=list)

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request.call.name)
        return Decision(True)


def enable(store: McpStore, name: str, tools: tuple[str, ...]) -> None:
    definition = store.load().find(name)
    store.update_state(
        name, fingerprint(definition), lambda s: replace(s, enabled=True, enabled_tools=tools)
    )


async def test_mcp_env_and_header_values_appear_in_no_session_file_export_or_listing(
    agent_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    approver = ApproveAll()
    recorder = SessionRecorder(tmp_path, "openai/fake-model")
    script = [
        {
            "tool_calls": [
                {"id": "call_1", "name": "mcp__fx__echo", "arguments": {"text": "local"}},
                {"id": "call_2", "name": "mcp__remote__echo", "arguments": {"text": "remote"}},
            ]
        },
        {"text": "Both servers answered."},
    ]
    with running_http_server() as server, FakeOpenAI(script) as fake:
        save(
            store,
            {
                "fx": stdio_server(env={"TOKEN": ENV_CANARY}),
                "remote": {"url": server.url, "headers": {"X-Api-Key": HEADER_CANARY}},
            },
        )
        async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
            await rt.start("fx")
            await rt.discover("remote")
            enable(store, "fx", ("echo",))
            enable(store, "remote", ("echo",))
            model = LiteLLMModel(
                ModelSettings(
                    name="openai/fake-model",
                    api_base=fake.base_url,
                    chunk_timeout_seconds=10,
                    request_timeout_seconds=30,
                    retries=0,
                )
            )
            chat = Conversation(
                model, [McpToolset(rt)], approver, lambda: "You are a test.", recorder=recorder
            )
            with anyio.fail_after(60):
                events = [event async for event in chat.turn("call both servers")]
    recorder.close()
    assert recorder.writer is None and events[-1] == TurnEnded("answered")
    assert approver.asked == ["mcp__fx__echo", "mcp__remote__echo"]

    configuration = (agent_home / "mcp-servers.json").read_text(encoding="utf-8")
    assert ENV_CANARY in configuration and HEADER_CANARY in configuration  # they were used

    [session_file] = (agent_home / "sessions").iterdir()
    loaded = load_session(session_file)
    list_command(tmp_path, every_project=True)
    shown = {
        "session file": session_file.read_text(encoding="utf-8"),
        "markdown export": export_markdown(loaded),
        "json export": export_json(loaded),
        "listing": repr(list_sessions()) + capsys.readouterr().out,
    }

    results = [
        (e["tool_call_id"], e["content"]) for e in loaded.events if e["type"] == "tool_result"
    ]
    assert results == [("call_1", "local"), ("call_2", "remote")]
    leaks = {
        name: [canary for canary in (ENV_CANARY, HEADER_CANARY) if canary in text]
        for name, text in shown.items()
    }
    assert leaks == {name: [] for name in shown}
