"""A remote server connects once per request and never stays connected in between: /help and
prompt commands list and get inside a request of their own, and Tab completion (which runs on
every key press) asks a remote server only on an explicit Tab, remembering a server that
offers nothing or could not be reached. Real chat commands and completer, real McpHost, real
streamable-HTTP fixture server; its connections are counted from its request log."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from agent.chat.state import ChatSession
from agent.messages import TextPart
from agent.ui.completion.completer import chat_completer
from agent.ui.slash.commands import run_slash
from agent.ui.slash.prompts import TurnToSend
from tests import deadlines
from tests.security.remote_helpers import (
    chat_with_remote,
    connections_made,
    hanging_server,
    remote_chat,
    requests_made,
)

pytestmark = pytest.mark.anyio


async def test_help_lists_a_remote_servers_prompts_and_then_disconnects(
    agent_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "requests.jsonl"
    async with remote_chat(agent_home, tmp_path, log) as chat:
        assert chat.host.runtime is not None
        await run_slash(chat, "/help")
        still_open = chat.host.runtime.running()
    assert "  /mcp__remote__hello  Say hello.\n" in capsys.readouterr().out
    assert still_open == []
    assert connections_made(log) == 1


async def test_a_remote_prompt_command_disconnects_once_it_has_its_messages(
    agent_home: Path, tmp_path: Path
) -> None:
    log = tmp_path / "requests.jsonl"
    async with remote_chat(agent_home, tmp_path, log) as chat:
        assert chat.host.runtime is not None
        turn = await run_slash(chat, "/mcp__remote__hello")
        still_open = chat.host.runtime.running()
    assert isinstance(turn, TurnToSend) and turn.text == "/mcp__remote__hello"
    assert [type(part) for part in turn.parts] == [TextPart]
    assert still_open == []
    assert connections_made(log) <= 2  # the listing, then the prompt: each its own request


async def test_no_remote_connection_stays_open_while_a_prompts_arguments_are_asked(
    agent_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "requests.jsonl"
    async with remote_chat(agent_home, tmp_path, log) as chat:
        assert chat.host.runtime is not None
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            keys.send_text("\x04")  # Ctrl-D at the form: the person cancels
            turn = await run_slash(chat, "/mcp__remote__review")
        still_open = chat.host.runtime.running()
    assert turn is None
    assert "Cancelled; nothing was sent." in capsys.readouterr().out
    assert still_open == []


async def completions(chat: ChatSession, texts: list[str], *, tab: bool) -> list[list[str]]:
    """What the chat's real completer offers for each text, as a key press (tab=False, the
    prompt completes while typing) or as an explicit Tab; run in a worker thread, as
    prompt_toolkit's ThreadedCompleter does."""
    completer = chat_completer(lambda: chat, asyncio.get_running_loop())
    event = CompleteEvent(completion_requested=True) if tab else CompleteEvent(text_inserted=True)

    def complete() -> list[list[str]]:
        return [[c.text for c in completer.get_completions(Document(t), event)] for t in texts]

    with anyio.fail_after(deadlines.PROCESS):
        return await anyio.to_thread.run_sync(complete)


def typed(text: str) -> list[str]:
    """The text after each key press that types it."""
    return [text[:end] for end in range(1, len(text) + 1)]


async def test_key_presses_never_contact_a_remote_server_and_only_tab_lists_it(
    agent_home: Path, tmp_path: Path
) -> None:
    log = tmp_path / "requests.jsonl"
    async with remote_chat(agent_home, tmp_path, log) as chat:
        await completions(chat, typed("/resume") + typed("@remote:fixture://n"), tab=False)
        after_typing = requests_made(log)
        [offered] = await completions(chat, ["@remote:fixture://notes/1"], tab=True)
        after_tab = requests_made(log)
        await completions(chat, typed("@remote:fixture://notes/2"), tab=False)
        await completions(chat, ["@remote:fixture://notes/2", "@remote:"], tab=True)
        assert chat.host.runtime is not None
        still_open = chat.host.runtime.running()
    assert after_typing == 0
    assert "remote:fixture://notes/1" in offered and "remote:fixture://notes/10" in offered
    # The one Tab listed resources and templates (a request each); the rest came from the cache.
    assert connections_made(log) == 2
    assert requests_made(log) == after_tab
    assert still_open == []


async def test_a_remote_server_that_offers_no_resources_or_prompts_is_asked_only_once(
    agent_home: Path, tmp_path: Path
) -> None:
    log = tmp_path / "requests.jsonl"
    async with remote_chat(agent_home, tmp_path, log, catalog="none") as chat:
        for _ in range(3):
            offered = await completions(chat, ["@remote:", "@remote:x", "/mcp__"], tab=True)
            assert offered == [[], [], []]
    assert connections_made(log) == 3  # resources, templates, prompts: each learnt once


async def test_a_hung_remote_server_is_not_waited_for_again_on_every_tab(
    agent_home: Path, tmp_path: Path
) -> None:
    async with (
        hanging_server() as (url, accepted),
        chat_with_remote(agent_home, tmp_path, url) as chat,
    ):
        # The first Tab waits for it (WAIT_SECONDS) and gives up; later ones do not wait.
        assert await completions(chat, ["@remote:"], tab=True) == [[]]
        after_first_tab = len(accepted)
        for _ in range(3):
            offered = await completions(chat, ["@remote:", "@remote:f", "/mcp__r"], tab=True)
            assert offered == [[], [], []]
        assert chat.host.runtime is not None
        assert chat.host.runtime.running() == []
    assert after_first_tab >= 1
    assert len(accepted) == after_first_tab
