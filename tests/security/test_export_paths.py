"""/export PATH writes the whole conversation (tool results, pasted keys) where the person says,
and nowhere else: never through a symbolic link, never into another file sharing the name's
inode, always 0600.

Attack (hostile repository): the path the person types is a link planted in the project to a
file outside it (or to a file that does not exist yet, which a write through the link would
create), a folder, or a hard link to a file outside; an existing file readable by others.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests.pty_chat import finish, scripted_chat


def test_export_refuses_links_and_folders_and_writes_0600_without_writing_through(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    notes = project / "notes"
    notes.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("precious")
    (notes / "link.md").symlink_to(victim)
    (notes / "dangling.md").symlink_to(outside / "created.md")
    hard_victim = outside / "hard.txt"
    hard_victim.write_text("also precious")
    os.link(hard_victim, notes / "hard.md")
    shared = notes / "shared.md"
    shared.write_text("old")
    shared.chmod(0o644)

    turns = [{"text": "The key is sk-secret-123."}]
    with scripted_chat(tmp_path, turns, chat_env, project) as (chat, _):
        chat.expect("›")
        chat.send("what is the key?\r")
        chat.expect("The key is")
        chat.expect("›")
        chat.send("/export notes/link.md\r")
        chat.expect(r"error: not writing \S+link\.md: it is a symbolic link")
        chat.send("/export notes/dangling.md\r")
        chat.expect(r"error: not writing \S+dangling\.md: it is a symbolic link")
        chat.send("/export notes\r")
        chat.expect(r"error: cannot write \S+notes: it is not a regular file")
        chat.send("/export notes/hard.md\r")
        chat.expect(r"Exported this session \(Markdown\) to \S+hard\.md")
        chat.send("/export notes/shared.md\r")
        chat.expect(r"Exported this session \(Markdown\) to \S+shared\.md")
        chat.expect("›")
        finish(chat)

    assert victim.read_text() == "precious" and (notes / "link.md").is_symlink()
    assert not (outside / "created.md").exists() and (notes / "dangling.md").is_symlink()
    assert hard_victim.read_text() == "also precious"  # the name was replaced, not written
    for written in (notes / "hard.md", shared):
        assert "sk-secret-123" in written.read_text()
        assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert sorted(os.listdir(outside)) == ["hard.txt", "victim.txt"]
