"""A server's form with multi-selects, titled choices and formatted text, filled in the real
chat in a pseudo-terminal (form_server.py's survey, shaped like server-everything's)."""

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
def survey_chat(tmp_path: Path, agent_home: Path) -> Iterator[tuple[FakeModelProcess, Any]]:
    """A chat whose model calls form_server's survey once, with the server trusted and on."""
    command = server_command("form_server.py")
    document = {"mcpServers": {"fx": {"command": command[0], "args": command[1:]}}}
    McpStore(agent_home / "mcp-servers.json").replace_definitions(
        parse_document_data(document, "test").definitions
    )
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    survey = {"id": "s1", "name": "mcp__fx__survey", "arguments": {}}
    fake = FakeModelProcess(tmp_path, [{"tool_calls": [survey]}, {"text": "Thanks."}])
    env = pty_env(agent_home, tmp_path)
    chat = spawn_chat(fake.base_url, env, project, dimensions=(40, 160))
    try:
        chat.expect("›")
        chat.send("/mcp trust fx\r")
        chat.expect("Start it and trust")
        chat.send("y")
        chat.expect("Trusted fx")
        chat.send("/mcp enable fx\r")
        chat.expect("Enabled fx")
        chat.send("take the survey\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Answer MCP server fx\\?")
        chat.send("y")
        yield fake, chat
    finally:
        chat.close(force=True)
        fake.stop()


def sent_to_server(fake: FakeModelProcess, chat: Any) -> dict[str, Any]:
    """What the server received, as its tool result told the model."""
    chat.expect("Thanks.")
    chat.send("/exit\r")
    chat.expect(pexpect.EOF)
    answer: dict[str, Any] = json.loads(fake.requests()[1]["body"]["messages"][-1]["content"])
    return answer


def test_a_multi_select_default_is_taken_as_the_choice_and_titles_send_their_values(
    survey_chat: tuple[FakeModelProcess, Any],
) -> None:
    fake, chat = survey_chat
    chat.expect("Instruments \\(Guitar, Piano, Violin; 1 to 2 of them, separated by commas\\)")
    chat.send("\r")  # the default, Guitar, as it stands
    chat.expect("Fish \\(Tuna, Salmon, Trout; any of them")  # titles, not fish-1..3
    chat.send("Salmon, Trout\r")
    chat.expect("Hero \\(Superman, Wonder Woman\\)")
    chat.send("\r")  # the default, shown as its title
    chat.expect("Email address \\(string, email\\)")
    chat.send("ada@example.org\r")
    for _ in ("Homepage", "Birthdate", "Meeting"):
        chat.expect("\\(optional\\)")
        chat.send("\r")

    content = sent_to_server(fake, chat)["content"]
    assert content == {
        "instruments": ["Guitar"],
        "fish": ["fish-2", "fish-3"],
        "hero": "hero-1",
        "email": "ada@example.org",
    }


def test_formats_and_counts_are_checked_before_sending_naming_the_fields_title(
    survey_chat: tuple[FakeModelProcess, Any],
) -> None:
    fake, chat = survey_chat
    chat.expect("Instruments")
    chat.send("\x15Guitar, Piano, Violin\r")  # Ctrl-U clears the default first
    chat.expect("Instruments: choose 1 to 2 of them")
    chat.send("\x15Piano\r")
    chat.expect("Fish")
    chat.send("\r")
    chat.expect("Hero")
    chat.send("\x15Wonder Woman\r")
    chat.expect("Email address")
    chat.send("ada at example\r")
    chat.expect("Email address: enter an email address")
    chat.send("\x15ada@example.org\r")
    chat.expect("Homepage")
    chat.send("example.org\r")
    chat.expect("Homepage: enter a full address with its scheme")
    chat.send("\x15https://example.org/ada\r")
    chat.expect("Birthdate")
    chat.send("1815-12-32\r")
    chat.expect("Birthdate: enter a date as YYYY-MM-DD")
    chat.send("\x151815-12-10\r")
    chat.expect("Meeting")
    chat.send("2026-03-31 14:30\r")
    chat.expect("Meeting: enter a date and time with its zone")
    chat.send("\x152026-03-31T14:30:00Z\r")

    content = sent_to_server(fake, chat)["content"]
    assert content == {
        "instruments": ["Piano"],
        "hero": "hero-2",
        "email": "ada@example.org",
        "homepage": "https://example.org/ada",
        "birthdate": "1815-12-10",
        "meeting": "2026-03-31T14:30:00Z",
    }
