"""What of a project git or a hook manager runs later: found by mechanism (git's config, nested
repositories) and by the hook managers' names; what a mount cannot hold is put back."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.tools import later_run_files
from agent.tools.file_writing import FileRefusedError, Target, remove_entry
from agent.tools.later_run_files import (
    LaterRunWatch,
    later_run_reason,
    read_only_in_project,
    repository_roots,
)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def test_the_folder_holding_a_hooks_path_inside_the_project_is_read_only_too(
    project: Path,
) -> None:
    (project / ".git" / "config").write_text('[core]\n\thooksPath = ".husky/_"\n')
    (project / ".husky" / "_").mkdir(parents=True)
    (project / "src").mkdir()

    shown = read_only_in_project(project)

    assert shown == [project / ".git", project / ".husky"]  # .husky/_ lies in .husky
    assert later_run_reason(project, project / ".husky" / "pre-commit") == "husky's hooks"
    assert later_run_reason(project, project / "src" / "app.py") is None


def test_a_relative_hooks_path_in_the_persons_config_applies_to_the_project(
    project: Path, home: Path
) -> None:
    (home / ".gitconfig").write_text("[core]\n  hookspath = tools/git-hooks\n")
    (project / "tools" / "git-hooks").mkdir(parents=True)

    assert project / "tools" / "git-hooks" in read_only_in_project(project)
    reason = later_run_reason(project, project / "tools" / "git-hooks" / "pre-push")
    assert reason == "the hooks folder git's config names (core.hooksPath tools/git-hooks)"


def test_nested_repositories_and_worktrees_are_found_but_not_inside_dependencies(
    project: Path,
) -> None:
    (project / "vendor" / "lib" / ".git").mkdir(parents=True)
    (project / "packages" / "web").mkdir(parents=True)
    (project / "packages" / "web" / ".git").write_text("gitdir: ../../.git/worktrees/web\n")
    (project / "node_modules" / "dep" / ".git").mkdir(parents=True)
    (project / "outside-link").symlink_to(project / "vendor", target_is_directory=True)

    roots = repository_roots(project)

    assert sorted(roots) == [project, project / "packages" / "web", project / "vendor" / "lib"]
    shown = read_only_in_project(project)
    assert project / "vendor" / "lib" / ".git" in shown
    assert project / "packages" / "web" / ".git" in shown
    assert project / "node_modules" / "dep" / ".git" not in shown


def test_the_walk_stops_after_its_bound(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = project
    for index in range(5):
        deep = deep / f"level{index}"
    (deep / ".git").mkdir(parents=True)
    monkeypatch.setattr(later_run_files, "WALK_FOLDERS", 3)

    assert repository_roots(project) == [project]


def test_a_repository_found_once_stays_known_when_folders_push_it_out_of_reach(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "vendor" / "lib" / ".git").mkdir(parents=True)
    assert repository_roots(project) == [project, project / "vendor" / "lib"]
    for index in range(5):  # a command makes many folders beside it
        (project / f"filler{index}").mkdir()
    monkeypatch.setattr(later_run_files, "WALK_FOLDERS", 3)

    assert repository_roots(project) == [project, project / "vendor" / "lib"]
    assert project / "vendor" / "lib" / ".git" in read_only_in_project(project)


def test_the_hook_managers_names_are_known_at_every_repository_root(project: Path) -> None:
    (project / "vendor" / "lib" / ".git").mkdir(parents=True)
    for name in (".pre-commit-config.yaml", ".lefthook-local.jsonc", ".config/lefthook.toml"):
        reason = later_run_reason(project, project / "vendor" / "lib" / name)
        assert reason is not None and reason.endswith("configuration"), name
    assert later_run_reason(project, project / ".lefthook" / "pre-commit" / "x.sh") is not None
    assert later_run_reason(project, project / "docs" / "lefthook.yml") is None


def test_the_watch_takes_away_what_was_made_and_puts_a_replaced_link_back(
    project: Path,
) -> None:
    (project / "shared.yml").write_text("pre-commit: {}\n")
    (project / "lefthook.yml").symlink_to("shared.yml")
    (project / ".pre-commit-config.yaml").write_text("repos: []\n")
    watch = LaterRunWatch(project)
    (project / "lefthook.yml").unlink()
    (project / "lefthook.yml").write_text("pre-commit: {commands: {x: {run: evil}}}\n")
    (project / ".lefthook-local" / "pre-commit").mkdir(parents=True)
    (project / ".lefthook-local" / "pre-commit" / "x").write_text("evil\n")
    (project / "src").mkdir()
    (project / "src" / "work.txt").write_text("kept\n")

    lines, made = watch.take_back()

    assert made == []
    assert sorted(lines) == [
        ".lefthook-local: removed (git or a hook manager would run it later)",
        "lefthook.yml: removed, the link put back (git or a hook manager would run it later)",
    ]
    assert (project / "lefthook.yml").readlink() == Path("shared.yml")
    assert not (project / ".lefthook-local").exists()
    assert (project / ".pre-commit-config.yaml").read_text() == "repos: []\n"
    assert (project / "src" / "work.txt").read_text() == "kept\n"


def test_removal_never_follows_a_link_out_of_the_project(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "lefthook.toml").write_text("the person's own file\n")
    watch = LaterRunWatch(project)
    (project / ".config").symlink_to(outside, target_is_directory=True)

    lines, _made = watch.take_back()

    # The link made on the way is taken away (lefthook would read the file outside through
    # it); the file outside is never touched, and removal itself never follows a link.
    assert lines == [".config: removed (git or a hook manager would run it later)"]
    assert not (project / ".config").is_symlink()
    assert (outside / "lefthook.toml").read_text() == "the person's own file\n"
    (project / ".config").symlink_to(outside, target_is_directory=True)
    target = Target(project, (".config", "lefthook.toml"))
    with pytest.raises(FileRefusedError, match="on the way is a link"):
        remove_entry(target)


def test_a_gitdir_and_an_included_config_elsewhere_in_the_project_are_read_only(
    project: Path,
) -> None:
    (project / "team.gitconfig").write_text("[core]\n\thooksPath = tools/hooks\n")
    (project / ".git" / "config").write_text('[include]\n\tpath = "../team.gitconfig"\n')
    (project / "tools" / "hooks").mkdir(parents=True)
    (project / ".modules" / "lib").mkdir(parents=True)
    (project / "lib").mkdir()
    (project / "lib" / ".git").write_text("gitdir: ../.modules/lib\n")

    shown = read_only_in_project(project)

    for path in ("team.gitconfig", "tools/hooks", ".modules/lib", "lib/.git"):
        assert project / path in shown, path
    assert project / ".git" / "config" not in shown  # inside .git, shown read-only already
    assert later_run_reason(project, project / ".modules" / "lib" / "hooks" / "x") == (
        "a repository's own folder (gitdir)"
    )


def test_a_repository_the_command_made_stays_and_is_said(tmp_path: Path) -> None:
    from agent.messages import ToolResult

    project = tmp_path / "plain"
    project.mkdir()
    watch = LaterRunWatch(project)
    (project / ".git" / "hooks").mkdir(parents=True)  # git init
    (project / "vendor" / "lib" / ".git").mkdir(parents=True)  # git clone

    result = watch.noted(ToolResult("exit code 0"))

    assert (project / ".git" / "hooks").is_dir() and (project / "vendor" / "lib" / ".git").is_dir()
    assert result.text == (
        "exit code 0\n\nThe command made a git repository (vendor/lib/, the project): its hooks "
        "and config are what the command wrote, and git runs them when it is used there. Look "
        "at .git/hooks and .git/config before using git in it."
    )
