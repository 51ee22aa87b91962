"""MCP prompts as slash commands against a real server (resources_server.py): arguments as
name=value, missing required ones asked in a form, the messages shown and returned as the
person's turn, listed by /help and completed with Tab."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from agent.chat.prompt_commands import parse_arguments
from agent.chat.state import ChatSession
from agent.errors import AgentError
from agent.messages import ImagePart, TextPart
from agent.ui.completion.completer import chat_completer
from agent.ui.slash.commands import run_slash
from agent.ui.slash.prompts import TurnToSend
from tests import deadlines
from tests.ui.prompt_helpers import served_chat

pytestmark = pytest.mark.anyio
BLOCK = re.compile(r'<attachment boundary="[0-9a-f]{16}" server="rs" uri="fixture://notes/1" ')


async def test_a_prompt_with_arguments_becomes_the_persons_turn_and_is_shown(
    agent_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with served_chat(agent_home, tmp_path) as chat:
        turn = await run_slash(chat, '/mcp__rs__review code="x = 1" style=detailed')
    assert isinstance(turn, TurnToSend)
    assert turn.text == "/mcp__rs__review code='x = 1' style=detailed"
    first, image, resource = turn.parts
    assert first == TextPart("Review this code (detailed):\nx = 1")
    assert isinstance(image, ImagePart) and (image.mime_type, image.size) == ("image/png", 69)
    assert isinstance(resource, TextPart) and BLOCK.match(resource.text)
    assert "\nNote 1.\n" in resource.text
    shown = capsys.readouterr().out
    assert "⏺ prompt review of MCP server rs" in shown
    assert "  Review this code (detailed):\n  x = 1\n  [image: image/png, 69 bytes]\n" in shown


async def test_a_missing_required_argument_is_asked_in_a_form(
    agent_home: Path, tmp_path: Path
) -> None:
    async with served_chat(agent_home, tmp_path) as chat:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            keys.send_text("print(1)\r")
            turn = await run_slash(chat, "/mcp__rs__review")
    assert isinstance(turn, TurnToSend)
    assert turn.parts[0] == TextPart("Review this code (concise):\nprint(1)")


async def test_bad_arguments_are_refused_before_anything_is_sent(
    agent_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with served_chat(agent_home, tmp_path) as chat:
        assert await run_slash(chat, "/mcp__rs__review code=1 colour=red") is None
        assert await run_slash(chat, "/mcp__rs__nope") is None
    out = capsys.readouterr().out
    assert (
        "error: prompt 'review' of MCP server 'rs' takes no argument 'colour' "
        "(its arguments: code, style)" in out
    )
    assert (
        "error: no MCP prompt /mcp__rs__nope (enabled servers' prompts are listed by /help)" in out
    )


def test_arguments_are_name_value_words_with_shell_quoting() -> None:
    assert parse_arguments("p", "a=1 b='two words' c=") == {"a": "1", "b": "two words", "c": ""}
    with pytest.raises(AgentError, match=r"/p: 'oops' is not name=value"):
        parse_arguments("p", "oops")
    with pytest.raises(AgentError, match=r"/p: No closing quotation \(close the quote\)"):
        parse_arguments("p", "a='open")
    with pytest.raises(AgentError, match=r"/p: the argument 'a' is given twice"):
        parse_arguments("p", "a=1 a=2")


async def test_help_lists_the_prompts_with_their_arguments(
    agent_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with served_chat(agent_home, tmp_path) as chat:
        await run_slash(chat, "/help")
    out = capsys.readouterr().out
    assert "  /mcp__rs__review code [style]  Review some code.\n" in out
    assert "  /mcp__rs__hello  Say hello.\n" in out


async def offered(chat: ChatSession, text: str) -> list[str]:
    completer = chat_completer(lambda: chat, asyncio.get_running_loop())

    def complete() -> list[str]:
        found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
        return [c.text for c in found]

    with anyio.fail_after(deadlines.PROCESS):
        return await anyio.to_thread.run_sync(complete)


async def test_tab_completes_prompt_names_argument_names_and_values(
    agent_home: Path, tmp_path: Path
) -> None:
    async with served_chat(agent_home, tmp_path) as chat:
        assert await offered(chat, "/mcp__rs__") == ["mcp__rs__review", "mcp__rs__hello"]
        assert await offered(chat, "/mcp__rs__review ") == ["code=", "style="]
        assert await offered(chat, "/mcp__rs__review code=x s") == ["style="]
        assert await offered(chat, "/mcp__rs__review code=x style=d") == ["style=detailed"]


def test_two_prompts_that_would_make_one_command_are_both_left_out_with_a_note() -> None:
    from agent.chat.prompt_commands import prompt_commands
    from agent.mcp.catalog.entries import PromptInfo

    def info(name: str) -> PromptInfo:
        return PromptInfo(name=name, title=None, description=None, arguments=())

    clashes: list[str] = []
    found = prompt_commands(["rs"], {"rs": [info("a.b"), info("a b"), info("ok")]}, clashes)
    assert list(found) == ["mcp__rs__ok"]
    assert clashes == [
        "/mcp__rs__a_b is left out: prompts 'a.b' of rs and 'a b' of rs both make that command"
    ]


async def test_a_completed_argument_value_is_quoted_so_the_command_gives_it_back_whole(
    agent_home: Path, tmp_path: Path
) -> None:
    from tests.fixtures.servers.quoting_prompt_server import VALUES

    script = "quoting_prompt_server.py"
    async with served_chat(agent_home, tmp_path, script=script) as chat:
        completed = await offered(chat, "/mcp__rs__say word=")
        assert len(completed) == len(VALUES)
        for text, value in zip(completed, VALUES, strict=True):
            # Every value, inserted as offered, is the value the command parses and sends.
            assert parse_arguments("mcp__rs__say", text) == {"word": value}
            turn = await run_slash(chat, f"/mcp__rs__say {text}")
            assert isinstance(turn, TurnToSend) and turn.parts == [TextPart(f"word: {value}")]
        assert completed[-1] == "word=plain"  # a value that needs no quotes gets none
