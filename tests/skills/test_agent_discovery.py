"""Finding subagent definitions (issue 41): `.agents/agents` and Claude Code's `.claude/agents`,
the person's and the project's; project over user, `.agents` over `.claude`, what was hidden
said; an untrusted project definition hides nothing of the person's."""

from __future__ import annotations

from pathlib import Path

from agent.skills.agent_discovery import AgentDefinitions, discover_definitions


def write(folder: Path, name: str, description: str, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\nDo {name}.\n")
    return path


def places(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    return project, home


def by_name(found: AgentDefinitions) -> dict[str, str]:
    return {d.name: f"{d.scope} {d.label} {d.description}" for d in found.definitions}


def test_all_four_folders_are_read_and_precedence_is_project_then_agents(tmp_path: Path) -> None:
    project, home = places(tmp_path)
    write(home / ".claude" / "agents", "a", "user claude")
    write(home / ".claude" / "agents", "b", "user claude")
    write(home / ".agents" / "agents", "b", "user agents")
    write(home / ".claude" / "agents", "c", "user claude")
    write(project / ".claude" / "agents", "c", "project claude")
    write(project / ".claude" / "agents", "d", "project claude")
    write(project / ".agents" / "agents", "d", "project agents")
    write(home / ".agents" / "agents", "d", "user agents")

    found = discover_definitions(project, home=home)

    assert by_name(found) == {
        "a": "user ~/.claude/agents/a.md user claude",
        "b": "user ~/.agents/agents/b.md user agents",
        "c": "project ./.claude/agents/c.md project claude",
        "d": "project ./.agents/agents/d.md project agents",
    }
    d = next(x for x in found.definitions if x.name == "d")
    assert d.shadows == ("./.claude/agents/d.md", "~/.agents/agents/d.md")
    assert [x.name for x in found.project()] == ["c", "d"]
    notes = found.notes()
    assert (
        "subagent definition 'd' (./.agents/agents/d.md) hides ./.claude/agents/d.md and "
        "~/.agents/agents/d.md of the same name"
    ) in notes
    assert (
        "subagent definition 'b' (~/.agents/agents/b.md) hides ~/.claude/agents/b.md of the "
        "same name"
    ) in notes


def test_usable_keeps_the_persons_own_where_the_project_one_is_not_trusted(
    tmp_path: Path,
) -> None:
    project, home = places(tmp_path)
    write(home / ".agents" / "agents", "reviewer", "mine")
    write(project / ".agents" / "agents", "reviewer", "theirs")
    write(project / ".claude" / "agents", "helper", "theirs too")
    found = discover_definitions(project, home=home)

    untrusted = found.usable(())
    assert [(d.name, d.description) for d in untrusted] == [("reviewer", "mine")]
    trusted = found.usable({"./.agents/agents/reviewer.md", "./.claude/agents/helper.md"})
    assert [(d.name, d.description) for d in trusted] == [
        ("helper", "theirs too"),
        ("reviewer", "theirs"),
    ]


def test_a_shadowed_project_definition_is_never_used_even_if_trusted(tmp_path: Path) -> None:
    project, home = places(tmp_path)
    write(project / ".claude" / "agents", "x", "claude")
    write(project / ".agents" / "agents", "x", "agents")
    found = discover_definitions(project, home=home)
    assert found.usable({"./.claude/agents/x.md"}) == ()


def test_a_project_that_is_the_home_is_read_once_as_the_persons_own(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / ".agents" / "agents", "mine", "d")
    found = discover_definitions(home, home=home)
    assert [(d.name, d.scope, d.label) for d in found.definitions] == [
        ("mine", "user", "~/.agents/agents/mine.md")
    ]
    assert found.project() == ()


def test_only_md_files_are_definitions_and_skipped_ones_are_noted(tmp_path: Path) -> None:
    project, home = places(tmp_path)
    folder = project / ".agents" / "agents"
    write(folder, "good", "d")
    (folder / "README.txt").write_text("not a definition")
    (folder / ".hidden.md").write_text("---\nname: hidden\ndescription: d\n---\n")
    (folder / "sub").mkdir()
    write(folder / "sub", "nested", "d")
    (folder / "bad.md").write_text("---\nname: bad\n---\n")

    found = discover_definitions(project, home=home)

    assert [d.name for d in found.definitions] == ["good"]
    assert [s.label for s in found.skipped] == ["./.agents/agents/bad.md"]
    assert found.notes() == [
        "subagent definition ./.agents/agents/bad.md skipped: description is missing: say what "
        "the subagent does and when to hand it a task"
    ]


def test_the_persons_own_definition_may_be_a_link(tmp_path: Path) -> None:
    project, home = places(tmp_path)
    dotfiles = write(tmp_path / "dotfiles", "linked", "kept in dotfiles")
    (home / ".agents" / "agents").mkdir(parents=True)
    (home / ".agents" / "agents" / "linked.md").symlink_to(dotfiles)
    found = discover_definitions(project, home=home)
    assert [d.description for d in found.definitions] == ["kept in dotfiles"]
