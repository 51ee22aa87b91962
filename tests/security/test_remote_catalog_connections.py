"""A remote server connects once per request and never stays connected in between: /help and
prompt commands list and get inside a request of their own. Real chat commands, real McpHost,
real streamable-HTTP fixture server; its connections are counted from its request log."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.messages import TextPart
from agent.ui.prompt_slash import TurnToSend
from agent.ui.slash import run_slash
from tests.security.remote_helpers import connections_made, remote_chat

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
