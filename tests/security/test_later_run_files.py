"""What git or a hook manager of the project runs later, outside any sandbox, is not the fenced
command's to change, and the file tools change it only under a warning.

Attacks (issue 39, finding 6): husky 9 points core.hooksPath at `.husky/_`, whose stubs run
`.husky/pre-commit`; an approved, sandboxed command appended a line to that file and the
person's next `git commit` ran it unfenced. The same with pre-commit's and lefthook's
configuration (a `run:` line is a command), lefthook's script folders, and a nested
repository's `.git/hooks`. A config that is not there yet (lefthook-local.yml merges into the
team's config) is created by the command instead: it is taken away after the run, said so.
The file tools reach the same files only through the approval, which says git runs them later.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.pty_chat import finish, scripted_chat
from tests.security.run_command_helpers import fake_home, folder_outside_tmp, make_tool, run

# husky 9's stub, in short: `.husky/_/pre-commit` runs `.husky/pre-commit`.
HUSKY_STUB = '#!/bin/sh\nexec sh "$(dirname "$(dirname "$0")")/$(basename "$0")" "$@"\n'
WARNING = "git runs this later, outside any sandbox"


@pytest.fixture
def fenced(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder under /var/tmp (the sandbox's /tmp is its own) with a home in it."""
    for folder in folder_outside_tmp():
        fake_home(folder, monkeypatch)
        yield folder


def git(cwd: Path, *args: str) -> str:
    environment = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    environment.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                       GIT_COMMITTER_EMAIL="t@t")  # fmt: skip
    done = subprocess.run(["git", *args], cwd=cwd, env=environment, capture_output=True,
                          text=True, timeout=60, check=True)  # fmt: skip
    return done.stdout


def husky_project(project: Path) -> dict[Path, str]:
    """A repository as husky 9, pre-commit and lefthook leave it, with a nested repository;
    what each file holds."""
    project.mkdir(exist_ok=True)
    git(project, "init", "-q")
    git(project, "config", "core.hooksPath", ".husky/_")
    files = {
        project / ".husky" / "_" / "pre-commit": HUSKY_STUB,
        project / ".husky" / "pre-commit": "true\n",
        project / ".pre-commit-config.yaml": "repos: []\n",
        project / "lefthook.yml": "pre-commit:\n  commands: {}\n",
        project / ".lefthook" / "pre-commit" / "lint.sh": "true\n",
        project / "vendor" / "lib" / "README": "a nested repository\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (project / ".husky" / "_" / "pre-commit").chmod(0o755)
    git(project / "vendor" / "lib", "init", "-q")
    return files


def test_a_fenced_command_cannot_change_what_git_or_a_hook_manager_runs_later(
    fenced: Path,
) -> None:
    project = fenced / "project"
    files = husky_project(project)
    nested_hook = project / "vendor" / "lib" / ".git" / "hooks" / "pre-commit"
    planted = fenced / "planted"
    attempts = [
        f"echo 'touch {planted}' >> .husky/pre-commit",
        "echo 'touch x' > .husky/pre-push",
        "echo 'repos: [{repo: local}]' > .pre-commit-config.yaml",
        "mv lefthook.yml lefthook.old",
        "echo 'touch x' >> .lefthook/pre-commit/lint.sh",
        f"echo 'touch x' > {nested_hook.relative_to(project)}",
    ]
    script = "".join(f"({step}) 2>/dev/null && echo 'WROTE: {step}'\n" for step in attempts)
    _, result = run(make_tool(fenced), argv=["sh", "-c", script + "echo finished"])

    assert "finished" in result.text, result.text
    assert "WROTE" not in result.text
    for path, text in files.items():
        assert path.read_text() == text
    assert not (project / ".husky" / "pre-push").exists()
    assert not nested_hook.exists()
    # The person's next commit runs the husky hook, as it was.
    git(project, "commit", "-q", "--allow-empty", "-m", "next commit")
    assert not planted.exists()


def test_a_hook_manager_config_a_command_creates_is_taken_away_and_said(fenced: Path) -> None:
    project = fenced / "project"
    husky_project(project)
    (project / "src").mkdir()
    script = (
        "echo 'pre-commit: {commands: {x: {run: touch pwned}}}' > lefthook-local.yml\n"
        "mkdir -p .lefthook-local/pre-commit && echo 'touch pwned' > .lefthook-local/pre-commit/x\n"
        "echo 'work' > src/made.txt\n"
    )
    _, result = run(make_tool(fenced), argv=["sh", "-c", script])

    assert not (project / "lefthook-local.yml").exists()
    assert not (project / ".lefthook-local").exists()
    assert (project / "src" / "made.txt").read_text() == "work\n"  # the rest of its work stays
    assert "lefthook-local.yml" in result.text and ".lefthook-local" in result.text
    assert "removed" in result.text


def call(call_id: str, name: str, **arguments: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def test_the_file_tools_change_what_git_runs_later_only_under_a_warning(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    husky_project(project)
    turns = [
        call("c1", "edit_file", path=".husky/pre-commit", old_text="true", new_text="npm test"),
        call("c2", "write_file", path=".pre-commit-config.yaml", content="repos: [x]\n"),
        call("c3", "write_file", path="lefthook-local.yml", content="pre-commit: {}\n"),
        call("c4", "write_file", path="src/app.py", content="print('hi')\n"),
        call("c5", "write_file", path="vendor/lib/.git/hooks/pre-commit", content="x\n"),
        {"text": "Done."},
    ]
    with scripted_chat(tmp_path, turns, chat_env, project) as (chat, fake):
        chat.expect("›")
        chat.send("set up the hooks\r")
        for path, why in (
            (".husky/pre-commit", "husky's hooks"),
            (".pre-commit-config.yaml", "pre-commit's configuration"),
            ("lefthook-local.yml", "lefthook's configuration"),
        ):
            chat.expect(f"file: {path} ")
            chat.expect("Approve\\?")
            assert WARNING in chat.before and why in chat.before, chat.before
            chat.send("y")
        chat.expect("file: src/app.py ")
        chat.expect("Approve\\?")
        assert WARNING not in chat.before
        chat.send("y")
        chat.expect("Done.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert (project / ".husky" / "pre-commit").read_text() == "npm test\n"
    assert (project / "lefthook-local.yml").read_text() == "pre-commit: {}\n"
    refused = str(requests[5]["body"]["messages"][-1]["content"])
    assert "version control's own folder" in refused
    assert not (project / "vendor" / "lib" / ".git" / "hooks" / "pre-commit").exists()
