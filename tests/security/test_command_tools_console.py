"""A hostile server answering a hand-written message (`agent mcp send`): what it sends back
reaches the terminal without terminal escapes, invisible characters or the secrets its
definition holds. Real `agent` binary, real fixture server (tools_server)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.commands.test_cli_mcp_console import (  # noqa: F401  (trusted_store is a fixture)
    CANARY,
    agent,
    trusted_store,
)


@pytest.fixture
def fx(trusted_store: Path, agent_home: Path) -> str:  # noqa: F811
    """The trusted tools_server `fx`, whose definition's env holds CANARY as a secret."""
    agent_home.mkdir()
    for name in ("mcp-servers.json", "trust.key"):
        shutil.copy2(trusted_store / name, agent_home / name)
    return "fx"


def tool_call(name: str, arguments: dict[str, str]) -> str:
    return json.dumps({"method": "tools/call", "params": {"name": name, "arguments": arguments}})


def test_a_secret_the_server_echoes_in_an_answer_to_send_is_hidden(fx: str) -> None:
    result = agent("mcp", "send", fx, tool_call("env", {"name": "CANARY"}))

    assert result.returncode == 0, result.stderr
    assert CANARY not in result.stdout + result.stderr
    assert json.loads(result.stdout)["result"]["content"][0]["text"] == "***"


def test_terminal_escapes_in_an_answer_to_send_are_printed_as_escaped_text(fx: str) -> None:
    result = agent("mcp", "send", fx, tool_call("escape", {}))

    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "\\u001b[31mred" in result.stdout
