"""The approval dialog of `agent -p` on /dev/tty while stdout is a file: drawn at the width of
the terminal itself (not a pipe's COLUMNS or its 80 columns), coloured on the terminal, and
Esc stops the turn there too. The real `agent`, the scripted model, the annotated server."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pexpect

from tests import deadlines
from tests.fake_openai import FakeOpenAI
from tests.pty_chat import AGENT, pty_env
from tests.ui.dialogs.approval_helpers import FETCH_PAGE, SAVE_NOTE, save_trusted_annotated_server

TIMEOUT = deadlines.PROCESS
LONG_URL = "https://example.com/" + "a" * 110  # no space: a row can only break it mid-word


def _env(agent_home: Path, tmp_path: Path) -> dict[str, str]:
    env = pty_env(agent_home, tmp_path, colours=True)
    env.pop("NO_COLOR", None)
    env["COLUMNS"] = "50"  # what a pipe's environment may say; the dialog must ask the tty
    save_trusted_annotated_server(agent_home, env)
    return env


def _spawn(command: str, env: dict[str, str], cwd: Path, columns: int) -> pexpect.spawn:
    return pexpect.spawn(
        "/bin/sh",
        ["-c", command],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(40, columns),
    )


def test_the_one_shot_dialog_is_as_wide_as_the_terminal_and_coloured_there(
    tmp_path: Path, agent_home: Path
) -> None:
    env = _env(agent_home, tmp_path)
    out = tmp_path / "out.txt"
    turns = [
        {"tool_calls": [{"id": "c1", "name": FETCH_PAGE, "arguments": {"url": LONG_URL}}]},
        {"text": "Fetched."},
    ]
    with FakeOpenAI(turns) as fake:
        line = shlex.join([AGENT, "--model", "openai/fake-model", "--api-base", fake.base_url])
        command = f"{line} -p 'fetch it' > {shlex.quote(str(out))}"
        agent = _spawn(command, env, tmp_path, columns=160)
        agent.expect("Approve\\?")
        drawn = agent.before
        agent.send("y")
        agent.expect(pexpect.EOF)
        agent.close()

    assert agent.exitstatus == 0
    assert f'url: "{LONG_URL}"' in drawn  # one row: 160 columns, not COLUMNS=50 nor 80
    assert "an · fetch_page" in drawn
    codes = re.search(r"\x1b\[([0-9;]*)m⚠ reaches outside this machine", drawn)
    assert codes is not None and "33" in codes.group(1).split(";")  # yellow on the tty
    assert out.read_text() == "Fetched.\n"


def test_esc_at_a_one_shot_approval_stops_the_turn_and_exits_as_denied(
    tmp_path: Path, agent_home: Path
) -> None:
    env = _env(agent_home, tmp_path)
    out = tmp_path / "out.json"
    calls = [
        {"id": "c1", "name": SAVE_NOTE, "arguments": {"path": "a.md", "content": "one\ntwo\n"}},
        {"id": "c2", "name": SAVE_NOTE, "arguments": {"path": "b.md", "content": "b"}},
    ]
    with FakeOpenAI([{"tool_calls": calls}, {"text": "never asked"}]) as fake:
        line = shlex.join([AGENT, "--model", "openai/fake-model", "--api-base", fake.base_url])
        command = f"{line} -p 'save both' --output-format json > {shlex.quote(str(out))}"
        agent = _spawn(command, env, tmp_path, columns=100)
        agent.expect("Approve call 1 of 2")  # both calls in the chat's one dialog
        drawn = agent.before
        agent.send("\x1b")
        agent.expect(pexpect.EOF)
        agent.close()
        requests = fake.requests

    assert "1 │ one" in drawn and "2 │ two" in drawn
    assert agent.exitstatus == 3  # a call was declined
    assert len(requests) == 1  # the model got no further round
    result = json.loads(out.read_text())
    assert result["tool_calls"][0]["approved"] is False
    assert (
        result["tool_calls"][0]["result"]
        == "The person declined this tool call and stopped the turn."
    )
    assert result["notices"] == ["Turn stopped. The model gets no further round; say how to go on."]
    assert result["tool_calls"][1]["approved"] is False  # the second call never ran
    assert result["text"] == ""
