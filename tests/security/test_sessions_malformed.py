"""`agent sessions show|export|list` skip a malformed event with a note, as resume does,
instead of dying with a traceback and showing nothing.

Attack (robustness): a session file with a garbage line, a JSON line that is not an object,
events whose fields have the wrong types, and a line nested 100000 levels deep.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.security.inputs_helpers import agent_env, run_agent

SESSION_ID = "20260101-000000-abcdef"
HEADER = {
    "type": "header",
    "version": 1,
    "id": SESSION_ID,
    "started_at": "2026-01-01T00:00:00.000+00:00",
    "project": "/tmp/p",
    "model": "openai/x",
    "app_version": "0.1",
}
AT = "2026-01-01T00:00:01.000+00:00"


def write_session(agent_home: Path) -> None:
    lines = [
        json.dumps(HEADER),
        json.dumps({"at": AT, "type": "user", "content": "hello there", "n": 1}),
        "this is not json",
        "[1, 2, 3]",
        json.dumps({"at": AT, "type": "assistant", "content": "hi", "tool_calls": "abc", "n": 2}),
        json.dumps({"at": AT, "type": "assistant", "tool_calls": [1, {"id": 5}], "n": 3}),
        json.dumps({"at": AT, "type": "skill_activation", "snapshot": "nope"}),
        '{"type": "user", "content": ' + "[" * 100_000 + "]" * 100_000 + "}",
        json.dumps({"at": AT, "type": "assistant", "content": "the good answer", "n": 4}),
    ]
    folder = agent_home / "sessions"
    folder.mkdir(parents=True)
    (folder / f"{SESSION_ID}.jsonl").write_text("\n".join(lines) + "\n")


EXPECTED_NOTES = [
    f"note: {SESSION_ID}: line 3 could not be read and was skipped",
    f"note: {SESSION_ID}: line 4 is not an event and was skipped",
    f"note: {SESSION_ID}: line 8 could not be read and was skipped",
    f"note: {SESSION_ID}: line 5: an unreadable 'assistant' event was skipped",
    f"note: {SESSION_ID}: line 6: an unreadable 'assistant' event was skipped",
    f"note: {SESSION_ID}: line 7: an unreadable 'skill_activation' event was skipped",
]


def test_show_and_export_skip_malformed_events_with_a_note_and_keep_the_rest(
    tmp_path: Path,
) -> None:
    agent_home = tmp_path / "agent-home"
    write_session(agent_home)
    (tmp_path / "person").mkdir()
    env = agent_env(tmp_path / "person", agent_home)

    shown = run_agent(["sessions", "show", SESSION_ID], env, tmp_path)
    markdown = run_agent(["sessions", "export", SESSION_ID], env, tmp_path)
    as_json = run_agent(["sessions", "export", "--format", "json", SESSION_ID], env, tmp_path)
    listed = run_agent(["sessions", "list", "--all"], env, tmp_path)

    for done in (shown, markdown):
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines() == EXPECTED_NOTES
        assert "> hello there" in done.stdout
        assert "> the good answer" in done.stdout
        assert "*(line 5: an unreadable `assistant` event was skipped)*" in done.stdout
        assert "Traceback" not in done.stdout + done.stderr
    assert as_json.returncode == 0, as_json.stderr
    assert as_json.stderr.splitlines() == EXPECTED_NOTES[:3]
    assert [e["type"] for e in json.loads(as_json.stdout)["events"]] == [
        "user", "assistant", "assistant", "skill_activation", "assistant",
    ]  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert SESSION_ID in listed.stdout and "hello there" in listed.stdout
