"""The whole chat as a person drives it, in a real pseudo-terminal: the `agent` binary, the
scripted fake model server as a process, real fixture MCP servers and real skill folders."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from agent.mcp.config.document import parse_document_data
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import server_command
from tests.pty_chat import FakeModelProcess, pty_env, spawn_chat


@pytest.fixture
def world(tmp_path: Path, agent_home: Path) -> Iterator[dict[str, Any]]:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = pty_env(agent_home, tmp_path)
    home = tmp_path / "home"
    running: list[tuple[FakeModelProcess, pexpect.spawn]] = []
    yield {
        "project": project,
        "home": home,
        "env": env,
        "tmp": tmp_path,
        "agent_home": agent_home,
        "running": running,
    }
    for fake, chat in running:  # whatever a failing test left behind
        chat.close(force=True)
        if fake.process.poll() is None:
            fake.stop()


def configure_fx(agent_home: Path) -> None:
    """An untrusted, disabled fixture server named fx (as after `agent mcp import`)."""
    command = server_command("tools_server.py")
    document = {"mcpServers": {"fx": {"command": command[0], "args": command[1:]}}}
    store = McpStore(agent_home / "mcp-servers.json")
    store.replace_definitions(parse_document_data(document, "test").definitions)


def start(
    world: dict[str, Any], turns: list[dict[str, Any]]
) -> tuple[FakeModelProcess, pexpect.spawn]:
    fake = FakeModelProcess(world["tmp"], turns)
    chat = spawn_chat(fake.base_url, world["env"], world["project"], dimensions=(40, 140))
    world["running"].append((fake, chat))
    chat.expect("›")
    return fake, chat


def finish(fake: FakeModelProcess, chat: pexpect.spawn) -> list[dict[str, Any]]:
    try:
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        return fake.requests()
    finally:
        chat.close(force=True)
        fake.stop()


def tool_names(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request["body"].get("tools", [])]


def test_a_local_server_is_trusted_through_the_dialog_and_its_tools_join(
    world: dict[str, Any],
) -> None:
    configure_fx(world["agent_home"])
    fake, chat = start(world, [{"text": "I see the echo tool."}])
    chat.send("/mcp trust fx\r")
    chat.expect("Start it and trust what it runs here\\?")
    assert "tools_server.py" in chat.before
    chat.send("y")
    chat.expect("Trusted fx; 16 tools")
    chat.send("/mcp enable fx\r")
    chat.expect("Enabled fx")
    chat.send("which tools?\r")
    chat.expect("I see the echo tool.")
    requests = finish(fake, chat)
    assert "mcp__fx__echo" in tool_names(requests[0])


def test_project_skills_are_trusted_before_the_first_request_and_activated(
    world: dict[str, Any],
) -> None:
    skill = world["project"] / ".agents" / "skills" / "release-notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Write release notes.\n---\nUse the changelog.\n"
    )
    activate = {"id": "a1", "name": "activate_skill", "arguments": {"name": "release-notes"}}
    fake, chat = start(world, [{"tool_calls": [activate]}, {"text": "Notes written."}])
    chat.send("write notes\r")
    chat.expect("Use these skills in this project\\?")
    assert "release-notes: Write release notes." in chat.before
    chat.send("y")
    chat.expect("Notes written.")
    requests = finish(fake, chat)
    system = requests[1]["body"]["messages"][0]["content"]
    assert "<name>release-notes</name>" in requests[0]["body"]["messages"][0]["content"]
    assert '<skill name="release-notes"' in system and "Use the changelog." in system


def test_resume_after_exiting_and_compact(world: dict[str, Any]) -> None:
    answers = [{"text": "First answer."}, {"text": "Second answer."}, {"text": "Third answer."}]
    fake, chat = start(world, answers)
    for number in ("first", "second", "third"):
        chat.send(f"{number} question\r")
        chat.expect(f"{number.title()} answer.")
    finish(fake, chat)

    fake, chat = start(world, [{"text": "- a first question was asked"}, {"text": "Fourth."}])
    chat.send("/resume\r")
    chat.expect("Resume which one")
    chat.send("1\r")
    chat.expect("Resumed .*: 6 messages.")
    chat.send("/compact\r")
    chat.expect("Compacted 2 earlier messages into session memory.")
    chat.send("fourth question\r")
    chat.expect("Fourth.")
    requests = finish(fake, chat)
    last = requests[-1]["body"]["messages"]
    assert last[0]["content"].endswith(
        "<session_memory>\n- a first question was asked\n</session_memory>"
    )
    assert [m["content"] for m in last[1:]] == [
        "second question",
        "Second answer.",
        "third question",
        "Third answer.",
        "fourth question",
    ]


def test_an_elicitation_form_is_filled_in_the_chat(world: dict[str, Any]) -> None:
    configure_fx(world["agent_home"])
    ask = {"id": "e1", "name": "mcp__fx__ask_name", "arguments": {}}
    fake, chat = start(world, [{"tool_calls": [ask]}, {"text": "Thanks, Ada."}])
    chat.send("/mcp trust fx\r")
    chat.expect("Start it and trust")
    chat.send("y")
    chat.expect("Trusted fx")
    chat.send("/mcp enable fx\r")
    chat.expect("Enabled fx")
    chat.send("ask my name\r")
    chat.expect("Approve\\?")
    chat.send("y")
    chat.expect("Answer MCP server fx\\?")  # the form says which server asks
    chat.send("y")
    # Each field's own question (the form's header names the fields too: keys sent on seeing
    # those would be typed before the field was asked, and dropped).
    chat.expect("Name - Your name \\(string\\):")
    chat.send("Ada\r")
    chat.expect("Age \\(number\\)")
    chat.send("not a number\r")
    chat.expect("enter a number")
    chat.expect("Age \\(number\\)")  # asked again
    chat.send("36\r")
    chat.expect("Subscribe \\(boolean\\)")
    chat.send("\r")
    chat.expect("Thanks, Ada.")
    requests = finish(fake, chat)
    result = requests[1]["body"]["messages"][-1]["content"]
    assert json.loads(result) == {
        "action": "accept",
        "content": {"name": "Ada", "age": 36, "subscribe": False},
    }


def test_ctrl_c_mid_stream_stops_the_answer_and_the_chat_goes_on(world: dict[str, Any]) -> None:
    slow = {"text": "one two three four five six seven eight", "chunk_delay": 1.0}
    fake, chat = start(world, [slow, {"text": "Still here."}])
    chat.send("count slowly\r")
    chat.expect("one")  # the answer has started streaming
    chat.sendintr()
    chat.expect("interrupted")
    chat.send("are you there?\r")
    chat.expect("Still here.")
    requests = finish(fake, chat)
    messages = requests[-1]["body"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"].endswith("[interrupted by the user]")


def test_escape_sequences_in_tool_output_never_reach_the_screen(world: dict[str, Any]) -> None:
    configure_fx(world["agent_home"])
    escape = {"id": "x1", "name": "mcp__fx__escape", "arguments": {}}
    fake, chat = start(world, [{"tool_calls": [escape]}, {"text": "Printed it."}])
    chat.send("/mcp trust fx\r")
    chat.expect("Start it and trust")
    chat.send("y")
    chat.expect("Trusted fx")
    chat.send("/mcp enable fx\r")
    chat.expect("Enabled fx")
    chat.send("print the escapes\r")
    chat.expect("Approve\\?")
    chat.send("y")
    chat.expect("Printed it.")
    screen = chat.before
    finish(fake, chat)
    assert "\\x1b]0;pwned" in screen or "\\x1b[31m" in screen  # shown, escaped
    for raw in ("\x1b]0;pwned", "\x1b[2J", "\x1b]8;;https://example.invalid"):
        assert raw not in screen
