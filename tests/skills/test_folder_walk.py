"""The walk of a skill folder: its own stack, a depth cap, and what it leaves out is said."""

from __future__ import annotations

import os
from pathlib import Path

from agent.skills.activation import skill_files
from agent.skills.fingerprint import skill_digest
from agent.skills.folder_walk import FolderWalk
from agent.skills.model import Skill
from agent.tools.pinned_folder import pin_folder
from tests.skills.skills_helpers import make_skill


def build_deploy(root: Path) -> Skill:
    """A skill with nested, hidden, linked and special entries."""
    skill = make_skill(root, "deploy", scope="project")
    folder = skill.directory
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.sh").write_text("echo run\n")
    (folder / "references" / "deeper").mkdir(parents=True)
    (folder / "references" / "x.md").write_text("x\n")
    (folder / "references" / "deeper" / "y.md").write_text("y\n")
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "h.md").write_text("h\n")
    (folder / "a-file.md").write_text("a\n")
    (folder / "linked-dir").symlink_to("references", target_is_directory=True)
    (folder / "linked-file").symlink_to("a-file.md")
    os.mkfifo(folder / "pipe")
    return skill


def test_fingerprints_and_listings_are_those_of_the_os_walk_they_replace(tmp_path: Path) -> None:
    skill = build_deploy(tmp_path)

    # Computed with the os.walk version: trust already recorded stays valid.
    assert skill_digest(skill).sha256 == (
        "ff30fba2f0e34045ea1f392ff6ba82a7b61423f21aadb9cd2053f6f458b4010f"
    )
    # Links are left out of the listing (never read through), but count in the fingerprint.
    assert skill_files(pin_folder(skill.directory)) == [
        "a-file.md",
        "pipe",
        "references/x.md",
        "references/deeper/y.md",
        "scripts/run.sh",
    ]


def test_a_walk_enters_no_folder_deeper_than_its_cap_and_says_it_left_something_out(
    tmp_path: Path,
) -> None:
    (tmp_path / "a" / "b" / "c" / "d").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c" / "d" / "deep.md").write_text("deep\n")
    (tmp_path / "top.md").write_text("top\n")

    capped = FolderWalk(tmp_path, max_depth=2)
    seen = [(folder.relative, folder.dirs, folder.files) for folder in capped]
    whole = FolderWalk(tmp_path, max_depth=4)
    entered = [folder.relative for folder in whole]

    assert seen == [((), ["a"], ["top.md"]), (("a",), ["b"], []), (("a", "b"), ["c"], [])]
    assert capped.incomplete
    assert entered == [(), ("a",), ("a", "b"), ("a", "b", "c"), ("a", "b", "c", "d")]
    assert not whole.incomplete


def test_a_skill_folder_past_the_longest_path_is_fingerprinted_whole(
    tmp_path: Path,
) -> None:
    skill = make_skill(tmp_path, "deploy", scope="project")
    within = skill_digest(skill)
    # Twenty folders of 250 characters: within the depth cap, past PATH_MAX (4096), so the
    # bottom cannot be listed by its path; the fingerprint walks by descriptor, so it is.
    handle = os.open(skill.directory, os.O_RDONLY)
    for _ in range(20):
        os.mkdir("d" * 250, dir_fd=handle)
        inner = os.open("d" * 250, os.O_RDONLY, dir_fd=handle)
        os.close(handle)
        handle = inner
    bottom = os.open("hidden.md", os.O_WRONLY | os.O_CREAT, dir_fd=handle)
    os.write(bottom, b"changes here went unnoticed\n")
    os.close(bottom)
    os.close(handle)

    deep = skill_digest(skill)

    assert (within.over_cap, deep.over_cap) == (False, False)
    assert deep.sha256 != within.sha256
    assert any(name.endswith("/hidden.md") for name, _, _ in deep.files)
