"""A project that lies inside a repository (an agent started in `monorepo/packages/app`): a
fenced command cannot put a repository of its own at the project's root, where it would take
the person's next `git commit` there, hooks and all.

Attack (issue 39's review of finding 6): the command ran `git init` in the project and wrote
`.git/hooks/pre-commit`. A repository a command makes is kept (its work, `git clone`) and
said; but here git, run in the project, used the enclosing repository before, and from then on
used the command's, running its hook outside any sandbox at the person's next commit.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.run_command_helpers import fake_home, folder_outside_tmp, make_tool, run
from tests.security.test_later_run_files import git


@pytest.fixture
def fenced(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for folder in folder_outside_tmp():
        fake_home(folder, monkeypatch)
        yield folder


def test_a_repository_made_over_the_enclosing_one_is_taken_away(fenced: Path) -> None:
    outer = fenced / "monorepo"
    outer.mkdir()
    git(outer, "init", "-q")
    tool = make_tool(outer)  # its project: monorepo/project, inside the repository
    project = outer / "project"
    planted = fenced / "planted"
    script = (
        "git init -q . && "
        f"printf '#!/bin/sh\\ntouch {planted}\\n' > .git/hooks/pre-commit && "
        "chmod +x .git/hooks/pre-commit && echo finished"
    )

    _, result = run(tool, argv=["sh", "-c", script])

    assert "finished" in result.text, result.text
    git(project, "commit", "-q", "--allow-empty", "-m", "the person's next commit")
    assert not planted.exists(), result.text
    assert not (project / ".git").exists()


def test_a_bare_repository_made_at_the_projects_root_is_taken_away(fenced: Path) -> None:
    """The same with a bare repository: git takes a folder holding HEAD, objects/ and refs/
    for one (before it looks further up), and its config's core.pager ran at `git branch`."""
    outer = fenced / "monorepo"
    outer.mkdir()
    git(outer, "init", "-q")
    tool = make_tool(outer)
    project = outer / "project"
    planted = fenced / "planted"
    script = (
        "mkdir objects refs && echo 'ref: refs/heads/main' > HEAD && "
        f"printf '[core]\\n\\tbare = true\\n\\tpager = \"touch {planted}; cat\"\\n' > config && "
        "echo finished"
    )

    _, result = run(tool, argv=["sh", "-c", script])

    assert "finished" in result.text, result.text
    said = git(project, "-c", "core.pager=cat", "rev-parse", "--show-toplevel")
    assert said.strip() == str(outer.resolve()), result.text  # the enclosing repository again
    assert not (project / "HEAD").exists()
