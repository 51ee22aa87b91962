"""The calls of one model answer asked about together (agent.chat.approval.ask_batch): a
BatchApprover gets them in one batch with the answer's other calls, an Approver of one call
at a time is asked about each before any runs, and whatever goes wrong denies them all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agent.chat.approval import ApprovalBatch, ApprovalRequest, Decision
from agent.chat.conversation import PREVIEW_FAILED
from agent.chat.events import ToolCallStarted
from agent.messages import ToolCall
from agent.tools.builtin import BuiltinToolset
from tests.chat.test_conversation import RecordingTool, ScriptedApprover, scripted, sent, turn
from tests.scripted_model import Reply, ScriptedModel, echo_call

pytestmark = pytest.mark.anyio
DECLINED = "Error: The person declined this tool call."


@dataclass
class BatchAnswers:
    """A BatchApprover: answers each batch with the next scripted decisions (or raises)."""

    answers: list[list[Decision] | Exception]
    batches: list[ApprovalBatch] = field(default_factory=list)
    single: list[ApprovalRequest] = field(default_factory=list)

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.single.append(request)
        return Decision(False, "asked alone")

    async def decide_batch(self, batch: ApprovalBatch) -> Sequence[Decision]:
        self.batches.append(batch)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


async def test_a_batch_approver_gets_the_answers_calls_in_one_batch_with_the_others_listed(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("milk\n")
    tool = RecordingTool()
    approver = BatchAnswers([[Decision(True), Decision(False), Decision(True)]])
    calls = [
        echo_call("c1", "first"),
        ToolCall("c2", "read_file", '{"path": "notes.txt"}'),
        echo_call("c3", "second"),
        ToolCall("c4", "no_such_tool", "{}"),
        echo_call("c5", "third"),
    ]
    model = ScriptedModel([Reply(calls=calls), Reply("done")])
    chat = scripted(model, [tool, *BuiltinToolset(tmp_path).tools()], approver)  # type: ignore[arg-type]
    events = await turn(chat, "go")
    (batch,) = approver.batches
    assert [(r.call.id, r.number, r.of) for r in batch.requests] == [
        ("c1", 1, 5), ("c3", 3, 5), ("c5", 5, 5)
    ]  # fmt: skip
    assert [(o.call.id, o.number) for o in batch.others] == [("c2", 2), ("c4", 4)]
    assert batch.others[0].why == "needs no approval; runs in its turn"
    assert batch.others[1].why.startswith("refused, not asked: there is no tool named")
    assert approver.single == []
    assert tool.runs == [{"text": "first"}, {"text": "third"}]
    results = [m for m in sent(model) if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in results] == ["c1", "c2", "c3", "c4", "c5"]
    assert results[1]["content"] == "milk\n" and results[2]["content"] == DECLINED
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [(e.call.id, e.asked) for e in started] == [
        ("c1", True), ("c2", False), ("c3", True), ("c4", False), ("c5", True)
    ]  # fmt: skip


@pytest.mark.parametrize(
    "answer",
    [[Decision(True)], [Decision(True)] * 3, RuntimeError("the dialog broke")],
    ids=["too-few", "too-many", "raises"],
)
async def test_a_batch_answered_for_other_calls_than_shown_or_broken_denies_them_all(
    answer: list[Decision] | Exception,
) -> None:
    tool = RecordingTool()
    approver = BatchAnswers([answer])
    model = ScriptedModel(
        [Reply(calls=[echo_call("c1", "a"), echo_call("c2", "b")]), Reply("fine")]
    )
    await turn(scripted(model, [tool], approver), "go")  # type: ignore[arg-type]
    assert tool.runs == []
    contents = [m["content"] for m in sent(model) if m["role"] == "tool"]
    assert len(contents) == 2
    assert all(
        c.startswith(f"{DECLINED} Their reason: the approval dialog failed") for c in contents
    )


async def test_an_approver_of_one_call_at_a_time_is_asked_about_each_before_any_runs() -> None:
    tool = RecordingTool()
    order: list[str] = []

    class Noting(ScriptedApprover):
        async def decide(self, request: ApprovalRequest) -> Decision:
            order.append(f"asked {request.call.id}")
            return await super().decide(request)

    async def noting_run(arguments: dict[str, object]) -> object:
        order.append(f"ran {arguments['text']}")
        return await RecordingTool.run(tool, arguments)  # type: ignore[arg-type]

    tool.run = noting_run  # type: ignore[method-assign,assignment]
    approver = Noting([Decision(True), Decision(True)])
    model = ScriptedModel([Reply(calls=[echo_call("c1", "a"), echo_call("c2", "b")]), Reply("ok")])
    await turn(scripted(model, [tool], approver), "go")
    assert order == ["asked c1", "asked c2", "ran a", "ran b"]


async def test_a_yes_to_all_covers_its_own_batch_and_the_next_answer_asks_again() -> None:
    tool = RecordingTool()
    approver = BatchAnswers([[Decision(True)] * 2, [Decision(False)] * 2])
    model = ScriptedModel(
        [
            Reply(calls=[echo_call("c1", "a"), echo_call("c2", "b")]),
            Reply(calls=[echo_call("c3", "c"), echo_call("c4", "d")]),
            Reply("done"),
        ]
    )
    await turn(scripted(model, [tool], approver), "go")  # type: ignore[arg-type]
    assert [[r.call.id for r in b.requests] for b in approver.batches] == [
        ["c1", "c2"],
        ["c3", "c4"],
    ]
    assert tool.runs == [{"text": "a"}, {"text": "b"}]


async def test_a_call_whose_preview_fails_is_asked_about_with_its_raw_arguments_saying_so() -> None:
    class BrokenPreview(RecordingTool):
        def preview(self, arguments: dict[str, object]) -> list[str]:
            raise RuntimeError("the preview broke")

    tool = BrokenPreview()
    approver = ScriptedApprover([Decision(False)])
    model = ScriptedModel([Reply(calls=[echo_call("c1", "a")]), Reply("ok")])
    await turn(scripted(model, [tool], approver), "go")
    (request,) = approver.requests
    assert request.preview == () and request.arguments == {"text": "a"}
    assert request.note == PREVIEW_FAILED
