"""A secret with a quote, a backslash or a control character, inside JSON inside JSON: a
commands tool's text result is itself JSON, so on the wire (what `agent mcp send` prints
and `--trace` shows) its stdout is escaped twice. Redaction must hide every such form.
Real `agent` binary, real in-process commands server running printenv."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from agent.redaction import Redactor
from tests.security.command_tools_helpers import agent, make_project, save_commands_server

SECRET = 'pa"ss\\wd-Xy7Qz9Lm3K\u00e9'


def _printenv_server(tmp_path: Path, agent_home: Path) -> tuple[Path, dict[str, str]]:
    project = make_project(tmp_path)
    environ = {**os.environ, "MY_TOKEN": SECRET}
    printenv = shutil.which("printenv")
    assert printenv
    tool = {
        "command": [printenv, "{name}"],
        "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}},
    }
    save_commands_server(
        agent_home, project, {"env": tool}, environ=environ, env={"TOKEN": "${env:MY_TOKEN}"}
    )
    return project, environ


def _leaks(text: str) -> bool:
    return any(form in text for form in ("Xy7Qz9Lm3K", "Xy7Qz9"))


def test_a_secret_escaped_twice_in_an_answer_to_send_is_hidden(
    tmp_path: Path, agent_home: Path
) -> None:
    project, environ = _printenv_server(tmp_path, agent_home)
    message = {"method": "tools/call", "params": {"name": "env", "arguments": {"name": "TOKEN"}}}

    result = agent("mcp", "send", "cmd", json.dumps(message), cwd=project, env=environ)

    assert result.returncode == 0, result.stderr
    assert '"result"' in result.stdout
    assert not _leaks(result.stdout + result.stderr), result.stdout


def test_a_secret_escaped_twice_in_the_trace_of_a_call_is_hidden(
    tmp_path: Path, agent_home: Path
) -> None:
    project, environ = _printenv_server(tmp_path, agent_home)

    result = agent(
        "mcp", "call", "cmd", "env", "--args", '{"name": "TOKEN"}', "--trace",
        cwd=project, env=environ,
    )  # fmt: skip

    assert result.returncode == 0, result.stderr
    assert " cmd <- " in result.stderr
    assert not _leaks(result.stdout + result.stderr)


def test_every_nesting_of_json_strings_up_to_three_deep_is_masked() -> None:
    redactor = Redactor([SECRET])
    text = SECRET
    for _ in range(3):
        text = json.dumps({"text": text})
        assert "Xy7Qz9" not in redactor.redact(text), text
