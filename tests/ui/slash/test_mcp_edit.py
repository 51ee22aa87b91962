"""`/mcp edit` in the chat: the shared editor flow, asked again with the chat's own dialog.

The real chat runs in a pty with a scripted model server; the editor is a small script that
writes an invalid draft first and a valid one on its second run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pexpect
import pytest

from agent.mcp.config.document import serialize_document
from agent.mcp.store import McpStore
from tests.commands.test_cli_mcp import alternating_editor
from tests.pty_chat import pty_env, scripted_chat


def run_edit_in_chat(tmp_path: Path, agent_home: Path, answer: str, outcome: str) -> str:
    """Open the chat, run /mcp edit, answer "Edit again?" with one key and wait for the
    `outcome` line (the prompt may be redrawn before it); the screen is returned."""
    with scripted_chat(tmp_path, [], pty_env(agent_home, tmp_path)) as (chat, _fake):
        chat.expect("›")
        chat.send("/mcp edit\r")
        chat.expect_exact("Edit again? [y] yes  [n] no")
        drawn = chat.before
        chat.send(answer)
        chat.expect_exact(outcome)
        drawn += chat.before + outcome
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    return drawn


def test_an_invalid_edit_in_the_chat_is_edited_again_on_y_and_then_saved(
    tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alternating_editor(
        tmp_path,
        monkeypatch,
        '{"mcpServers": {"fetch": {"command": "uvx", "url": "https://h.example"}}}',
        '{"mcpServers": {"fetch": {"command": "uvx"}}}',
    )

    drawn = run_edit_in_chat(tmp_path, agent_home, "y", "Saved 1 MCP server to")

    assert "mcpServers.fetch: has both command and url" in drawn
    assert "Saved 1 MCP server to" in drawn
    saved = McpStore(agent_home / "mcp-servers.json").load().definitions
    assert json.loads(serialize_document(saved)) == {
        "mcpServers": {"fetch": {"type": "stdio", "command": "uvx"}}
    }


def test_declining_to_edit_again_in_the_chat_saves_nothing(
    tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alternating_editor(tmp_path, monkeypatch, '{"mcpServers": {"x": {}}}', "{}")

    drawn = run_edit_in_chat(tmp_path, agent_home, "n", "Nothing saved.")

    assert "Nothing saved." in drawn
    assert not (agent_home / "mcp-servers.json").exists()
    assert (tmp_path / "runs").read_text() == "x"
