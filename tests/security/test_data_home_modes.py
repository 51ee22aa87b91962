"""Another local user reads what a chat leaves behind: the session file (every message, tool
result and pasted key), its blobs (attached images, the contents of files the tools changed,
kept for /undo), the default /export and the prompt history. Under the usual umask (022, so a
careless create is readable by all), every file the chat writes into its data home is 0600
and every folder 0700. The real chat in a pty, an @-attached image and text file, an approved
write_file and a default /export."""

from __future__ import annotations

import base64
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.pty_chat import pty_env, scripted_chat

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


@pytest.fixture
def usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)  # the child inherits it
    try:
        yield
    finally:
        os.umask(previous)


def test_everything_a_chat_keeps_is_private_to_the_person(
    tmp_path: Path, agent_home: Path, usual_umask: None
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "shot.png").write_bytes(PNG)
    (project / "notes.txt").write_text("token sk-canary\n")
    write = {"path": "notes.txt", "content": "rewritten\n"}
    turns = [
        {"tool_calls": [{"id": "w1", "name": "write_file", "arguments": write}]},
        {"text": "Written."},
    ]
    env = pty_env(agent_home, tmp_path)
    with scripted_chat(tmp_path, turns, env, project) as (chat, _fake):
        chat.expect("›")
        chat.send("look at @shot.png and @notes.txt\r")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Written.")
        chat.expect("›")
        chat.send("/export\r")
        chat.expect("Exported")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)

    kept = [Path(root) / name for root, dirs, files in os.walk(agent_home) for name in dirs + files]
    blobs = [path for path in kept if path.parent.name.endswith(".blobs")]
    assert len(blobs) >= 2  # the image, and the content the write replaced
    assert any(path.parent.name == "exports" for path in kept)
    for path in kept:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
        wanted = 0o700 if path.is_dir() else 0o600
        assert mode == wanted, f"{path.relative_to(agent_home)} is {oct(mode)}"
