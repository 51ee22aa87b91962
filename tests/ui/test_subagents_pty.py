"""Subagents as a person meets them: the real `agent` in a pseudo-terminal, the scripted model
server answering each conversation by its first message (`when`), so the parent and its
subagents each get their own turns even while they run at once."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pexpect

from tests import deadlines
from tests.pty_chat import (
    FakeModelProcess,
    finish,
    model_args,
    oneshot_without_terminal,
    scripted_chat,
    spawn_agent,
)

READ_TOOLS = {"read_file", "list_files", "search_files"}


def wait_until(done: Callable[[], bool]) -> None:
    """Poll `done` (what a process wrote to a file) until true, within the deadline."""
    deadline = time.monotonic() + deadlines.EXPECT
    while not done():
        assert time.monotonic() < deadline, "waited in vain"
        time.sleep(0.05)


def delegate(call_id: str, kind: str, task: str, **extra: Any) -> dict[str, Any]:
    return {"id": call_id, "name": "delegate", "arguments": {"kind": kind, "task": task, **extra}}


def first_user(request: dict[str, Any]) -> str:
    return next(m["content"] for m in request["body"]["messages"] if m["role"] == "user")


def tool_names(request: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in request["body"].get("tools", [])}


def test_two_explore_subagents_run_at_once_and_only_their_answers_reach_the_parent(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "alpha.txt").write_text("ALPHA-FILE-CONTENT\n" * 200)
    (tmp_path / "beta.txt").write_text("BETA-FILE-CONTENT\n" * 200)
    read = {"name": "read_file"}
    turns = [
        {"when": "PARENT", "tool_calls": [
            delegate("d1", "explore", "SUB-ALPHA: what does alpha.txt hold?"),
            delegate("d2", "explore", "SUB-BETA: what does beta.txt hold?"),
        ]},
        # Each subagent's first request is answered only once the other's has come: were they
        # run one after the other, neither would be.
        {"when": "SUB-ALPHA", "wait_for": "SUB-BETA",
         "tool_calls": [{**read, "id": "r1", "arguments": {"path": "alpha.txt"}}]},
        {"when": "SUB-BETA", "wait_for": "SUB-ALPHA",
         "tool_calls": [{**read, "id": "r2", "arguments": {"path": "beta.txt"}}]},
        {"when": "SUB-ALPHA", "text": "alpha.txt repeats ALPHA-ANSWER 200 times."},
        {"when": "SUB-BETA", "text": "beta.txt repeats BETA-ANSWER 200 times."},
        {"when": "PARENT", "text": "Both files are repetitive."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("PARENT: look at both files\r")
        chat.expect("explore #1 started: SUB-ALPHA")
        chat.expect("explore #2 started: SUB-BETA")
        chat.expect("✓ explore #\\d answered")
        chat.expect("✓ explore #\\d answered")
        chat.expect("Both files are repetitive.")
        chat.expect("›")
        chat.send("/agents\r")
        chat.expect("2 subagents in this session")
        chat.expect("#1 +explore #1 · answered")
        chat.expect("#2 +explore #2 · answered")
        chat.expect("›")
        chat.send("/context\r")
        chat.expect("2 subagents of this session used [0-9,]+ tokens in contexts of their own")
        chat.expect("›")
        chat.send("/agents 2\r")
        chat.expect("explore #2 · answered")
        chat.expect("task:")
        chat.expect("SUB-BETA: what does beta.txt hold\\?")
        chat.expect("read_file")
        chat.expect("BETA-FILE-CONTENT")
        chat.expect("answer given to its parent:")
        chat.expect("BETA-ANSWER")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()
        sessions = list((Path(chat_env["AGENT_HOME"]) / "sessions").rglob("*.jsonl"))

    parent = [r for r in requests if first_user(r).startswith("PARENT")]
    assert len(parent) == 2
    last = json.dumps(parent[-1]["body"])
    # The answers reached the parent; what the subagents read did not.
    assert "ALPHA-ANSWER" in last and "BETA-ANSWER" in last
    assert "ALPHA-FILE-CONTENT" not in last and "BETA-FILE-CONTENT" not in last
    assert "delegate" in tool_names(parent[0])
    for request in requests:
        if first_user(request).startswith("SUB-"):
            # Explore is read-only: no tool that changes anything, no subagent of its own.
            assert tool_names(request) <= READ_TOOLS | {"activate_skill", "read_skill_resource"}
            assert tool_names(request) >= READ_TOOLS
    events = [json.loads(line) for line in sessions[0].read_text().splitlines()[1:]]
    kinds = [event["type"] for event in events]
    assert kinds.count("subagent_start") == 2 and kinds.count("subagent_end") == 2
    inner = [e["event"]["type"] for e in events if e["type"] == "subagent"]
    assert inner.count("tool_result") == 2
    top_results = [e for e in events if e["type"] == "tool_result"]
    assert all("FILE-CONTENT" not in e["content"] for e in top_results)


def test_a_general_subagents_calls_each_ask_naming_it_and_the_answers_reach_it(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    write = "write_file"
    turns = [
        {"when": "PARENT", "tool_calls": [delegate("d1", "general", "SUB-GEN: echo, then write")]},
        {"when": "SUB-GEN", "tool_calls": [
            {"id": "e1", "name": "mcp__fx__echo", "arguments": {"text": "from-the-subagent"}}]},
        {"when": "SUB-GEN", "tool_calls": [
            {"id": "w1", "name": write, "arguments": {"path": "one.txt", "content": "1\n"}}]},
        {"when": "SUB-GEN", "tool_calls": [
            {"id": "w2", "name": write, "arguments": {"path": "two.txt", "content": "2\n"}}]},
        {"when": "SUB-GEN", "text": "Echoed; both writes were declined."},
        {"when": "PARENT", "text": "The subagent is done."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("PARENT: hand it over\r")
        chat.expect("general #1 started: SUB-GEN")
        chat.expect("Allow this tool call of subagent general #1\\?")
        chat.expect("general #1 · fx · echo")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Allow this tool call of subagent general #1\\?")
        chat.expect("general #1 · write_file \\(built into agent\\)")
        chat.expect("file: one.txt")
        chat.expect("Approve\\?")
        chat.send("n")
        chat.expect("file: two.txt")
        chat.expect("Approve\\?")
        chat.send("r")
        chat.expect("Reason for the model:")
        chat.send("not two either\r")
        chat.expect("✓ general #1 answered")
        chat.expect("The subagent is done.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert not (tmp_path / "one.txt").exists() and not (tmp_path / "two.txt").exists()
    sub = [r for r in requests if first_user(r).startswith("SUB-GEN")]
    results = [m for m in sub[-1]["body"]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in results] == [
        "from-the-subagent",
        "Error: The person declined this tool call.",
        "Error: The person declined this tool call. Their reason: not two either",
    ]
    # A general subagent has the parent's tools, and may start one subagent level more.
    assert {"write_file", "run_command", "mcp__fx__echo", "delegate"} <= tool_names(sub[0])
    parent = [r for r in requests if first_user(r).startswith("PARENT")]
    assert parent[-1]["body"]["messages"][-1]["content"] == "Echoed; both writes were declined."


def test_a_subagent_two_levels_down_has_no_delegate_and_a_call_to_it_is_refused(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [
        {"when": "PARENT", "tool_calls": [delegate("d1", "general", "SUB-ONE: go deeper")]},
        {"when": "SUB-ONE", "tool_calls": [delegate("d2", "general", "SUB-TWO: deeper still")]},
        {"when": "SUB-TWO", "tool_calls": [delegate("d3", "general", "SUB-THREE: too deep")]},
        {"when": "SUB-TWO", "text": "two: could not go deeper"},
        {"when": "SUB-ONE", "text": "one: done"},
        {"when": "PARENT", "text": "All levels done."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("PARENT: nest\r")
        chat.expect("general #1 › general #2 started: SUB-TWO")
        chat.expect("All levels done.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert not [r for r in requests if first_user(r).startswith("SUB-THREE")]
    one = [r for r in requests if first_user(r).startswith("SUB-ONE")]
    two = [r for r in requests if first_user(r).startswith("SUB-TWO")]
    assert "delegate" in tool_names(one[0])
    assert "delegate" not in tool_names(two[0])
    refused = two[-1]["body"]["messages"][-1]
    assert refused["role"] == "tool" and "no tool named 'delegate'" in refused["content"]


def test_ctrl_c_stops_every_running_subagent_and_the_chat_goes_on(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [
        {"when": "PARENT", "tool_calls": [
            delegate("d1", "explore", "SUB-A: take your time"),
            delegate("d2", "explore", "SUB-B: take yours too"),
        ]},
        {"when": "SUB-A", "text": "never", "hang": True},
        {"when": "SUB-B", "text": "never", "hang": True},
        {"when": "PARENT", "text": "Back after the stop."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("PARENT: start two\r")
        chat.expect("explore #2 started")
        # Both subagents are asking the model (their requests have come) before the stop.
        wait_until(lambda: len([r for r in fake.requests() if first_user(r)[:4] == "SUB-"]) == 2)
        chat.send("\x03")
        chat.expect("✗ explore #\\d interrupted")
        chat.expect("✗ explore #\\d interrupted")
        chat.expect("\\(interrupted\\)")
        chat.expect("›")
        chat.send("PARENT: and now?\r")
        chat.expect("Back after the stop.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()
        sessions = list((Path(chat_env["AGENT_HOME"]) / "sessions").rglob("*.jsonl"))

    last = requests[-1]["body"]["messages"]
    interrupted = [m for m in last if m["role"] == "tool"]
    assert len(interrupted) == 2
    assert all("interrupted" in m["content"] for m in interrupted)
    events = [json.loads(line) for line in sessions[0].read_text().splitlines()[1:]]
    ends = [e for e in events if e["type"] == "subagent_end"]
    assert [e["status"] for e in ends] == ["interrupted", "interrupted"]


def test_one_shot_delegates_says_each_subagent_on_stderr_and_a_subagents_write_is_denied(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "notes.txt").write_text("NOTES-CONTENT\n")
    turns = [
        {"when": "PARENT", "tool_calls": [
            delegate("d1", "explore", "SUB-READ: read notes.txt"),
            delegate("d2", "general", "SUB-WRITE: write out.txt"),
        ]},
        {"when": "SUB-READ", "tool_calls": [
            {"id": "r1", "name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"when": "SUB-READ", "text": "notes.txt says NOTES-ANSWER"},
        {"when": "SUB-WRITE", "tool_calls": [
            {"id": "w1", "name": "write_file", "arguments": {"path": "o.txt", "content": "x"}}]},
        {"when": "SUB-WRITE", "text": "the write was denied"},
        {"when": "PARENT", "text": "One-shot done."},
    ]  # fmt: skip
    fake = FakeModelProcess(tmp_path, turns)
    try:
        run = oneshot_without_terminal(fake.base_url, "PARENT: go", chat_env, tmp_path)
        requests = fake.requests()
    finally:
        fake.stop()

    assert run.stdout.strip() == "One-shot done."
    assert "explore #1 started: SUB-READ" in run.stderr
    assert "✓ explore #1 answered" in run.stderr and "✓ general #2 answered" in run.stderr
    assert not (tmp_path / "o.txt").exists()
    write = [r for r in requests if first_user(r).startswith("SUB-WRITE")]
    assert "nobody is at a terminal to approve it" in write[-1]["body"]["messages"][-1]["content"]
    parent = [r for r in requests if first_user(r).startswith("PARENT")]
    assert "NOTES-CONTENT" not in json.dumps(parent[-1]["body"])


def test_esc_at_a_subagents_question_declines_it_and_ends_that_subagent_only(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    write = {"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}
    turns = [
        {"when": "PARENT", "tool_calls": [delegate("d1", "general", "SUB-ESC: write x")]},
        {"when": "SUB-ESC", "tool_calls": [{**write, "id": "w1"}]},
        {"when": "PARENT", "text": "The parent goes on."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("PARENT: try\r")
        chat.expect("general #1 · write_file")
        chat.expect("Approve\\?")
        chat.send("\x1b")
        chat.expect("✗ general #1 stopped")
        chat.expect("The parent goes on.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert not (tmp_path / "x.txt").exists()
    told = requests[-1]["body"]["messages"][-1]["content"]
    assert told.startswith("Error: The person stopped this subagent at one of its calls.")


def test_a_resumed_session_lists_its_subagents_never_runs_them_and_exports_them(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "a.txt").write_text("A-CONTENT\n")
    turns = [
        {"when": "PARENT", "tool_calls": [delegate("d1", "explore", "SUB-R: read a.txt")]},
        {"when": "SUB-R", "tool_calls": [
            {"id": "r1", "name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"when": "SUB-R", "text": "a.txt holds A-ANSWER"},
        {"when": "PARENT", "text": "Read it."},
        {"when": "PARENT", "text": "Still here after the resume."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("PARENT: read\r")
        chat.expect("Read it.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(r"to continue: agent --resume (\d{8}-\d{6}-[0-9a-f]{6})\r\n")
        session_id = chat.match.group(1)
        chat.expect(pexpect.EOF)
        again = spawn_agent(
            [*model_args(fake.base_url), "--resume", session_id], chat_env, tmp_path
        )
        try:
            again.expect("›")
            again.send("/agents\r")
            again.expect("1 subagent in this session")
            again.expect("#1 +explore #1 · answered")
            again.expect("›")
            again.send("/agents 1\r")
            again.expect("A-CONTENT")
            again.expect("A-ANSWER")
            again.expect("›")
            again.send("PARENT: more?\r")
            again.expect("Still here after the resume.")
            again.expect("›")
            again.send("/export md story.md\r")
            again.expect("Exported this session")
            again.expect("›")
            finish(again)
        finally:
            again.close(force=True)
        requests = fake.requests()

    assert len([r for r in requests if first_user(r).startswith("SUB-R")]) == 2  # never again
    story = (tmp_path / "story.md").read_text()
    assert "## Subagent explore \\#1 started" in story  # Markdown's # escaped
    assert "## explore \\#1 · Tool result" in story and "A-CONTENT" in story
    assert "**Subagent explore \\#1 answered**; its answer:" in story


def test_a_project_definition_runs_only_once_trusted_with_only_its_tools(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".agents" / "agents").mkdir(parents=True)
    (project / ".agents" / "agents" / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a diff.\ntools: Read, Grep\n---\n"
        "REVIEWER-INSTRUCTIONS: list the problems.\n"
    )
    review = delegate("d1", "reviewer", "SUB-REVIEW: review it")
    untrusted = [{"when": "PARENT", "tool_calls": [review]}, {"when": "PARENT", "text": "No."}]
    fake = FakeModelProcess(tmp_path, untrusted)
    try:
        run = oneshot_without_terminal(fake.base_url, "PARENT: review", chat_env, project)
        refused = fake.requests()
    finally:
        fake.stop()
    assert "not trusted and stay off" in run.stderr
    assert "delegate" in tool_names(refused[0])
    kinds = next(t for t in refused[0]["body"]["tools"] if t["function"]["name"] == "delegate")
    assert kinds["function"]["parameters"]["properties"]["kind"]["enum"] == ["explore", "general"]
    assert "invalid arguments for delegate" in refused[-1]["body"]["messages"][-1]["content"]
    assert not [r for r in refused if first_user(r).startswith("SUB-REVIEW")]

    trusted = [
        {"when": "PARENT", "tool_calls": [review]},
        {"when": "SUB-REVIEW", "tool_calls": [
            {"id": "w1", "name": "write_file", "arguments": {"path": "x", "content": "x"}}]},
        {"when": "SUB-REVIEW", "text": "One problem found."},
        {"when": "PARENT", "text": "Reviewed."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, trusted, chat_env, project) as (chat, fake):
        chat.expect("›")
        chat.send("PARENT: review\r")
        chat.expect(r"Use these subagent definitions in this project\? \[y\] yes")
        chat.send("y")
        chat.expect("reviewer #1 started: SUB-REVIEW")
        chat.expect("✓ reviewer #1 answered")
        chat.expect("Reviewed.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()
    sub = [r for r in requests if first_user(r).startswith("SUB-REVIEW")]
    assert tool_names(sub[0]) == {"read_file", "search_files"}
    assert "REVIEWER-INSTRUCTIONS" in sub[0]["body"]["messages"][0]["content"]
    assert "no tool named 'write_file'" in sub[-1]["body"]["messages"][-1]["content"]
    assert not (project / "x").exists()


def test_in_plan_mode_delegate_offers_only_explore_and_refuses_a_general_subagent(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [
        {"when": "PARENT", "tool_calls": [
            delegate("d1", "general", "SUB-GEN: change things"),
            delegate("d2", "explore", "SUB-LOOK: look around"),
        ]},
        {"when": "SUB-LOOK", "text": "Looked."},
        {"when": "PARENT", "text": "Planned."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("/plan\r")
        chat.expect("›")
        chat.send("PARENT: plan it\r")
        chat.expect("✓ explore #1 answered")
        chat.expect("Planned.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    first = requests[0]["body"]
    offered = next(t for t in first["tools"] if t["function"]["name"] == "delegate")
    assert offered["function"]["parameters"]["properties"]["kind"]["enum"] == ["explore"]
    assert not [r for r in requests if first_user(r).startswith("SUB-GEN")]
    results = [m for m in requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert "invalid arguments for delegate" in results[0]["content"]
    assert results[1]["content"] == "Looked."


def test_ctrl_c_at_a_subagents_question_stops_every_subagent_and_the_turn(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    write = {"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}
    turns = [
        {"when": "PARENT", "tool_calls": [
            delegate("d1", "general", "SUB-ASK: write x"),
            delegate("d2", "explore", "SUB-WAIT: take your time"),
        ]},
        {"when": "SUB-ASK", "tool_calls": [{**write, "id": "w1"}]},
        {"when": "SUB-WAIT", "text": "never", "hang": True},
        {"when": "PARENT", "text": "Asked again after the stop."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("PARENT: go\r")
        chat.expect("general #1 · write_file")
        chat.expect("Approve\\?")
        chat.send("\x03")
        chat.expect("✗ explore #2 interrupted")
        chat.expect("\\(interrupted\\)")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert not (tmp_path / "x.txt").exists()
    # The turn stopped: the parent's model was not asked again.
    assert len([r for r in requests if first_user(r).startswith("PARENT")]) == 1
