"""Whole chat turns with real tools and a scripted Approver (our own seam).

The loop's logic runs against ScriptedModel (our model seam, no HTTP); a few turns run the
real LiteLLMModel over HTTP to the scripted fake server, for what only litellm does: streaming
deltas, usage, the tools in the request, and how each model error is explained."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.conversation import Conversation
from agent.chat.events import (
    ApprovalAsked,
    Event,
    Notice,
    TextDelta,
    TurnEnded,
    TurnFailed,
)
from agent.messages import ToolCall, ToolResult
from agent.model import LiteLLMModel, ModelSettings
from agent.tools.base import ToolSpec
from agent.tools.builtin import BuiltinToolset
from tests import deadlines
from tests.fake_openai import FakeOpenAI
from tests.scripted_model import Reply, ScriptedModel, echo_call

pytestmark = pytest.mark.anyio


@dataclass
class ScriptedApprover:
    """Answers with the scripted decisions in order; remembers each request."""

    decisions: list[Decision]
    requests: list[ApprovalRequest] = field(default_factory=list)

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.decisions.pop(0)


@dataclass
class RecordingTool:
    """A tool that needs approval, like an MCP tool, and records its runs."""

    name: str = "mcp__fx__echo"
    runs: list[dict[str, Any]] = field(default_factory=list)
    block: anyio.Event | None = None
    started: anyio.Event = field(default_factory=anyio.Event)

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description="Echo the text.",
            parameters={
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
            requires_approval=True,
            source="MCP server fx",
            server="fx",
            original_name="echo",
        )

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        self.runs.append(arguments)
        self.started.set()
        if self.block is not None:
            await self.block.wait()
        return ToolResult(f"echo: {arguments['text']}")


@dataclass
class Tools:
    items: list[Any]

    def tools(self) -> list[Any]:
        return self.items


def conversation(
    fake: FakeOpenAI,
    tools: list[Any] | None = None,
    approver: ScriptedApprover | None = None,
    max_rounds: int = 25,
    chunk_timeout: float = 10,
) -> Conversation:
    model = LiteLLMModel(
        ModelSettings(
            name="openai/fake-model",
            api_base=fake.base_url,
            chunk_timeout_seconds=chunk_timeout,
            request_timeout_seconds=30,
            retries=0,
        )
    )
    return Conversation(
        model,
        [Tools(tools or [])],
        approver or ScriptedApprover([]),
        lambda: "You are a test.",
        max_tool_rounds=max_rounds,
    )


def scripted(
    model: ScriptedModel,
    tools: list[Any] | None = None,
    approver: ScriptedApprover | None = None,
    max_rounds: int = 25,
) -> Conversation:
    return Conversation(
        model,
        [Tools(tools or [])],
        approver or ScriptedApprover([]),
        lambda: "You are a test.",
        max_tool_rounds=max_rounds,
    )


def sent(model: ScriptedModel, index: int = -1) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in m.items() if k in ("role", "content", "tool_call_id")}
        for m in model.sent(index)
    ]


async def turn(chat: Conversation, text: str) -> list[Event]:
    with anyio.fail_after(deadlines.PROCESS):
        return [event async for event in chat.turn(text)]


def call(call_id: str, text: str, name: str = "mcp__fx__echo") -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": {"text": text}}


def sent_messages(fake: FakeOpenAI, index: int = -1) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in m.items() if k in ("role", "content", "tool_call_id")}
        for m in fake.requests[index]["body"]["messages"]
    ]


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


async def test_a_text_answer_streams_and_joins_the_history() -> None:
    with FakeOpenAI([{"text": "Hello there, person."}]) as fake:
        chat = conversation(fake)
        events = await turn(chat, "hi")
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert text == "Hello there, person."
    assert len([e for e in events if isinstance(e, TextDelta)]) > 1
    assert events[-1] == TurnEnded("answered")
    assert [m.to_openai() for m in chat.history] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello there, person."},
    ]
    assert sent_messages(fake) == [
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": "hi"},
    ]
    assert chat.usage.prompt_tokens > 0 and chat.usage.completion_tokens > 0


async def test_an_approved_call_runs_and_the_model_sees_its_result() -> None:
    tool = RecordingTool()
    approver = ScriptedApprover([Decision(True)])
    script = [{"tool_calls": [call("c1", "ping")]}, {"text": "It said ping."}]
    with FakeOpenAI(script) as fake:
        chat = conversation(fake, [tool], approver)
        events = await turn(chat, "echo ping")
    assert tool.runs == [{"text": "ping"}]
    [request] = approver.requests
    assert (request.spec.server, request.spec.original_name, request.arguments) == (
        "fx",
        "echo",
        {"text": "ping"},
    )
    assert any(isinstance(e, ApprovalAsked) for e in events)
    assert sent_messages(fake)[-1] == {
        "role": "tool",
        "content": "echo: ping",
        "tool_call_id": "c1",
    }
    assert fake.requests[0]["body"]["tools"][0]["function"]["name"] == "mcp__fx__echo"


async def test_a_denial_with_a_reason_reaches_the_model_and_the_tool_never_runs() -> None:
    tool = RecordingTool()
    approver = ScriptedApprover([Decision(False, "not on a Friday")])
    model = ScriptedModel([Reply(calls=[echo_call("c1", "ping")]), Reply("Understood.")])
    chat = scripted(model, [tool], approver)
    await turn(chat, "echo ping")
    assert tool.runs == []
    assert sent(model)[-1] == {
        "role": "tool",
        "content": "Error: The person declined this tool call. Their reason: not on a Friday",
        "tool_call_id": "c1",
    }


async def test_invalid_arguments_go_back_to_the_model_and_nobody_is_asked() -> None:
    tool = RecordingTool()
    approver = ScriptedApprover([])
    bad = ToolCall("c1", "mcp__fx__echo", '{"txt": 1}')
    model = ScriptedModel([Reply(calls=[bad]), Reply("Let me fix that.")])
    chat = scripted(model, [tool], approver)
    await turn(chat, "echo")
    assert approver.requests == [] and tool.runs == []
    assert sent(model)[-1]["content"] == (
        "Error: invalid arguments for mcp__fx__echo: (arguments): 'text' is a required property"
    )


async def test_an_unknown_tool_and_broken_json_are_errors_for_the_model() -> None:
    model = ScriptedModel(
        [
            Reply(calls=[ToolCall("c1", "no_such_tool", "{}")]),
            Reply(calls=[ToolCall("c2", "mcp__fx__echo", '{"text": ')]),
            Reply("ok"),
        ]
    )
    chat = scripted(model, [RecordingTool()])
    await turn(chat, "go")
    contents = [m["content"] for m in sent(model) if m["role"] == "tool"]
    assert contents[0] == (
        "Error: there is no tool named 'no_such_tool'; use one of the tools of this request"
    )
    assert contents[1].startswith("Error: mcp__fx__echo: arguments are not valid JSON")


async def test_two_calls_in_one_reply_are_approved_one_by_one_in_order() -> None:
    tool = RecordingTool()
    approver = ScriptedApprover([Decision(True), Decision(False)])
    calls = [echo_call("c1", "first"), echo_call("c2", "second")]
    model = ScriptedModel([Reply(calls=calls), Reply("done")])
    chat = scripted(model, [tool], approver)
    await turn(chat, "two")
    assert [r.arguments["text"] for r in approver.requests] == ["first", "second"]
    assert tool.runs == [{"text": "first"}]
    tool_messages = [m for m in sent(model) if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["c1", "c2"]
    assert tool_messages[1]["content"] == "Error: The person declined this tool call."


async def test_a_decline_that_stops_the_turn_runs_nothing_of_the_answer_and_sends_no_round() -> (
    None
):
    tool = RecordingTool()
    approver = ScriptedApprover([Decision(True), Decision(False, stop_turn=True)])
    calls = [echo_call("c1", "first"), echo_call("c2", "second"), echo_call("c3", "third")]
    model = ScriptedModel([Reply(calls=calls), Reply("next turn")])
    chat = scripted(model, [tool], approver)
    events = await turn(chat, "three")
    assert [(r.number, r.of) for r in approver.requests] == [(1, 3), (2, 3)]  # c3: never asked
    assert tool.runs == []  # every call of the answer is asked about before any runs
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert notices == [
        "Turn stopped; 2 more tool calls of this answer not run. "
        "The model gets no further round; say how to go on."
    ]
    assert events[-1] == TurnEnded("stopped")
    assert len(model.requests) == 1  # no further round
    await turn(chat, "go on")  # the history stays valid: every call has its result
    tool_messages = [m for m in sent(model) if m["role"] == "tool"]
    not_run = "Error: not run: the person stopped the turn when asked about this answer's calls"
    assert [m["content"] for m in tool_messages] == [
        not_run,
        "Error: The person declined this tool call and stopped the turn.",
        not_run,
    ]


async def test_the_turn_stops_at_the_tool_round_limit_with_every_call_answered() -> None:
    tool = RecordingTool()
    approver = ScriptedApprover([Decision(True)] * 5)
    model = ScriptedModel([Reply(calls=[echo_call(f"c{i}", str(i))]) for i in range(3)])
    chat = scripted(model, [tool], approver, max_rounds=2)
    events = await turn(chat, "loop")
    assert (len(model.requests), model.replies) == (3, [])
    assert len(tool.runs) == 2
    assert events[-1] == TurnEnded("round_limit")
    assert any(isinstance(e, Notice) and "2 tool rounds" in e.text for e in events)
    last = chat.history[-1].to_openai()
    assert last["tool_call_id"] == "c2" and "limit of 2 tool rounds" in last["content"]


async def test_read_only_builtin_tools_run_without_asking(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    approver = ScriptedApprover([])
    read = ToolCall("c1", "read_file", '{"path": "notes.txt"}')
    escape = ToolCall("c2", "read_file", '{"path": "../outside.txt"}')
    model = ScriptedModel([Reply(calls=[read, escape]), Reply("Milk.")])
    chat = scripted(model, list(BuiltinToolset(tmp_path).tools()), approver)
    await turn(chat, "read")
    assert approver.requests == []
    contents = [m["content"] for m in sent(model) if m["role"] == "tool"]
    assert contents == [
        "remember the milk\n",
        "Error: '../outside.txt' is outside the project directory",
    ]


ERRORS = [
    (
        {"status": 401, "message": "Incorrect API key provided", "code": "invalid_api_key"},
        "rejected the API key for openai/fake-model: check OPENAI_API_KEY",
    ),
    (
        {"status": 404, "message": "The model does not exist", "code": "model_not_found"},
        "model openai/fake-model was not found at ",
    ),
    (
        {"status": 429, "message": "Rate limit reached", "code": "rate_limit_exceeded"},
        "is rate-limiting requests for openai/fake-model; wait a moment and try again",
    ),
    (
        {
            "status": 400,
            "message": "This model's maximum context length is 8192 tokens. However, your "
            "messages resulted in 9000 tokens. Please reduce the length of the messages.",
            "code": "context_length_exceeded",
        },
        "the conversation no longer fits openai/fake-model's context window (9,000 tokens "
        "sent, the window holds 8,192); compact it (/compact) or start a new chat (/new)",
    ),
    ({"status": 500, "message": "The server had an error"}, "failed to answer"),
]


@pytest.mark.parametrize(("error", "expected"), ERRORS)
async def test_each_model_error_is_explained_and_the_chat_goes_on(
    error: dict[str, Any], expected: str
) -> None:
    with FakeOpenAI([{"error": error}, {"text": "Back again."}]) as fake:
        chat = conversation(fake)
        failed = await turn(chat, "first")
        answered = await turn(chat, "second")
    [failure] = [e for e in failed if isinstance(e, TurnFailed)]
    assert expected in failure.message
    assert failed[-1] == TurnEnded("error")
    assert answered[-1] == TurnEnded("answered")
    assert [m["role"] for m in sent_messages(fake)] == ["system", "user", "user"]


async def test_a_refused_connection_names_the_api_base() -> None:
    with FakeOpenAI([]) as fake:
        base = fake.base_url
    chat = conversation_for_base(base)
    events = await turn(chat, "hello?")
    [failure] = [e for e in events if isinstance(e, TurnFailed)]
    port = base.split(":")[2].split("/")[0]
    assert failure.message.startswith(
        f"nothing answers at 127.0.0.1:{port} ({base}) for openai/fake-model: is the model "
        "server running there?"
    )


def conversation_for_base(base: str) -> Conversation:
    model = LiteLLMModel(
        ModelSettings(name="openai/fake-model", api_base=base, chunk_timeout_seconds=5, retries=0)
    )
    return Conversation(model, [], ScriptedApprover([]), lambda: "s", 25)


async def test_a_stalled_stream_times_out_with_advice() -> None:
    with FakeOpenAI([{"text": "slow words here", "chunk_delay": 2.0}, {"text": "ok"}]) as fake:
        chat = conversation(fake, chunk_timeout=0.3)
        events = await turn(chat, "slow")
    [failure] = [e for e in events if isinstance(e, TurnFailed)]
    assert failure.message == (
        "openai/fake-model sent nothing for 0.3 s; try again "
        "(model_limits.chunk_timeout_seconds in settings.yaml)"
    )


async def test_interrupting_mid_stream_keeps_the_partial_answer_and_a_valid_history() -> None:
    model = ScriptedModel([Reply("one two six"), Reply("Fine.")])
    chat = scripted(model)
    seen: list[Event] = []
    with anyio.fail_after(deadlines.PROCESS):
        async with anyio.create_task_group() as group:

            async def consume() -> None:
                async for event in chat.turn("count"):
                    seen.append(event)
                    if isinstance(event, TextDelta):
                        group.cancel_scope.cancel()  # what Ctrl-C does

            group.start_soon(consume)
    await turn(chat, "again")
    assert seen[-1] == TextDelta("one ")
    assert sent(model) == [
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": "count"},
        {"role": "assistant", "content": "one \n[interrupted by the user]"},
        {"role": "user", "content": "again"},
    ]


async def test_interrupting_a_running_tool_answers_its_call_and_the_next_turn_is_valid() -> None:
    tool = RecordingTool(block=anyio.Event())  # never set: the tool hangs
    approver = ScriptedApprover([Decision(True), Decision(True)])
    calls = [echo_call("c1", "a"), echo_call("c2", "b")]
    model = ScriptedModel([Reply(calls=calls), Reply("Next.")])
    chat = scripted(model, [tool], approver)
    with anyio.fail_after(deadlines.PROCESS):
        async with anyio.create_task_group() as group:

            async def consume() -> None:
                async for _event in chat.turn("run"):
                    pass

            group.start_soon(consume)
            await tool.started.wait()
            group.cancel_scope.cancel()
    await turn(chat, "what happened?")
    tool_messages = [m for m in sent(model) if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in tool_messages] == [
        ("c1", "Error: interrupted by the user before it finished"),
        ("c2", "Error: interrupted by the user before it finished"),
    ]
    assert json.loads(json.dumps(sent(model)))[-1] == {
        "role": "user",
        "content": "what happened?",
    }


async def test_an_empty_answer_stays_out_of_the_history_with_a_notice() -> None:
    model = ScriptedModel([Reply(""), Reply("Now I answer.")])
    chat = scripted(model)
    events = await turn(chat, "hello?")
    await turn(chat, "again")
    assert Notice("The model returned an empty answer; ask again or rephrase.") in events
    assert [m["role"] for m in sent(model)] == ["system", "user", "user"]


async def test_a_file_change_asks_with_its_diff_and_one_that_cannot_run_is_refused_unasked(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("milk\n")
    approver = ScriptedApprover([Decision(True)])
    missing = ToolCall("c1", "edit_file", json.dumps({"path": "notes.txt", "old_text": "tea",
                                                     "new_text": "coffee"}))  # fmt: skip
    outside = ToolCall("c2", "write_file", '{"path": "../x.txt", "content": "x"}')
    edit = ToolCall("c3", "edit_file", json.dumps({"path": "notes.txt", "old_text": "milk",
                                                  "new_text": "bread"}))  # fmt: skip
    model = ScriptedModel([Reply(calls=[missing, outside, edit]), Reply("Done.")])
    chat = scripted(model, list(BuiltinToolset(tmp_path, private=[]).tools()), approver)
    await turn(chat, "change the list")
    assert [request.call.id for request in approver.requests] == ["c3"]  # only the one that can run
    assert approver.requests[0].preview == (
        "file: notes.txt (edit: 5 bytes → 6 bytes)",
        "1 line removed, 1 line added",
        "--- a/notes.txt",
        "+++ b/notes.txt",
        "@@ -1 +1 @@",
        "-milk",
        "+bread",
    )
    contents = [m["content"] for m in sent(model) if m["role"] == "tool"]
    assert contents[0].startswith("Error: old_text was not found in notes.txt; nothing changed.")
    assert contents[1] == "Error: '../x.txt' is outside the project directory"
    assert contents[2] == "edited notes.txt (1 line removed, 1 line added)"
    assert (tmp_path / "notes.txt").read_text() == "bread\n"
