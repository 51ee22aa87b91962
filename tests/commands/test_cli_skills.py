"""`agent skills ...` as a person runs it: the real command in a subprocess, HOME in tmp."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.resources import bundled_skills_dir
from tests import deadlines
from tests.test_startup import imports_after

BUNDLED = bundled_skills_dir()


class Workspace:
    """A git project and a home directory, both under tmp_path."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.project = tmp_path / "project"
        (self.project / ".git").mkdir(parents=True)
        (self.project / "src").mkdir()
        self.home.mkdir()
        self.user_skills = self.home / ".agents" / "skills"
        self.project_skills = self.project / ".agents" / "skills"

    def agent(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run the app as a person would, from a subfolder of the project."""
        return subprocess.run(
            [sys.executable, "-m", "agent", *args],
            cwd=cwd or self.project / "src",
            env={**os.environ, "HOME": str(self.home)},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=deadlines.PROCESS,
            check=False,
        )


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def rows_outside_bundled(stdout: str) -> list[list[str]]:
    """The table rows (and diagnostic lines under them) that are not bundled skills."""
    lines = stdout.split("\n\nSearched")[0].splitlines()
    kept, skipping = [], False
    for line in lines[1:]:
        if not line.startswith(" "):
            skipping = line.split()[1] == "bundled"
        if not skipping:
            kept.append(line.split() if not line.startswith(" ") else [line.strip()])
    return kept


# --- list ----------------------------------------------------------------------------------


def test_list_shows_each_skill_with_scope_status_path_and_diagnostics(
    workspace: Workspace,
) -> None:
    user_review = write(
        workspace.user_skills / "review" / "SKILL.md",
        "---\nname: review\ndescription: Reviews code.\n---\nLook closely.\n",
    )
    project_review = write(
        workspace.project_skills / "review" / "SKILL.md",
        "---\nname: review\ndescription: Reviews code our way.\n---\nUse our checklist.\n",
    )
    upper = write(
        workspace.project_skills / "Deploy" / "SKILL.md",
        "---\nname: Deploy\ndescription: Deploys.\n---\nRun make deploy.\n",
    )
    broken = write(workspace.user_skills / "broken" / "SKILL.md", "no frontmatter\n")

    result = workspace.agent("skills", "list")

    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines()[0].split() == ["NAME", "SCOPE", "STATUS", "PATH"]
    off = "note: off until you trust this project's skills (agent skills trust)"
    assert rows_outside_bundled(result.stdout) == [
        ["Deploy", "project", "untrusted", str(upper)],
        [off],
        [
            "warning: name 'Deploy': the name may hold only lowercase letters, digits and "
            "hyphens; loaded anyway"
        ],
        ["review", "project", "untrusted", str(project_review)],
        [off],
        ["review", "user", "shadowed", str(user_review)],
        [f"note: hidden by the project skill at {project_review}"],
        ["broken", "user", "skipped", str(broken)],
        [
            "error: has no frontmatter: the file must start with a line ---, then name: and "
            "description:, then a line ---"
        ],
    ]
    assert result.stdout.endswith(
        "\nSearched, lowest precedence first (a skill shadows one of the same name above it):\n"
        f"  bundled: {BUNDLED}\n"
        f"  user: {workspace.user_skills}\n"
        f"  project: {workspace.project_skills}\n"
    )


def test_list_shows_escape_sequences_from_skill_files_as_visible_text(
    workspace: Workspace,
) -> None:
    write(
        workspace.project_skills / "evil" / "SKILL.md",
        '---\nname: "evil\\e[2J"\ndescription: d\n---\nBody.\n',
    )

    result = workspace.agent("skills", "list")

    assert result.returncode == 0
    assert "\x1b" not in result.stdout
    assert "evil\\x1b[2J" in result.stdout


# --- show ----------------------------------------------------------------------------------


def test_show_prints_the_fields_location_diagnostics_and_body(workspace: Workspace) -> None:
    path = write(
        workspace.project_skills / "release" / "SKILL.md",
        "---\n"
        "name: release\n"
        "description: Cuts a release. Use when asked to ship.\n"
        "metadata:\n"
        "  version: 1.10\n"
        "allowed-tools: [Read]\n"
        "---\n"
        "\n"
        "# Releasing\n"
        "\n"
        "1. Bump the version.\n",
    )
    user = write(
        workspace.user_skills / "release" / "SKILL.md",
        "---\nname: release\ndescription: Mine.\n---\nMine.\n",
    )

    result = workspace.agent("skills", "show", "release")

    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "name: release\n"
        "description: Cuts a release. Use when asked to ship.\n"
        "metadata:\n"
        "  version: 1.10\n"
        "allowed-tools:\n"
        "  - Read\n"
        "scope: project\n"
        f"path: {path}\n"
        f"shadows: the user skill at {user}\n"
        "warning: allowed-tools is a list; the portable form is one space-separated line: "
        "allowed-tools: Read\n"
        "\n"
        "# Releasing\n"
        "\n"
        "1. Bump the version.\n"
    )


def test_show_of_an_unknown_name_fails_and_lists_the_known_ones(workspace: Workspace) -> None:
    write(workspace.user_skills / "mine" / "SKILL.md", "---\nname: mine\ndescription: d\n---\nB\n")

    result = workspace.agent("skills", "show", "nope")

    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("agent: no skill named 'nope' (skills: ")
    assert "mine" in result.stderr
    assert result.stderr.endswith("); see agent skills list\n")


def test_show_of_a_skipped_skill_explains_why_and_fails(workspace: Workspace) -> None:
    path = write(workspace.user_skills / "broken" / "SKILL.md", "---\nname: broken\n")

    result = workspace.agent("skills", "show", "broken")

    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == (
        f"{path}: skipped (user)\n"
        "    error: the frontmatter opened on line 1 is never closed: add a line --- after its "
        "last field\n"
    )


# --- validate ------------------------------------------------------------------------------


def test_validate_reports_ok_warnings_and_errors_and_fails_only_on_errors(
    workspace: Workspace, tmp_path: Path
) -> None:
    good = write(tmp_path / "good" / "SKILL.md", "---\nname: good\ndescription: d\n---\nB\n")
    odd = write(tmp_path / "odd" / "SKILL.md", "---\nname: odd\ndescription: d\nx: 1\n---\nB\n")
    bad = write(tmp_path / "bad" / "SKILL.md", "---\nname: bad\n---\nB\n")

    fine = workspace.agent("skills", "validate", str(good.parent), str(odd))
    failing = workspace.agent("skills", "validate", str(bad), str(good))

    spec = "name, description, license, compatibility, metadata, allowed-tools"
    assert (fine.returncode, fine.stderr, fine.stdout) == (
        0,
        "",
        f"{good}: ok\n"
        f"{odd}: warning: unknown field 'x'; ignored. The spec's fields: {spec}\n"
        "2 files: 1 ok, 1 with warnings only, 0 with errors\n",
    )
    assert (failing.returncode, failing.stderr, failing.stdout) == (
        1,
        "",
        f"{bad}: error: description is missing: say what the skill does and when to use it\n"
        f"{good}: ok\n"
        "2 files: 1 ok, 0 with warnings only, 1 with errors\n",
    )


def test_validate_checks_every_skill_in_a_folder_of_skills(workspace: Workspace) -> None:
    write(workspace.project_skills / "one" / "SKILL.md", "---\nname: one\ndescription: d\n---\nB")
    write(workspace.project_skills / "two" / "SKILL.md", "---\nname: 2\ndescription: d\n---\nB")

    result = workspace.agent("skills", "validate", ".agents/skills", cwd=workspace.project)

    assert (result.returncode, result.stdout) == (
        0,
        ".agents/skills/one/SKILL.md: ok\n"
        ".agents/skills/two/SKILL.md: warning: name '2' differs from its directory "
        "'two'; loaded as '2': rename one so they match\n"
        "2 files: 1 ok, 1 with warnings only, 0 with errors\n",
    )


def test_validate_lists_every_problem_of_every_file_at_once(
    workspace: Workspace, tmp_path: Path
) -> None:
    first = write(tmp_path / "first" / "SKILL.md", "---\nname: other\nx: 1\n---\n")
    second = write(tmp_path / "second" / "SKILL.md", "---\ndescription: 3\n---\nB\n")
    third = write(tmp_path / "third" / "SKILL.md", "---\nname: third\ndescription: d\n---\nB\n")

    result = workspace.agent("skills", "validate", str(first), str(second), str(third))

    spec = "name, description, license, compatibility, metadata, allowed-tools"
    assert (result.returncode, result.stdout) == (
        1,
        f"{first}: error: description is missing: say what the skill does and when to use it\n"
        f"{first}: warning: name 'other' differs from its directory 'first'; loaded as "
        "'other': rename one so they match\n"
        f"{first}: warning: unknown field 'x'; ignored. The spec's fields: {spec}\n"
        f"{first}: warning: the body is empty: after the frontmatter, write the instructions "
        "the model follows when the skill is activated\n"
        f"{second}: warning: name is missing; using the directory name 'second': add name: "
        "second\n"
        f"{third}: ok\n"
        "3 files: 1 ok, 1 with warnings only, 1 with errors\n",
    )


def test_validate_of_a_path_without_a_skill_fails(workspace: Workspace, tmp_path: Path) -> None:
    result = workspace.agent("skills", "validate", str(tmp_path / "missing"))

    assert (result.returncode, result.stdout) == (
        1,
        f"{tmp_path / 'missing'}: error: no SKILL.md here; give a SKILL.md, a skill folder, or "
        "a folder of skill folders\n",
    )


def test_the_bundled_skills_validate_without_warnings(workspace: Workspace) -> None:
    result = workspace.agent("skills", "validate", str(BUNDLED))

    lines = result.stdout.splitlines()
    assert result.returncode == 0
    assert lines[:-1] == [
        f"{BUNDLED / name / 'SKILL.md'}: ok"
        for name in sorted(p.parent.name for p in BUNDLED.glob("*/SKILL.md"))
    ]
    assert len(lines) >= 3


# --- start-up cost -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [["skills", "list"], ["skills", "show", "mcp-config"], ["skills", "validate", str(BUNDLED)]],
)
def test_skills_commands_import_neither_litellm_nor_the_mcp_sdk(
    argv: list[str], workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(workspace.home))
    monkeypatch.chdir(workspace.project)

    status, loaded = imports_after(argv, tmp_path)

    assert (status, loaded) == (0, [])
