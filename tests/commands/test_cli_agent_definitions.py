"""Subagent definitions on the command line (issue 41): `agent skills list` shows each one found,
its scope, whether it is in use or off and why; `agent skills trust` decides the project's
with the same one question as the chat."""

from __future__ import annotations

from pathlib import Path

import pexpect

from agent.skills.agent_discovery import discover_definitions
from agent.skills.trust import SkillTrustStore
from tests.commands.test_cli_skills import Workspace, write
from tests.pty_chat import pty_env, spawn_agent

__all__ = ["Workspace"]


def section(stdout: str) -> list[str]:
    """The lines of the definitions' part of `agent skills list`, stripped."""
    assert "\nSubagent definitions" in stdout, stdout
    part = stdout.split("\nSubagent definitions", 1)[1]
    return [line.strip() for line in part.splitlines()[1:] if line.strip()]


def test_list_shows_each_definition_with_scope_status_and_why(tmp_path: Path) -> None:
    space = Workspace(tmp_path)
    mine = write(
        space.home / ".agents" / "agents" / "reviewer.md",
        "---\nname: reviewer\ndescription: Mine.\n---\nReview.\n",
    )
    theirs = write(
        space.project / ".agents" / "agents" / "reviewer.md",
        "---\nname: reviewer\ndescription: Theirs.\ntools: Read, WebFetch\n---\nReview.\n",
    )
    claude = write(
        space.home / ".claude" / "agents" / "helper.md",
        "---\nname: helper\ndescription: Helps.\nmodel: sonnet\n---\nHelp.\n",
    )
    broken = write(space.project / ".claude" / "agents" / "broken.md", "---\nname: x\n---\nx\n")

    result = space.agent("skills", "list")

    assert (result.returncode, result.stderr) == (0, "")
    lines = section(result.stdout)
    assert lines[0].split() == ["NAME", "SCOPE", "STATUS", "PATH"]
    assert lines[1].split() == ["helper", "user", "warnings", str(claude)]
    assert lines[2].startswith("warning: model 'sonnet' is Claude Code's alias")
    assert lines[3].split() == ["reviewer", "project", "untrusted", str(theirs)]
    assert lines[4] == (
        "note: off: new, not decided yet (agent skills trust decides); until then the user "
        f"definition at {mine} is used"
    )
    assert lines[5].startswith("warning: tools: 'WebFetch' dropped: no tool of that name here")
    assert lines[6].split() == ["reviewer", "user", "ok", str(mine)]
    assert lines[7] == f"note: the project definition at {theirs} replaces it once trusted"
    assert lines[8].split() == ["broken", "project", "skipped", str(broken)]
    assert lines[9].startswith("error: description is missing")
    assert lines[10:] == [
        "Searched, lowest precedence first (a definition hides one of the same name above it):",
        f"user: {space.home / '.claude' / 'agents'}",
        f"user: {space.home / '.agents' / 'agents'}",
        f"project: {space.project / '.claude' / 'agents'}",
        f"project: {space.project / '.agents' / 'agents'}",
    ]


def test_list_shows_escape_sequences_from_a_definition_as_visible_text(tmp_path: Path) -> None:
    space = Workspace(tmp_path)
    write(
        space.project / ".agents" / "agents" / "evil.md",
        '---\nname: evil\ndescription: d\ntools: "Read, \\e]0;pwned\\a"\n---\nBody.\n',
    )
    result = space.agent("skills", "list")
    assert result.returncode == 0
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "\\x1b]0;pwned\\x07" in result.stdout


def test_list_without_definitions_says_nothing_of_them(tmp_path: Path) -> None:
    result = Workspace(tmp_path).agent("skills", "list")
    assert result.returncode == 0 and "Subagent definitions" not in result.stdout


def test_skills_trust_decides_the_projects_definitions_and_list_then_shows_them_on(
    tmp_path: Path, agent_home: Path
) -> None:
    space = Workspace(tmp_path)
    write(
        space.project / ".agents" / "agents" / "reviewer.md",
        "---\nname: reviewer\ndescription: Reviews.\n---\nReview.\n",
    )
    write(
        space.home / ".agents" / "agents" / "reviewer.md",
        "---\nname: reviewer\ndescription: Mine.\n---\nMine.\n",
    )
    env = {**pty_env(agent_home, tmp_path), "HOME": str(space.home)}
    child = spawn_agent(["skills", "trust"], env, space.project, dimensions=(40, 200))
    child.expect_exact("[y/N] ")
    asked = str(child.before)
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert "Use these subagent definitions in this project?" in asked
    assert "reviewer: subagent: Reviews." in asked
    assert "Trusted 1 project subagent definitions" in str(child.before)
    found = discover_definitions(space.project, home=space.home).project()
    trust = SkillTrustStore().state(space.project, [], [], found)
    assert trust.trusted_agents == ("./.agents/agents/reviewer.md",)

    lines = section(space.agent("skills", "list").stdout)
    assert lines[1].split()[:3] == ["reviewer", "project", "ok"]
    assert lines[2].split()[:3] == ["reviewer", "user", "shadowed"]
    assert lines[3] == (
        "note: hidden by the project definition at "
        f"{space.project / '.agents' / 'agents' / 'reviewer.md'}"
    )
