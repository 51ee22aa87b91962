"""`agent skills list|show|validate`: what discovery finds, without starting a chat.

Everything printed from a SKILL.md is sanitized: a skill is text someone else wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent.commands.output import say, table
from agent.errors import AgentError
from agent.skills.agent_discovery import (
    AgentDefinitions,
    definition_folders,
    discover_definitions,
)
from agent.skills.discovery import discover_skills, skill_roots
from agent.skills.model import SCOPE_PRECEDENCE, Diagnostic, Discovery, Skill, SkippedSkill
from agent.skills.names import skill_key
from agent.skills.off_reasons import definitions_off
from agent.skills.parse import SKILL_FILE, parse_skill_file
from agent.skills.trust import SkillTrustStore
from agent.text import plural, sanitize_line

_INDENT = "    "


def list_skills(project_dir: Path) -> int:
    """Every skill found: name, scope, status, path, and each one's diagnostics below it."""
    discovery = discover_skills(project_dir)
    project_set = [skill for skill in discovery.skills if skill.scope == "project"]
    # The skills' own decision (instruction files are decided one by one, see skills/trust.py).
    trust = SkillTrustStore().state(project_dir, project_set).skills
    rows: list[tuple[list[str], list[str]]] = []
    hidden_by: dict[int, Skill] = {id(s.hidden): s.winner for s in discovery.shadowed}
    valid = [*discovery.skills, *(s.hidden for s in discovery.shadowed)]
    valid.sort(key=lambda s: (skill_key(s.name), -_scope_rank(s)))
    for skill in valid:
        winner = hidden_by.get(id(skill))
        notes = [_diagnostic_line(d) for d in skill.diagnostics]
        if winner is not None:
            status = "shadowed"
            notes.insert(0, f"note: hidden by the {winner.scope} skill at {winner.path}")
        else:
            status = "warnings" if skill.diagnostics else "ok"
        if skill.scope == "project" and trust != "trusted":
            status = "untrusted" if trust == "ask" else "declined"
            notes.insert(0, "note: off until you trust this project's skills (agent skills trust)")
        rows.append(([skill.name, skill.scope, status, str(skill.path)], notes))
    for skipped in discovery.skipped:
        name = _skipped_name(skipped)
        notes = [_diagnostic_line(d) for d in skipped.diagnostics]
        rows.append(([name, skipped.scope, "skipped", str(skipped.path)], notes))
    if rows:
        _say_rows(rows)
    else:
        say("No skills found.")
    say()
    say("Searched, lowest precedence first (a skill shadows one of the same name above it):")
    for scope, root in skill_roots(project_dir):
        say(f"  {scope}: {sanitize_line(str(root))}")
    _list_definitions(project_dir)
    return 0


def _list_definitions(project_dir: Path) -> None:
    """The subagent definitions found, as the skills are listed (nothing when none is)."""
    found = discover_definitions(project_dir)
    if not (found.definitions or found.hidden or found.skipped):
        return
    on = {d.label for d in found.usable(_trusted_definitions(project_dir, found))}
    theirs_off = [d for d in found.project() if d.label not in on]
    off = definitions_off(SkillTrustStore(), project_dir, theirs_off, pending=False)
    winners = {d.key: d for d in found.definitions}
    rows: list[tuple[list[str], list[str]]] = []
    for definition in sorted((*found.definitions, *found.hidden), key=lambda d: d.key):
        notes = [_diagnostic_line(d) for d in definition.diagnostics]
        winner = winners[definition.key]
        if definition.label in off:
            status = "declined" if off[definition.label].startswith("declined") else "untrusted"
            mine = next((d for d in found.usable(()) if d.key == definition.key), None)
            instead = f"; until then the user definition at {mine.path} is used" if mine else ""
            notes.insert(0, f"note: off: {off[definition.label]}{instead}")
        elif definition is not winner and winner.label in on:
            status = "shadowed"
            notes.insert(0, f"note: hidden by the {winner.scope} definition at {winner.path}")
        elif definition is not winner:  # in use while the project's of its name is not
            status = "warnings" if definition.diagnostics else "ok"
            notes.insert(
                0, f"note: the project definition at {winner.path} replaces it once trusted"
            )
        else:
            status = "warnings" if definition.diagnostics else "ok"
        rows.append(([definition.name, definition.scope, status, str(definition.path)], notes))
    for skipped in found.skipped:
        notes = [_diagnostic_line(d) for d in skipped.diagnostics]
        rows.append(([skipped.path.stem, skipped.scope, "skipped", str(skipped.path)], notes))
    say()
    say("Subagent definitions (the project's are used once trusted: agent skills trust):")
    _say_rows(rows)
    say()
    say("Searched, lowest precedence first (a definition hides one of the same name above it):")
    for scope, folder in definition_folders(project_dir):
        say(f"  {scope}: {sanitize_line(str(folder))}")


