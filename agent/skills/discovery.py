"""Finding skills: `<root>/<dir>/SKILL.md` in the bundled, user and project scopes.

Scopes, lowest to highest precedence: bundled (shipped with the app), user (`~/.agents/skills`),
project (`<project>/.agents/skills`). A higher scope shadows a lower one of the same name. Two
skills of one name in one scope: the first by directory name is kept, the other is skipped with
an error naming both. Discovery runs at every start, so it reads each SKILL.md once and does
nothing else per skill (bench/skills_discovery.py measures 500).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from agent.skills.model import (
    SCOPE_PRECEDENCE,
    Diagnostic,
    Discovery,
    Scope,
    Shadowing,
    Skill,
    SkippedSkill,
)
from agent.skills.names import skill_key
from agent.skills.parse import SKILL_FILE, parse_skill_bytes
from agent.tools.pinned_folder import MovedFolderError, opened, pin_folder

SKILLS_FOLDER = Path(".agents") / "skills"


def user_skills_dir() -> Path:
    """`~/.agents/skills` (from HOME, so tests can point it elsewhere)."""
    return Path.home() / SKILLS_FOLDER


def project_skills_dir(project_dir: Path) -> Path:
    """`<project>/.agents/skills`."""
    return project_dir / SKILLS_FOLDER


def skill_roots(
    project_dir: Path, *, user_dir: Path | None = None, bundled_dir: Path | None = None
) -> list[tuple[Scope, Path]]:
    """The folders searched, lowest precedence first.

    A folder reached twice (a project in the home directory makes `<project>/.agents/skills`
    the user folder) is searched once, in the lower scope: those skills are the person's own.
    """
    if bundled_dir is None:
        from agent.resources import bundled_skills_dir

        bundled_dir = bundled_skills_dir()
    candidates: list[tuple[Scope, Path]] = [
        ("bundled", bundled_dir),
        ("user", user_skills_dir() if user_dir is None else user_dir),
        ("project", project_skills_dir(project_dir)),
    ]
    roots: list[tuple[Scope, Path]] = []
    seen: set[str] = set()
    for scope, root in candidates:
        real = os.path.realpath(root)
        if real not in seen:
            seen.add(real)
            roots.append((scope, root))
    return roots


def discover_skills(
    project_dir: Path, *, user_dir: Path | None = None, bundled_dir: Path | None = None
) -> Discovery:
    """Every skill in the three scopes: the effective ones by name, the shadowed, the skipped."""
    found: list[Skill] = []
    skipped: list[SkippedSkill] = []
    for scope, root in skill_roots(project_dir, user_dir=user_dir, bundled_dir=bundled_dir):
        skills, problems = scan_root(root, scope)
        found.extend(skills)
        skipped.extend(problems)
    effective, shadowed = resolve_precedence(found)
    return Discovery(skills=effective, shadowed=shadowed, skipped=tuple(skipped))


def scan_root(root: Path, scope: Scope) -> tuple[list[Skill], list[SkippedSkill]]:
    """The skills of one scope folder (same-name duplicates skipped), and the skipped files."""
    try:
        with os.scandir(root) as entries:
            names = sorted(
                entry.name for entry in entries if not entry.name.startswith(".") and _is_dir(entry)
            )
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    except OSError as error:
        message = f"the skills folder cannot be read: {error.strerror or error}"
        return [], [SkippedSkill(root, scope, (Diagnostic("error", message),))]
    skills: list[Skill] = []
    skipped: list[SkippedSkill] = []
    kept: dict[str, Skill] = {}
    for name in names:
        result = _read_skill(root / name, scope)
        if result is None:
            continue
        if isinstance(result, SkippedSkill):
            skipped.append(result)
            continue
        key = skill_key(result.name)
        first = kept.get(key)
        if first is None:
            kept[key] = result
            skills.append(result)
            continue
        message = (
            f"skill name {result.name!r} is already used by {first.path} in the same "
            f"({scope}) folder; this one is skipped: rename one, so that each name matches "
            "its directory"
        )
        skipped.append(SkippedSkill(result.path, scope, (Diagnostic("error", message),)))
    return skills, skipped


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows symlinks: installers often link skill folders
    except OSError:
        return False


def _read_skill(directory: Path, scope: Scope) -> Skill | SkippedSkill | None:
    """The skill in `directory`; None when it holds no SKILL.md (it is not a skill).

    The folder is pinned first and SKILL.md read through that very folder: the skill is that
    folder from now on, wherever its name leads later (agent.tools.pinned_folder)."""
    path = directory / SKILL_FILE
    try:
        folder = pin_folder(directory)
        with opened(folder) as fd:
            data = _read_all(SKILL_FILE, fd)
    except FileNotFoundError:
        return _misnamed_skill_file(directory, scope)
    except (OSError, MovedFolderError) as error:
        reason = error.strerror if isinstance(error, OSError) else None
        message = f"cannot be read: {reason or error}"
        return SkippedSkill(path, scope, (Diagnostic("error", message),))
    skill = parse_skill_bytes(data, path, scope)
    return replace(skill, folder=folder) if isinstance(skill, Skill) else skill


def _read_all(name: str, folder: int) -> bytes:
    fd = os.open(name, os.O_RDONLY, dir_fd=folder)  # a linked SKILL.md is read, as before
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _misnamed_skill_file(directory: Path, scope: Scope) -> SkippedSkill | None:
    # Only folders without SKILL.md get here, so this listing costs nothing in the usual case.
    try:
        names = os.listdir(directory)
    except OSError:
        return None
    misnamed = next((n for n in sorted(names) if n.lower() == SKILL_FILE.lower()), None)
    if misnamed is None:
        return None
    message = f"the file must be named exactly {SKILL_FILE}, not {misnamed}: rename it"
    return SkippedSkill(directory / misnamed, scope, (Diagnostic("error", message),))


def resolve_precedence(
    skills: Iterable[Skill],
) -> tuple[tuple[Skill, ...], tuple[Shadowing, ...]]:
    """The effective skill per name (the highest scope wins), sorted by name, and what it hid.

    Give each scope's skills without same-name duplicates (as scan_root returns them); among
    equals of one scope, the first given wins.
    """
    rank = {scope: index for index, scope in enumerate(SCOPE_PRECEDENCE)}
    by_key: dict[str, list[Skill]] = {}
    for skill in skills:
        by_key.setdefault(skill_key(skill.name), []).append(skill)
    effective: list[Skill] = []
    shadowed: list[Shadowing] = []
    for key in sorted(by_key):
        group = sorted(by_key[key], key=lambda skill: -rank[skill.scope])
        winner = group[0]
        effective.append(winner)
        shadowed.extend(Shadowing(winner=winner, hidden=hidden) for hidden in group[1:])
    return tuple(effective), tuple(shadowed)
