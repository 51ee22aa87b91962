"""A hostile or corrupted session file in agent's sessions folder (copied in, or written by
another program): header fields of the wrong type, a forged time stamp with escape sequences.
Listing and resuming never crash on it and never draw its escapes raw.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pty_chat import finish, model_args, spawn_agent
from tests.security.inputs_helpers import agent_env, run_agent
from tests.ui.session_files import turn, write_session

GOOD = "20261129-143501-3f9a2c"
BAD = "20261129-143502-bad0bd"
NOWHERE = "http://127.0.0.1:9/v1"
TITLE_ESCAPE = "\x1b]0;pwned\x07\x1b[2J"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / ".git").mkdir(parents=True)
    return folder


def test_a_header_of_the_wrong_types_is_skipped_in_the_list_and_refused_in_one_line(
    tmp_path: Path, project: Path, agent_home: Path
) -> None:
    write_session(agent_home, GOOD, project, turn("good question", "good answer"))
    write_session(
        agent_home,
        BAD,
        project,
        turn("bad question", "bad answer"),
        header={"id": 5, "project": ["x"], "model": 7},
    )
    (tmp_path / "person").mkdir()
    env = agent_env(tmp_path / "person", agent_home)

    listed = run_agent(["sessions", "list", "--all"], env, tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert GOOD in listed.stdout and "Traceback" not in listed.stdout + listed.stderr

    shown = run_agent(["sessions", "show", BAD], env, tmp_path)
    assert shown.returncode != 0
    assert "Traceback" not in shown.stdout + shown.stderr
    errors = shown.stderr.strip().splitlines()
    assert len(errors) == 1 and BAD in errors[0], shown.stderr


def test_the_resume_chooser_draws_a_forged_time_stamp_escaped(
    project: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    events = turn("earlier question", "earlier answer")
    events[-1] = {**events[-1], "at": TITLE_ESCAPE}
    write_session(agent_home, GOOD, project, events)
    chat = spawn_agent([*model_args(NOWHERE), "--resume"], chat_env, project)
    try:
        chat.expect("Resume which one")
        listed = chat.before
        chat.sendcontrol("c")
        chat.expect("›")
        listed += chat.before  # the list may come after the question (patch_stdout's thread)
        finish(chat)
    finally:
        chat.close(force=True)
    assert "earlier question" in listed
    assert "\x1b]0;pwned" not in listed and "\x07" not in listed