def _trusted_definitions(project_dir: Path, found: AgentDefinitions) -> tuple[str, ...]:
    return SkillTrustStore().state(project_dir, [], [], found.project()).trusted_agents


def _say_rows(rows: list[tuple[list[str], list[str]]]) -> None:
    """A table of NAME SCOPE STATUS PATH, each row's notes indented below it."""
    lines = table(("NAME", "SCOPE", "STATUS", "PATH"), [cells for cells, _ in rows])
    header, *body = lines.split("\n")
    say(header)
    for line, (_, notes) in zip(body, rows, strict=True):
        say(line)
        for note in notes:
            say(_INDENT + sanitize_line(note))


def show_skill(project_dir: Path, name: str) -> int:
    """One skill: its frontmatter fields, where it is, its diagnostics, then its body."""
    discovery = discover_skills(project_dir)
    skill = discovery.find(name)
    if skill is None:
        return _show_missing(discovery, name)
    for key, value in skill.frontmatter.items():
        _say_field(key, value)
    say(f"scope: {skill.scope}")
    say(f"path: {sanitize_line(str(skill.path))}")
    for shadowing in discovery.shadowed:
        if shadowing.winner is skill:
            hidden = shadowing.hidden
            say(f"shadows: the {hidden.scope} skill at {sanitize_line(str(hidden.path))}")
    for diagnostic in skill.diagnostics:
        say(_diagnostic_line(diagnostic))
    say()
    say(skill.body)
    return 0


def _show_missing(discovery: Discovery, name: str) -> int:
    skipped = [s for s in discovery.skipped if skill_key(_skipped_name(s)) == skill_key(name)]
    if skipped:
        for entry in skipped:
            say(f"{sanitize_line(str(entry.path))}: skipped ({entry.scope})")
            for diagnostic in entry.diagnostics:
                say(f"{_INDENT}{_diagnostic_line(diagnostic)}")
        return 1
    known = ", ".join(s.name for s in discovery.skills) or "none were found"
    raise AgentError(
        f"no skill named {sanitize_line(name)!r} (skills: {sanitize_line(known)}); "
        "see agent skills list"
    )


def validate_paths(paths: Sequence[str]) -> int:
    """Check SKILL.md files (or skill folders, or folders of skills); 1 when any has an error."""
    files: list[Path] = []
    failed = False
    for raw in paths:
        found = _skill_files(Path(raw))
        if not found:
            say(
                f"{sanitize_line(raw)}: error: no {SKILL_FILE} here; give a {SKILL_FILE}, a "
                "skill folder, or a folder of skill folders"
            )
            failed = True
        files.extend(found)
    counts = {"ok": 0, "warnings": 0, "errors": 0}
    for path in files:
        result = parse_skill_file(path, "project")
        shown = sanitize_line(str(path))
        if isinstance(result, SkippedSkill):
            failed = True
            counts["errors"] += 1
        elif result.diagnostics:
            counts["warnings"] += 1
        else:
            counts["ok"] += 1
            say(f"{shown}: ok")
        for diagnostic in result.diagnostics:
            say(f"{shown}: {_diagnostic_line(diagnostic)}")
    if len(files) > 1:
        say(
            f"{plural(len(files), 'file')}: {counts['ok']} ok, "
            f"{counts['warnings']} with warnings only, "
            f"{counts['errors']} with errors"
        )
    return 1 if failed else 0


def _skill_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        return []
    if (path / SKILL_FILE).is_file():
        return [path / SKILL_FILE]
    # A folder of skills, such as .agents/skills: each skill folder one level down.
    return sorted(
        child / SKILL_FILE
        for child in path.iterdir()
        if not child.name.startswith(".") and (child / SKILL_FILE).is_file()
    )


def _say_field(key: str, value: object) -> None:
    label = sanitize_line(key)
    if isinstance(value, str) and "\n" in value.strip():
        say(f"{label}: |")
        for line in value.strip().split("\n"):
            say(f"  {sanitize_line(line)}")
    elif isinstance(value, dict):
        say(f"{label}:")
        for inner_key, inner_value in value.items():
            say(f"  {sanitize_line(str(inner_key))}: {_one_line(inner_value)}")
    elif isinstance(value, list):
        say(f"{label}:")
        for item in value:
            say(f"  - {_one_line(item)}")
    else:
        say(f"{label}: {_one_line(value)}")


def _one_line(value: object) -> str:
    return sanitize_line("" if value is None else str(value).strip())


def _diagnostic_line(diagnostic: Diagnostic) -> str:
    return sanitize_line(str(diagnostic))


def _skipped_name(skipped: SkippedSkill) -> str:
    # A skipped skill has no trustworthy name; its folder is what the person will look for.
    return (
        skipped.path.parent.name if skipped.path.name.lower() == "skill.md" else skipped.path.name
    )


def _scope_rank(skill: Skill) -> int:
    return SCOPE_PRECEDENCE.index(skill.scope)
