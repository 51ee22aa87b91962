"""/undo never changes a file through a link.

Attack: write_file creates docs/prod.yml (the person approves that file); afterwards `docs` is
moved to `deploy` and `docs` made a link to it (by the person, a pull, or an approved command).
/undo of the creation then resolved `docs/prod.yml` to `deploy/prod.yml` and deleted it: a
file the person never approved a change to. Undo walks the recorded path down from the project
by folder descriptor, never following a link, and refuses saying why, changing nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pty_chat import finish, scripted_chat

CONTENT = "replicas: 3\n"


def call(call_id: str, name: str, **arguments: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def test_undo_of_a_created_file_does_not_delete_through_a_folder_now_a_link(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [call("c1", "write_file", path="docs/prod.yml", content=CONTENT), {"text": "Made."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("write it\r")
        chat.expect("file: docs/prod.yml \\(new file")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Made.")
        chat.expect("›")
        (tmp_path / "docs").rename(tmp_path / "deploy")  # the same file, now under deploy/
        (tmp_path / "docs").symlink_to("deploy", target_is_directory=True)
        chat.send("/undo\r")
        chat.expect("Cannot undo change 1 \\(write_file created docs/prod.yml\\)")
        chat.expect("docs is now a link; nothing was undone")
        chat.expect("›")
        assert (tmp_path / "deploy" / "prod.yml").read_text() == CONTENT
        chat.send("/changes\r")
        chat.expect("1 file change in this session")
        chat.expect("›")
        assert "undone" not in chat.before
        finish(chat)
    assert (tmp_path / "docs").is_symlink()


def test_undo_of_an_edit_does_not_write_through_a_folder_now_a_link(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "prod.yml").write_text("replicas: 1\n")
    turns = [
        call("c1", "edit_file", path="docs/prod.yml", old_text="1", new_text="3"),
        {"text": "Edited."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("edit it\r")
        chat.expect("file: docs/prod.yml \\(edit")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Edited.")
        chat.expect("›")
        (tmp_path / "docs").rename(tmp_path / "deploy")
        (tmp_path / "docs").symlink_to("deploy", target_is_directory=True)
        chat.send("/undo\r")
        chat.expect("docs is now a link; nothing was undone")
        chat.expect("›")
        finish(chat)
    assert (tmp_path / "deploy" / "prod.yml").read_text() == CONTENT
