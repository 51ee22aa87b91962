"""Completion at the chat prompt: command names, skill names, session ids."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from prompt_toolkit.completion import CompleteEvent, Completer
from prompt_toolkit.document import Document

from agent.chat.state import ChatSession
from agent.home import data_home
from agent.mcp.host import McpHost
from agent.mcp.store import McpStore
from agent.session.store import SessionHeader
from agent.ui.completion.completer import chat_completer
from agent.ui.slash.commands import COMMANDS, Command
from tests import deadlines
from tests.mcp.runtime_helpers import runtime, save, stdio_server
from tests.skills.skills_helpers import make_skill
from tests.ui.ui_helpers import chat_state


def completer_for(chat: ChatSession) -> Completer:
    """The chat's completer once the chat is set up."""
    return chat_completer(lambda: chat)


def offered(completer: Completer, text: str) -> list[tuple[str, int]]:
    """(completion text, start position) for `text` typed with the cursor at its end."""
    completions = completer.get_completions(
        Document(text), CompleteEvent(completion_requested=True)
    )
    return [(c.text, c.start_position) for c in completions]


def write_session(session_id: str, project: Path, title: str, one_shot: bool = False) -> None:
    """A saved session whose times follow from its id (20261129-100000-... is 10:00:00)."""
    folder = data_home() / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    day, time, _ = session_id.split("-")
    at = f"{day[:4]}-{day[4:6]}-{day[6:]}T{time[:2]}:{time[2:4]}:{time[4:]}.000+00:00"
    header = SessionHeader(session_id, at, str(project), "m", "0", one_shot=one_shot)
    lines = [header.to_json(), {"at": at, "type": "user", "content": title, "n": 1}]
    (folder / f"{session_id}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_command_names_complete_from_what_was_typed_after_the_slash(tmp_path: Path) -> None:
    completer = completer_for(chat_state(tmp_path))

    assert offered(completer, "/sk") == [("skills", -2), ("skill", -2)]
    assert offered(completer, "/sh") == [("show", -2)]
    assert ("help", 0) in offered(completer, "/")
    assert offered(completer, "/nope") == []
    assert offered(completer, "plain words /sk") == []  # only at the start of the message


def test_skill_names_complete_after_slash_skill(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skills = [make_skill(root, name) for name in ("my-style", "mcp-config", "release-notes")]
    completer = completer_for(chat_state(tmp_path, skills))

    assert offered(completer, "/skill m") == [("my-style", -1), ("mcp-config", -1)]
    assert offered(completer, "/skill ") == [
        ("my-style", 0),
        ("mcp-config", 0),
        ("release-notes", 0),
    ]
    assert offered(completer, "/skill my-style extra") == []


def test_session_ids_of_this_project_complete_after_slash_resume(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "other"
    write_session("20261128-090000-aaaaaa", project, "yesterday's work")
    write_session("20261129-100000-bbbbbb", project, "today's work")
    write_session("20251231-235959-cccccc", project, "last year")
    write_session("20261129-110000-dddddd", elsewhere, "another project")
    completer = completer_for(chat_state(project))

    assert offered(completer, "/resume 2026") == [
        ("20261129-100000-bbbbbb", -4),
        ("20261128-090000-aaaaaa", -4),
    ]
    assert len(offered(completer, "/resume ")) == 3


def test_slash_resume_offers_chats_before_newer_one_shot_runs_marked(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write_session("20261128-090000-aaaaaa", project, "the chat")
    write_session("20261129-100000-bbbbbb", project, "hi", one_shot=True)
    completer = completer_for(chat_state(project))

    completions = list(
        completer.get_completions(Document("/resume "), CompleteEvent(completion_requested=True))
    )

    assert [(c.text, c.display_meta_text) for c in completions] == [
        ("20261128-090000-aaaaaa", "the chat"),
        ("20261129-100000-bbbbbb", "[-p] hi"),
    ]


def test_before_the_chat_is_set_up_only_command_names_are_offered() -> None:
    completer = chat_completer(lambda: None)
    assert offered(completer, "/res") == [("resume", -3)]
    assert offered(completer, "/resume 2026") == []
    assert offered(completer, "/skill m") == []


@pytest.mark.anyio
async def test_mcp_subcommands_then_server_names_complete_once_slash_mcp_exists(
    tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"github": stdio_server(), "gitlab": stdio_server(), "fetch": stdio_server()})
    host = McpHost(lambda: runtime(store, agent_home, tmp_path), report=lambda line: None)
    chat = chat_state(tmp_path, host=host)
    completer = chat_completer(lambda: chat)
    monkeypatch.delitem(COMMANDS, "mcp", raising=False)
    assert offered(completer, "/mcp ") == []  # no /mcp command: nothing to complete

    monkeypatch.setitem(COMMANDS, "mcp", Command("MCP servers", lambda chat, argument: None))  # type: ignore[arg-type,return-value]
    stop = anyio.Event()
    async with anyio.create_task_group() as group:
        group.start_soon(host.serve, stop)
        with anyio.fail_after(deadlines.PROCESS):
            await host.ready.wait()
        actions = offered(completer, "/mcp ")
        named = offered(completer, "/mcp enable gi")
        after_status = offered(completer, "/mcp status gi")
        deferred = offered(completer, "/mcp defer gi")
        modes = offered(completer, "/mcp defer github ")
        stop.set()

    assert [text for text, _ in actions] == [
        "status", "enable", "disable", "trust", "restart", "tools", "defer", "edit",
    ]  # fmt: skip
    assert named == [("github", -2), ("gitlab", -2)]
    assert after_status == []
    assert deferred == named
    assert modes == [("on", 0), ("off", 0), ("auto", 0)]
