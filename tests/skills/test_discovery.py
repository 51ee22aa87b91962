"""Finding skills in the bundled, user and project scopes; precedence and shadowing."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.resources import bundled_skills_dir
from agent.skills.discovery import discover_skills, skill_roots
from agent.skills.model import Diagnostic, Discovery, Scope, Shadowing, Skill, SkippedSkill
from agent.skills.parse import parse_skill_file


def write_skill(root: Path, directory: str, name: str | None = None, body: str = "Body.") -> Path:
    """A valid SKILL.md in root/directory, declaring `name` (default: the directory)."""
    path = root / directory / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nname: {name or directory}\ndescription: The {directory} skill.\n---\n{body}\n",
        encoding="utf-8",
    )
    return path


class Scopes:
    """Three empty scope folders under tmp_path, passed explicitly: never the real ~/.agents."""

    def __init__(self, tmp_path: Path) -> None:
        self.project = tmp_path / "project"
        self.bundled = tmp_path / "bundled"
        self.user = tmp_path / "home" / ".agents" / "skills"
        self.project_skills = self.project / ".agents" / "skills"
        for folder in (self.project, self.bundled, self.user):
            folder.mkdir(parents=True)

    def discover(self) -> Discovery:
        return discover_skills(self.project, user_dir=self.user, bundled_dir=self.bundled)


@pytest.fixture
def scopes(tmp_path: Path) -> Scopes:
    return Scopes(tmp_path)


def skill(path: Path, scope: Scope) -> Skill:
    result = parse_skill_file(path, scope)
    assert isinstance(result, Skill)
    return result


def test_skills_of_every_scope_are_found_and_sorted_by_name(scopes: Scopes) -> None:
    zeta = write_skill(scopes.bundled, "zeta")
    alpha = write_skill(scopes.user, "alpha")
    mid = write_skill(scopes.project_skills, "mid")

    assert scopes.discover() == Discovery(
        skills=(skill(alpha, "user"), skill(mid, "project"), skill(zeta, "bundled"))
    )


def test_a_higher_scope_shadows_a_lower_one_of_the_same_name_with_a_note(
    scopes: Scopes,
) -> None:
    bundled = skill(write_skill(scopes.bundled, "review"), "bundled")
    user = skill(write_skill(scopes.user, "review"), "user")
    project = skill(write_skill(scopes.project_skills, "review"), "project")
    only_user = skill(write_skill(scopes.user, "notes"), "user")

    discovery = scopes.discover()

    assert discovery == Discovery(
        skills=(only_user, project),
        shadowed=(
            Shadowing(winner=project, hidden=user),
            Shadowing(winner=project, hidden=bundled),
        ),
    )
    assert discovery.shadowed[0].note() == (
        f"skill 'review' (project, {project.path}) shadows the user skill of the same name "
        f"({user.path})"
    )


def test_names_are_compared_after_nfkc_normalisation_and_case_folding(scopes: Scopes) -> None:
    user = skill(write_skill(scopes.user, "pdf"), "user")
    project = skill(write_skill(scopes.project_skills, "ｐｄｆ", name="PDF"), "project")

    discovery = scopes.discover()

    assert discovery.skills == (project,)
    assert discovery.shadowed == (Shadowing(winner=project, hidden=user),)
    assert discovery.find("pdf") == project


def test_two_skills_of_one_name_in_one_scope_keep_the_first_directory_and_skip_the_other(
    scopes: Scopes,
) -> None:
    first = skill(write_skill(scopes.user, "pdf"), "user")
    second = write_skill(scopes.user, "pdf-v2", name="pdf")

    assert scopes.discover() == Discovery(
        skills=(first,),
        skipped=(
            SkippedSkill(
                second,
                "user",
                (
                    Diagnostic(
                        "error",
                        f"skill name 'pdf' is already used by {first.path} in the same (user) "
                        "folder; this one is skipped: rename one, so that each name matches its "
                        "directory",
                    ),
                ),
            ),
        ),
    )


def test_dot_directories_files_folders_without_skill_md_and_deeper_levels_are_ignored(
    scopes: Scopes,
) -> None:
    kept = write_skill(scopes.user, "kept")
    write_skill(scopes.user, ".hidden")
    write_skill(scopes.user / ".git", "inside-git")
    write_skill(scopes.user / "group", "nested")  # two levels down: not a skill of this scope
    (scopes.user / "README.md").write_text("# My skills\n", encoding="utf-8")
    (scopes.user / "empty").mkdir()

    assert scopes.discover() == Discovery(skills=(skill(kept, "user"),))


def test_a_symlinked_skill_folder_is_followed(scopes: Scopes, tmp_path: Path) -> None:
    elsewhere = write_skill(tmp_path / "checkout", "linked")
    (scopes.user / "linked").symlink_to(elsewhere.parent, target_is_directory=True)

    discovery = scopes.discover()

    assert [(s.name, s.path) for s in discovery.skills] == [
        ("linked", scopes.user / "linked" / "SKILL.md")
    ]


def test_broken_skills_are_reported_as_skipped_with_their_scope(scopes: Scopes) -> None:
    broken = scopes.project_skills / "broken" / "SKILL.md"
    broken.parent.mkdir(parents=True)
    broken.write_text("# no frontmatter\n", encoding="utf-8")
    misnamed = scopes.user / "lower" / "skill.md"
    misnamed.parent.mkdir(parents=True)
    misnamed.write_text("---\nname: lower\ndescription: d\n---\nBody.\n", encoding="utf-8")

    assert scopes.discover() == Discovery(
        skipped=(
            SkippedSkill(
                misnamed,
                "user",
                (
                    Diagnostic(
                        "error", "the file must be named exactly SKILL.md, not skill.md: rename it"
                    ),
                ),
            ),
            SkippedSkill(
                broken,
                "project",
                (
                    Diagnostic(
                        "error",
                        "has no frontmatter: the file must start with a line ---, then name: "
                        "and description:, then a line ---",
                    ),
                ),
            ),
        )
    )


def test_missing_scope_folders_mean_no_skills(tmp_path: Path) -> None:
    assert (
        discover_skills(
            tmp_path / "project", user_dir=tmp_path / "nowhere", bundled_dir=tmp_path / "none"
        )
        == Discovery()
    )


def test_user_skills_default_to_agents_skills_in_the_home_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    mine = write_skill(home / ".agents" / "skills", "mine")

    discovery = discover_skills(tmp_path / "project", bundled_dir=tmp_path / "none")

    assert discovery == Discovery(skills=(skill(mine, "user"),))


def test_a_project_in_the_home_directory_finds_its_skills_once_as_the_persons_own(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    mine = write_skill(home / ".agents" / "skills", "mine")

    discovery = discover_skills(
        home, user_dir=home / ".agents" / "skills", bundled_dir=tmp_path / "none"
    )

    assert discovery == Discovery(skills=(skill(mine, "user"),))
    assert skill_roots(home, user_dir=home / ".agents/skills", bundled_dir=tmp_path / "b") == [
        ("bundled", tmp_path / "b"),
        ("user", home / ".agents/skills"),
    ]


def test_the_bundled_skills_are_found_by_default_and_validate_without_any_diagnostic(
    tmp_path: Path,
) -> None:
    discovery = discover_skills(tmp_path / "project", user_dir=tmp_path / "none")

    names = [s.name for s in discovery.skills]
    assert {"mcp-config", "skill-author"} <= set(names)
    assert [(s.name, s.scope, s.diagnostics) for s in discovery.skills] == [
        (name, "bundled", ()) for name in names
    ]
    assert (discovery.shadowed, discovery.skipped) == ((), ())
    for found in discovery.skills:
        assert found.directory.parent == bundled_skills_dir()
        assert len(found.body.splitlines()) < 500
        resources = [p for p in found.directory.rglob("*") if p.is_file() and p.name != "SKILL.md"]
        if found.name in ("mcp-config", "skill-author"):
            assert resources, f"{found.name} ships a resource file"
            for resource in resources:
                linked = str(resource.relative_to(found.directory))
                assert linked in found.body, f"{found.name} links {linked} from its body"
