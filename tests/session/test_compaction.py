"""Compaction through the real model path: older turns become session memory, tool pairs stay
whole, the latest turns stay verbatim, and the session file keeps everything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.chat.approval import Decision
from agent.chat.conversation import Conversation
from agent.messages import Message, ToolCall
from agent.model import LiteLLMModel, ModelSettings
from agent.session.compaction import MEMORY_FRAMING, memory_section, split_point
from agent.session.recorder import SessionRecorder
from agent.session.store import load_session
from tests import deadlines
from tests.fake_openai import FakeOpenAI


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


class Approve:
    async def decide(self, request: Any) -> Decision:
        return Decision(True)


def test_the_cut_is_at_a_user_turn_so_tool_pairs_stay_whole() -> None:
    history = [
        Message("user", "one"),
        Message("assistant", None, (ToolCall("c1", "read_file", "{}"),)),
        Message("tool", "result", tool_call_id="c1"),
        Message("assistant", "answer one"),
        Message("user", "two"),
        Message("assistant", "answer two"),
        Message("user", "three"),
        Message("assistant", None, (ToolCall("c2", "read_file", "{}"),)),
        Message("tool", "result", tool_call_id="c2"),
    ]
    assert split_point(history, keep_recent_turns=2) == 4
    assert split_point(history, keep_recent_turns=1) == 6
    assert split_point(history, keep_recent_turns=3) == 0  # nothing older to summarise


@pytest.mark.anyio
async def test_compaction_replaces_older_turns_with_memory_in_the_next_request(
    tmp_path: Path,
) -> None:
    summary_text = "- The person asked three questions about numbers."
    script = [
        {"text": "Answer one."},
        {"text": "Answer two."},
        {"text": "Answer three."},
        {"text": summary_text},
        {"text": "Answer four."},
    ]
    with FakeOpenAI(script) as fake:
        model = LiteLLMModel(ModelSettings("openai/fake-model", api_base=fake.base_url, retries=0))
        recorder = SessionRecorder(tmp_path, "openai/fake-model", folder=tmp_path / "sessions")
        chat = Conversation(model, [], Approve(), lambda: "", 25, recorder=recorder)
        chat.system_prompt = lambda: "\n\n".join(
            filter(None, ["Base.", memory_section(chat.memory)])
        )
        with anyio.fail_after(deadlines.PROCESS):
            for question in ("one?", "two?", "three?"):
                async for _ in chat.turn(question):
                    pass
            summary, count = await chat.compact(keep_recent_turns=1, focus="numbers")
            async for _ in chat.turn("four?"):
                pass
        summarising, after = fake.requests[3]["body"], fake.requests[4]["body"]

    assert (summary, count) == (summary_text, 4)
    assert "tools" not in summarising
    assert "[user]\none?" in summarising["messages"][1]["content"]
    assert "focus on: numbers" in summarising["messages"][1]["content"]
    assert [m["role"] for m in after["messages"]] == ["system", "user", "assistant", "user"]
    assert after["messages"][0]["content"].endswith(
        f"{MEMORY_FRAMING}\n<session_memory>\n{summary_text}\n</session_memory>"
    )
    assert after["messages"][1] == {"role": "user", "content": "three?"}
    assert recorder.writer is not None
    path = recorder.writer.path
    recorder.close()
    events = load_session(path).events
    assert [e["type"] for e in events].count("user") == 4  # nothing is deleted from the file
    compaction = next(e for e in events if e["type"] == "compaction")
    assert (compaction["summary"], compaction["through"]) == (summary_text, 4)


@pytest.mark.anyio
async def test_compacting_a_resumed_session_that_needed_repair_keeps_file_and_memory_in_step(
    tmp_path: Path,
) -> None:
    from agent.chat.state import ChatSession
    from agent.mcp.host import McpHost
    from agent.messages import ToolCall
    from agent.session.events import AssistantEvent, ToolResultEvent, UserEvent
    from agent.session.history import rebuild
    from agent.session.store import SessionWriter
    from agent.skills.model import Discovery
    from agent.skills.tools import SkillSession
    from agent.skills.trust import SkillTrustStore

    folder = tmp_path / "sessions"
    writer = SessionWriter.create(tmp_path, "openai/fake-model", folder)
    writer.record(UserEvent("u1"))
    writer.record(AssistantEvent(None, (ToolCall("c1", "read_file", "{}"),)))
    # the app died here: c1 never got a result
    writer.record(ToolResultEvent("ghost", "orphan"))
    writer.record(UserEvent("u2"))
    writer.record(AssistantEvent("a2"))
    path = writer.path
    writer.close()

    with FakeOpenAI([{"text": "a3"}, {"text": "- summary"}]) as fake:
        model = LiteLLMModel(ModelSettings("openai/fake-model", api_base=fake.base_url, retries=0))
        recorder = SessionRecorder(tmp_path, "openai/fake-model", folder=folder)
        conversation = Conversation(model, [], Approve(), lambda: "", 25, recorder=recorder)
        chat = ChatSession(
            conversation=conversation,
            host=McpHost(lambda: None, report=lambda line: None),  # type: ignore[arg-type,return-value]
            skills=SkillSession([]),
            recorder=recorder,
            project=tmp_path,
            model_name="openai/fake-model",
            discovery=Discovery(),
            trust_store=SkillTrustStore(tmp_path / "trust.json"),
            context_window=lambda: 100_000,
        )
        notes = chat.resume(path)
        with anyio.fail_after(deadlines.PROCESS):
            async for _ in conversation.turn("u3"):
                pass
            await conversation.compact(keep_recent_turns=1)
        in_memory = [m.to_openai() for m in conversation.history]
        recorder.close()

    assert any("marked as interrupted" in note for note in notes)
    again = rebuild(load_session(path).events)
    assert [m.to_openai() for m in again.messages] == in_memory
    assert in_memory[0] == {"role": "user", "content": "u3"}
    assert again.memory == "- summary"
