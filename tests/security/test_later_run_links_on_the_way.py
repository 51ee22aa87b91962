"""A name git or a hook manager reads later, reached through a folder a fenced command made a
link: what the command put there is taken away too, and nothing outside the project is.

Attack (issue 39's review of finding 6): `.config/lefthook.yml` is one of the names lefthook
reads; it was missing. A fenced command wrote `evil/lefthook.yml` and made `.config` a link to
`evil`. The watch saw the new file at `.config/lefthook.yml`, but taking it away walks down
without following a link, so it stopped at `.config` and only said "could not be put back": the
file stayed where lefthook reads it, for the person's next commit. The same through a link the
person made themselves (`.config` -> `dotfiles/config`): the command wrote at the link's target.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.run_command_helpers import fake_home, folder_outside_tmp, make_tool, run
from tests.security.test_later_run_files import git

PLANTED = "pre-commit: {commands: {x: {run: touch pwned}}}\n"


@pytest.fixture
def fenced(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for folder in folder_outside_tmp():
        fake_home(folder, monkeypatch)
        yield folder


def repository(project: Path) -> None:
    project.mkdir(exist_ok=True)
    git(project, "init", "-q")


def test_a_folder_made_a_link_on_the_way_to_a_hook_config_is_taken_away(fenced: Path) -> None:
    project = fenced / "project"
    repository(project)
    script = f"mkdir evil && printf '{PLANTED}' > evil/lefthook.yml && ln -s evil .config"
    _, result = run(make_tool(fenced), argv=["sh", "-c", script])

    assert not (project / ".config" / "lefthook.yml").exists(), result.text
    assert not (project / ".config").is_symlink()
    assert ".config" in result.text and "could not be put back" not in result.text


def test_a_link_on_the_way_to_outside_the_project_is_taken_away_not_followed(
    fenced: Path,
) -> None:
    project = fenced / "project"
    repository(project)
    outside = fenced / "outside"
    outside.mkdir()
    (outside / "lefthook.yml").write_text("the person's own file\n")
    _, result = run(make_tool(fenced), argv=["ln", "-s", str(outside), ".config"])

    assert (outside / "lefthook.yml").read_text() == "the person's own file\n"
    assert not (project / ".config").is_symlink(), result.text


def test_a_hook_config_written_through_the_persons_own_link_is_taken_away(fenced: Path) -> None:
    project = fenced / "project"
    repository(project)
    (project / "dotfiles" / "config").mkdir(parents=True)
    os.symlink("dotfiles/config", project / ".config")
    _, result = run(
        make_tool(fenced), argv=["sh", "-c", f"printf '{PLANTED}' > .config/lefthook.yml"]
    )

    assert not (project / "dotfiles" / "config" / "lefthook.yml").exists(), result.text
    assert os.readlink(project / ".config") == "dotfiles/config"  # the person's link stays


def test_a_hooks_folder_made_behind_the_persons_dangling_link_is_taken_away(
    fenced: Path,
) -> None:
    """core.hooksPath `.githooks`, a link to `hooks-src` that is not there (yet): the link
    itself is unchanged after the command, but what it leads to is the command's."""
    project = fenced / "project"
    repository(project)
    git(project, "config", "core.hooksPath", ".githooks")
    os.symlink("hooks-src", project / ".githooks")
    planted = fenced / "planted"
    script = (
        f"mkdir hooks-src && printf '#!/bin/sh\\ntouch {planted}\\n' > hooks-src/pre-commit"
        " && chmod +x hooks-src/pre-commit"
    )
    _, result = run(make_tool(fenced), argv=["sh", "-c", script])

    git(project, "commit", "-q", "--allow-empty", "-m", "the person's next commit")
    assert not planted.exists(), result.text
    assert os.readlink(project / ".githooks") == "hooks-src"
