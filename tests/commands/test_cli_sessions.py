"""`agent sessions ...` as a person runs it: the real command in a subprocess, AGENT_HOME in tmp."""

from __future__ import annotations

import datetime
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest

from agent.session.blobs import blob_folder
from agent.session.export import export_json, export_markdown
from agent.session.store import load_session
from tests import deadlines
from tests.test_startup import imports_after

ONE = "20261129-143501-3f9a2c"
TWO = "20261130-091500-77d0e1"
OTHER = "20261201-080000-0b5e11"


class Sessions:
    """A git project and a data home holding hand-written session files."""

    def __init__(self, tmp_path: Path, agent_home: Path) -> None:
        self.project = (tmp_path / "project").resolve()
        (self.project / ".git").mkdir(parents=True)
        (self.project / "src").mkdir()
        self.folder = agent_home / "sessions"
        self.folder.mkdir(parents=True)

    def write(
        self, session_id: str, events: list[dict[str, Any]], project: Path | None = None
    ) -> Path:
        """A session file as the chat writes it; events one minute apart from its start."""
        header = {
            "type": "header",
            "version": 1,
            "id": session_id,
            "started_at": _at(session_id, 0),
            "project": str(project or self.project),
            "model": "openai/fake-model",
            "app_version": "0.1.0",
        }
        lines, count = [header], 0
        for minute, event in enumerate(events, start=1):
            stamped = {"at": _at(session_id, minute), **event}
            if event["type"] in ("user", "assistant", "tool_result"):
                count += 1
                stamped["n"] = count
            lines.append(stamped)
        path = self.folder / f"{session_id}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        path.chmod(0o600)
        return path

    def agent(
        self, *args: str, tz: str = "UTC", cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agent", "sessions", *args],
            cwd=cwd or self.project / "src",
            env={**os.environ, "TZ": tz, "COLUMNS": "100"},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=deadlines.PROCESS,
            check=False,
        )


def _at(session_id: str, minutes: int) -> str:
    """The time stamp `minutes` after the session's start (its id begins with it, in UTC)."""
    start = datetime.datetime.strptime(session_id[:15], "%Y%m%d-%H%M%S")
    moment = start.replace(tzinfo=datetime.UTC) + datetime.timedelta(minutes=minutes)
    return moment.isoformat(timespec="milliseconds")


@pytest.fixture
def sessions(tmp_path: Path, agent_home: Path) -> Sessions:
    return Sessions(tmp_path, agent_home)


def chat(question: str, answer: str) -> list[dict[str, Any]]:
    return [
        {"type": "user", "content": question},
        {"type": "assistant", "content": answer},
        {"type": "usage", "prompt_tokens": 10, "completion_tokens": 2, "cost_usd": None},
    ]


