"""Images and attached text in the person's message and in tool results, as the model
receives them over HTTP (real litellm against the scripted fake server), and as a session
saves and resumes them (real session files)."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.conversation import Conversation
from agent.messages import ImagePart, Message, TextPart, ToolResult
from agent.model import LiteLLMModel, ModelSettings
from agent.session.blobs import blob_folder
from agent.session.events import message_event
from agent.session.history import rebuild
from agent.session.recorder import SessionRecorder
from agent.session.store import load_session
from agent.tools.base import ToolSpec
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.anyio

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()
IMAGE = ImagePart("image/png", PNG, "fx:img://chart")


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@dataclass
class ChartTool:
    """A tool whose result carries an image, as an MCP tool's rich result does."""

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec("chart", "Draw a chart.", {"type": "object"}, False, "built-in")

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        image = ImagePart("image/png", PNG, "tool chart")
        return ToolResult("the chart:\n[image: image/png, 1032 bytes]", images=(image,))


class Tools:
    def tools(self) -> list[Any]:
        return [ChartTool()]


class NoApprover:
    async def decide(self, request: ApprovalRequest) -> Decision:
        raise AssertionError("nothing here needs approval")


def chat(fake: FakeOpenAI, model: str, recorder: SessionRecorder | None = None) -> Conversation:
    settings = ModelSettings(model, api_base=fake.base_url, retries=0, chunk_timeout_seconds=10)
    return Conversation(
        LiteLLMModel(settings), [Tools()], NoApprover(), lambda: "system", recorder=recorder
    )


async def take_turn(conversation: Conversation, text: str, parts: Any = ()) -> None:
    with anyio.fail_after(60):
        async for _event in conversation.turn(text, parts):
            pass


def sent_messages(fake: FakeOpenAI, index: int = -1) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = fake.requests[index]["body"]["messages"]
    return messages


async def test_a_vision_model_receives_the_persons_image_as_an_image_part_after_their_text() -> (
    None
):
    with FakeOpenAI([{"text": "A chart."}]) as fake:
        conversation = chat(fake, "openai/gpt-4o")  # litellm's model info: supports vision
        await take_turn(conversation, "what is this?", [TextPart("<attached/>"), IMAGE])
        assert sent_messages(fake)[1] == {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "text", "text": "<attached/>"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        }


async def test_a_text_only_model_reads_a_note_with_the_images_type_and_size_instead() -> None:
    with FakeOpenAI([{"text": "I cannot see it."}]) as fake:
        conversation = chat(fake, "openai/fake-model")  # unknown to litellm: no vision
        await take_turn(conversation, "what is this?", [IMAGE])
        body = json.dumps(fake.requests[-1]["body"])
        assert PNG not in body
        assert sent_messages(fake)[1]["content"][1] == {
            "type": "text",
            "text": "[image from fx:img://chart: image/png, 1032 bytes; not shown: this model "
            "does not accept images]",
        }


async def test_tool_result_images_follow_the_round_of_results_in_one_user_message() -> None:
    calls = [{"id": "c1", "name": "chart", "arguments": {}}, {"id": "c2", "name": "chart"}]
    with FakeOpenAI([{"tool_calls": calls}, {"text": "Two charts."}]) as fake:
        conversation = chat(fake, "openai/gpt-4o")
        await take_turn(conversation, "draw twice")
        messages = sent_messages(fake)
        # OpenAI rejects images in tool messages: the tool messages stay text, both answered
        # before anything else, and the images come next in a user message.
        assert [m["role"] for m in messages] == [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "user",
        ]
        assert messages[3]["content"] == (
            "the chart:\n[image: image/png, 1032 bytes]\n"
            "[its images follow in the next user message]"
        )
        image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
        assert messages[5]["content"] == [
            {"type": "text", "text": "[image from the result of tool call c1]"},
            image,
            {"type": "text", "text": "[image from the result of tool call c2]"},
            image,
        ]


async def test_a_session_keeps_images_beside_its_file_and_resumes_them_exactly(
    tmp_path: Path,
) -> None:
    calls = [{"id": "c1", "name": "chart", "arguments": {}}]
    with FakeOpenAI([{"tool_calls": calls}, {"text": "Done."}, {"text": "Again."}]) as fake:
        recorder = SessionRecorder(tmp_path, "openai/gpt-4o", folder=tmp_path / "sessions")
        first = chat(fake, "openai/gpt-4o", recorder)
        await take_turn(first, "look", [TextPart("<attached/>"), IMAGE])
        assert recorder.writer is not None
        path = recorder.writer.path
        recorder.close()
        # The file holds references, not the base64; the images sit beside it, once each.
        assert PNG not in path.read_text()
        assert [p.read_text() for p in blob_folder(path).iterdir()] == [PNG]

        loaded = load_session(path)
        rebuilt = rebuild(loaded.events)
        assert loaded.notes == [] and rebuilt.notes == []
        assert rebuilt.messages == list(first.history)
        second = chat(fake, "openai/gpt-4o")
        second.history.restore(rebuilt.messages, rebuilt.numbers, rebuilt.usage, None)
        await take_turn(second, "again")
        assert sent_messages(fake, -1)[:-2] == sent_messages(fake, -2)


async def test_an_altered_saved_image_resumes_as_a_note_saying_so(tmp_path: Path) -> None:
    recorder = SessionRecorder(tmp_path, "m", folder=tmp_path / "sessions")
    recorder.record(message_event(Message("user", "look", parts=(IMAGE,))))
    assert recorder.writer is not None
    path = recorder.writer.path
    recorder.close()
    (saved,) = blob_folder(path).iterdir()
    saved.write_text(base64.b64encode(b"something else").decode())
    loaded = load_session(path)
    assert loaded.notes == [
        f"an image could not be restored ({path.stem}.blobs/{saved.name[:12]}… was altered); "
        "the model reads a note instead"
    ]
    assert rebuild(loaded.events).messages[0].parts == (
        TextPart(
            f"[image (image/png) lost from the saved session: {path.stem}.blobs/"
            f"{saved.name[:12]}… was altered]"
        ),
    )


def test_litellm_model_info_decides_whether_a_model_accepts_images() -> None:
    assert LiteLLMModel(ModelSettings("openai/gpt-4o")).accepts_images() is True
    assert LiteLLMModel(ModelSettings("openai/fake-model")).accepts_images() is False


def test_the_markdown_export_shows_attached_text_fenced_and_images_described(
    tmp_path: Path,
) -> None:
    from agent.session.export import export_markdown

    recorder = SessionRecorder(tmp_path, "m", folder=tmp_path / "sessions")
    message = Message("user", "look", parts=(TextPart("```\nfenced"), IMAGE))
    recorder.record(message_event(message))
    assert recorder.writer is not None
    path = recorder.writer.path
    recorder.close()
    text = export_markdown(load_session(path))
    assert "**Attached:**\n\n````text\n```\nfenced\n````" in text
    assert "**Attached image:** image/png, 1032 bytes" in text
    assert PNG not in text
