"""A hook that is a link to a script of the project (the usual `ln -s ../../scripts/pre-commit
.git/hooks/pre-commit`) runs that script at the next commit: the script is read-only to a
fenced command as the hook is.

Attack (issue 39's review of finding 6): `.git` is mounted read-only, but git follows the
hook's link, and the script it names lay in the writable project: an approved, sandboxed
command appended a line to `scripts/pre-commit`, and the person's next `git commit` ran it
outside any sandbox. The same for a link in the hooks folder core.hooksPath names.
"""

from __future__ import annotations

import os
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


APPEND = "echo 'touch {planted}' >> scripts/pre-commit"
# The folder holding the script moved away, and another put in its place (a link, or a folder).
MOVE_AND_LINK = (
    "mv scripts old && mkdir evil && echo 'touch {planted}' > evil/pre-commit && ln -s evil scripts"
)
MOVE_AND_MAKE = (
    "mv scripts old && mkdir scripts && printf '#!/bin/sh\\ntouch {planted}\\n' "
    "> scripts/pre-commit && chmod +x scripts/pre-commit"
)


@pytest.mark.parametrize(
    ("hooks", "attack"),
    [(".git/hooks", APPEND), ("tools/hooks", APPEND), (".git/hooks", MOVE_AND_LINK),
     (".git/hooks", MOVE_AND_MAKE)],
)  # fmt: skip
def test_a_script_a_hook_links_to_cannot_be_changed_by_a_fenced_command(
    fenced: Path, hooks: str, attack: str
) -> None:
    project = fenced / "project"
    project.mkdir()
    git(project, "init", "-q")
    if hooks != ".git/hooks":
        git(project, "config", "core.hooksPath", hooks)
    (project / hooks).mkdir(parents=True, exist_ok=True)
    script = project / "scripts" / "pre-commit"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\ntrue\n")
    script.chmod(0o755)
    os.symlink(os.path.relpath(script, project / hooks), project / hooks / "pre-commit")
    planted = fenced / "planted"

    _, result = run(
        make_tool(fenced),
        argv=["sh", "-c", attack.format(planted=planted) + "; echo finished"],
    )

    assert "finished" in result.text, result.text
    assert not (project / "scripts").is_symlink(), result.text
    if (project / "scripts" / "pre-commit").exists():
        assert script.read_text() == "#!/bin/sh\ntrue\n", result.text
    git(project, "commit", "-q", "--allow-empty", "-m", "next commit")
    assert not planted.exists()


def test_a_hook_hard_linked_to_a_project_script_is_put_back(fenced: Path) -> None:
    """`ln scripts/pre-commit .git/hooks/pre-commit`: one file, two names; the read-only
    `.git` holds the name, not the file, which the command wrote through the other name."""
    project = fenced / "project"
    project.mkdir()
    git(project, "init", "-q")
    script = project / "scripts" / "pre-commit"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\ntrue\n")
    script.chmod(0o755)
    os.link(script, project / ".git" / "hooks" / "pre-commit")
    planted = fenced / "planted"

    _, result = run(
        make_tool(fenced),
        argv=["sh", "-c", f"echo 'touch {planted}' >> scripts/pre-commit; echo finished"],
    )

    assert "finished" in result.text, result.text
    assert (project / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\ntrue\n"
    git(project, "commit", "-q", "--allow-empty", "-m", "next commit")
    assert not planted.exists()
    assert "pre-commit" in result.text


def test_a_hook_of_the_enclosing_repository_linking_into_the_project(fenced: Path) -> None:
    """A monorepo's `.git/hooks/pre-commit` -> `../../project/scripts/pre-commit`, the agent
    started in `monorepo/project`: that script is the monorepo's hook."""
    outer = fenced / "monorepo"
    outer.mkdir()
    git(outer, "init", "-q")
    project = outer / "project"
    script = project / "scripts" / "pre-commit"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\ntrue\n")
    script.chmod(0o755)
    os.symlink("../../project/scripts/pre-commit", outer / ".git" / "hooks" / "pre-commit")
    planted = fenced / "planted"

    _, result = run(
        make_tool(outer),
        argv=["sh", "-c", f"echo 'touch {planted}' >> scripts/pre-commit; echo finished"],
    )

    assert "finished" in result.text, result.text
    assert script.read_text() == "#!/bin/sh\ntrue\n", result.text
    git(outer, "commit", "-q", "--allow-empty", "-m", "next commit")
    assert not planted.exists()