def result_of(done: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    return done.returncode, done.stdout, done.stderr


# --- list ----------------------------------------------------------------------------------


def test_list_shows_this_projects_sessions_newest_first_with_titles_cut_to_fit(
    sessions: Sessions, tmp_path: Path
) -> None:
    sessions.write(ONE, chat("Fix the failing test in main.py\nIt says KeyError", "Done."))
    sessions.write(TWO, [*chat("x" * 200, "ok"), *chat("again", "ok")])
    sessions.write(OTHER, chat("elsewhere", "ok"), project=tmp_path / "other")

    listed = sessions.agent("list")

    # 100 columns: the model's name gives up its provider so the titles get more room.
    title = "x" * (100 - 64 - 1) + "…"
    assert result_of(listed) == (
        0,
        "ID                      LAST ACTIVITY     MESSAGES  MODEL       TITLE\n"
        f"{TWO}  2026-11-30 09:21  4         fake-model  {title}\n"
        f"{ONE}  2026-11-29 14:38  2         fake-model  Fix the failing test in main.py\n",
        "",
    )


def test_list_all_adds_every_project_and_shows_local_time(
    sessions: Sessions, tmp_path: Path
) -> None:
    sessions.write(ONE, chat("mine", "ok"))
    sessions.write(OTHER, chat("\x1b[31mred", "ok"), project=tmp_path / "other")

    listed = sessions.agent("list", "--all", tz="Asia/Tokyo")

    # The projects' long paths keep their ends, so the line stays within the terminal.
    project, other = str(sessions.project), str(tmp_path / "other")
    columns = "ID                      LAST ACTIVITY     MESSAGES  MODEL            "
    assert result_of(listed) == (
        0,
        f"{columns}  PROJECT           TITLE\n"
        f"{OTHER}  2026-12-01 17:03  2         openai/fake-model  …{other[-15:]}  "
        "\\x1b[31mred\n"
        f"{ONE}  2026-11-29 23:38  2         openai/fake-model  …{project[-15:]}  mine\n",
        "",
    )


def test_list_all_on_a_narrow_terminal_keeps_titles_long_enough_to_tell_apart(
    sessions: Sessions, tmp_path: Path
) -> None:
    first = "Refactor the session store so listing reads only heads and tails"
    second = "Refactor the session store so export keeps every event"
    sessions.write(ONE, chat(first, "ok"))
    sessions.write(TWO, chat(second, "ok"), project=tmp_path / "other")

    listed = subprocess.run(
        [sys.executable, "-m", "agent", "sessions", "list", "--all"],
        cwd=sessions.project,
        env={**os.environ, "TZ": "UTC", "COLUMNS": "120"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS,
        check=False,
    )

    lines = listed.stdout.splitlines()
    assert listed.returncode == 0 and len(lines) == 3
    assert all(len(line) <= 120 for line in lines), lines
    # The project gave up its start, the model its provider; the titles keep what tells them
    # apart (cut at 20 characters, both were "Refactor the sessio…").
    titles = [line[line.index("  Refactor") + 2 :] for line in lines[1:]]
    assert titles == [
        "Refactor the session store so export …",
        "Refactor the session store so listing…",
    ]
    assert "  fake-model  …" in lines[1]


def test_list_keeps_the_title_whole_and_the_model_its_start_when_the_width_allows(
    sessions: Sessions,
) -> None:
    """A long model name gives up its provider prefixes first, then its end (never its start):
    the title is whole when the terminal is wide enough for it and the model's own name."""
    title = "Fix the failing login test in payments service"
    path = sessions.write(ONE, chat(title, "ok"))
    model = "openrouter/anthropic/claude-3.5-sonnet-20241022"
    path.write_text(path.read_text().replace("openai/fake-model", model, 1))

    for columns in ("120", "100"):
        listed = subprocess.run(
            [sys.executable, "-m", "agent", "sessions", "list"],
            cwd=sessions.project,
            env={**os.environ, "TZ": "UTC", "COLUMNS": columns},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        lines = listed.stdout.splitlines()
        assert listed.returncode == 0 and len(lines) == 2, listed
        assert all(len(line) <= int(columns) for line in lines), lines
        shown = re.split(r"  +", lines[1])[3]  # the model's cell
        # Its start kept: the provider prefixes went first, then the end.
        assert shown.endswith("…") and "claude-3.5-sonnet-20241022".startswith(shown[:-1])
        assert len(shown) >= 12, lines
        if columns == "120":
            assert lines[1].endswith(f"  {title}"), lines


def test_a_title_of_wide_characters_is_cut_by_the_cells_it_takes(sessions: Sessions) -> None:
    sessions.write(ONE, chat("修" * 60, "ok"))

    row = sessions.agent("list").stdout.splitlines()[1]

    # 100 columns: the title starts at cell 64 and has 35 cells, 17 wide characters and …
    assert row.endswith("  " + "修" * 17 + "…")


def test_list_shows_chats_first_then_one_shot_runs_marked(
    sessions: Sessions, tmp_path: Path
) -> None:
    old_chat = "20261129-100000-aaaaaa"
    one_shot_new = "20261130-100000-bbbbbb"
    sessions.write(old_chat, chat("plan the release", "ok"))
    path = sessions.write(one_shot_new, chat("hi", "hello"))
    lines = path.read_text().splitlines()
    header = {**json.loads(lines[0]), "one_shot": True}
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")

    listed = sessions.agent("list")

    rows = listed.stdout.splitlines()[1:]
    assert [row.split()[0] for row in rows] == [old_chat, one_shot_new]
    assert rows[0].endswith("  plan the release")
    assert rows[1].endswith("  [-p] hi")


def test_list_without_sessions_says_where_to_look(sessions: Sessions) -> None:
    assert result_of(sessions.agent("list")) == (
        0,
        f"No saved sessions for {sessions.project}.\n"
        "See every project's with: agent sessions list --all\n",
        "",
    )
    assert result_of(sessions.agent("list", "--all")) == (0, "No saved sessions yet.\n", "")


# --- show and export -------------------------------------------------------------------------


def test_show_prints_the_markdown_export_and_load_notes_on_stderr(sessions: Sessions) -> None:
    path = sessions.write(ONE, chat("hello", "hi there"))
    with path.open("ab") as handle:
        handle.write(b'{"at": "2026-11-29T14:40:00.000+00:00", "type": "us')

    shown = sessions.agent("show", ONE[:10])

    assert result_of(shown) == (
        0,
        export_markdown(load_session(path)),
        f"note: {ONE}: the last line was cut off (the app stopped mid-write); it was ignored\n",
    )
    assert shown.stdout.startswith(f"# hello\n\n- Session: `{ONE}`\n")


def test_export_writes_markdown_or_json_to_stdout_or_to_a_private_file(
    sessions: Sessions, tmp_path: Path
) -> None:
    path = sessions.write(ONE, chat("hello", "hi there"))
    loaded = load_session(path)
    target = tmp_path / "out" / "session.json"

    markdown = sessions.agent("export", ONE)
    as_json = sessions.agent("export", ONE, "--format", "json")
    to_file = sessions.agent("export", ONE, "--format", "json", "-o", str(target))

    assert result_of(markdown) == (0, export_markdown(loaded), "")
    assert result_of(as_json) == (0, export_json(loaded), "")
    assert result_of(to_file) == (0, f"Exported session {ONE} to {target} (json).\n", "")
    assert target.read_text(encoding="utf-8") == export_json(loaded)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_export_to_a_folder_says_it_cannot_write_there(sessions: Sessions, tmp_path: Path) -> None:
    sessions.write(ONE, chat("hello", "hi"))

    failed = sessions.agent("export", ONE, "-o", str(tmp_path))

    assert failed.returncode == 1
    assert failed.stdout == ""
    assert failed.stderr.startswith(f"agent: cannot write {tmp_path}: ")
    assert failed.stderr.endswith("; choose another file with -o\n")


# --- delete --------------------------------------------------------------------------------


def test_delete_with_yes_removes_only_that_session(sessions: Sessions) -> None:
    one = sessions.write(ONE, chat("hello", "hi"))
    two = sessions.write(TWO, chat("bye", "bye"))

    assert result_of(sessions.agent("delete", "--yes", ONE[:12])) == (
        0,
        f"Deleted session {ONE}.\n",
        "",
    )
    assert (one.exists(), two.exists()) == (False, True)


def test_delete_removes_the_sessions_saved_images_too(sessions: Sessions) -> None:
    one = sessions.write(ONE, chat("hello", "hi"))
    two = sessions.write(TWO, chat("bye", "bye"))
    for path in (one, two):
        images = blob_folder(path)
        images.mkdir()
        (images / ("0" * 64)).write_text("aGVsbG8=")

    assert sessions.agent("delete", "--yes", ONE).returncode == 0
    assert (blob_folder(one).exists(), blob_folder(two).exists()) == (False, True)


def test_delete_without_a_terminal_or_yes_refuses_and_keeps_the_file(sessions: Sessions) -> None:
    path = sessions.write(ONE, chat("hello", "hi"))

    assert result_of(sessions.agent("delete", ONE)) == (
        1,
        "",
        f"agent: not deleting session {ONE}: there is no terminal to confirm it; add --yes to "
        "delete without asking\n",
    )
    assert path.exists()


def test_delete_on_a_terminal_asks_first_and_no_keeps_the_session(sessions: Sessions) -> None:
    path = sessions.write(ONE, chat("hello there", "hi"))

    def delete(answer: str) -> tuple[int, str]:
        child = pexpect.spawn(
            sys.executable,
            ["-m", "agent", "sessions", "delete", ONE],
            cwd=str(sessions.project),
            env={**os.environ, "TZ": "UTC"},
            encoding="utf-8",
            timeout=deadlines.PROCESS,
        )
        child.expect_exact(f"Delete session {ONE}? [y/N] ")
        child.sendline(answer)
        child.expect(pexpect.EOF)
        child.close()
        return child.exitstatus, child.before.replace("\r\n", "\n")

    status, output = delete("n")
    assert (status, output, path.exists()) == (1, "n\nNothing deleted.\n", True)
    status, output = delete("y")
    assert (status, output, path.exists()) == (0, f"y\nDeleted session {ONE}.\n", False)


# --- bad ids -------------------------------------------------------------------------------


@pytest.mark.parametrize("action", [["show"], ["export"], ["delete", "--yes"]])
def test_unknown_and_ambiguous_ids_are_clear_errors(sessions: Sessions, action: list[str]) -> None:
    sessions.write(ONE, chat("hello", "hi"))
    sessions.write(TWO, chat("bye", "bye"))

    assert result_of(sessions.agent(*action, "2025")) == (
        1,
        "",
        "agent: no session with id '2025' (list them with: agent sessions list --all)\n",
    )
    assert result_of(sessions.agent(*action, "2026")) == (
        1,
        "",
        f"agent: '2026' matches 2 sessions ({ONE}, {TWO}); give more of the id\n",
    )


def test_a_file_that_is_not_a_session_is_named_in_the_error(sessions: Sessions) -> None:
    path = sessions.folder / f"{ONE}.jsonl"
    path.write_text("not json\n")

    assert result_of(sessions.agent("show", ONE)) == (
        1,
        "",
        f"agent: {path}: empty or unreadable session file\n",
    )


# --- start-up cost -------------------------------------------------------------------------


def test_no_sessions_command_loads_the_model_or_mcp_code(
    sessions: Sessions, tmp_path: Path
) -> None:
    sessions.write(ONE, chat("hello", "hi"))
    commands = [
        ["sessions", "list"],
        ["sessions", "list", "--all"],
        ["sessions", "show", ONE],
        ["sessions", "export", ONE, "--format", "json"],
        ["sessions", "delete", "--yes", ONE],
    ]

    loaded = {" ".join(argv): imports_after(argv, tmp_path) for argv in commands}

    assert loaded == {" ".join(argv): (0, []) for argv in commands}
