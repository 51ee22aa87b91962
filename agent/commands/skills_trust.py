"""`agent skills trust`: decide now whether this project's skills, instruction files
(AGENTS.md, CLAUDE.md, GEMINI.md from the project root down to here) and subagent definitions
(.agents/agents/*.md, .claude/agents/*.md) may reach the model."""

from __future__ import annotations

import sys
from pathlib import Path

from agent.commands.output import say
from agent.commands.terminal import confirm
from agent.errors import AgentError
from agent.skills.agent_discovery import discover_definitions
from agent.skills.discovery import discover_skills
from agent.skills.instruction_files import find_instruction_files
from agent.skills.trust import SkillTrustStore
from agent.skills.usable import project_skills
from agent.text import sanitize_line


def trust_command(project: Path, cwd: Path | None = None) -> int:
    """Show the project's skills and instruction files (and what changed); record yes or no."""
    skills = project_skills(discover_skills(project))
    found = find_instruction_files(project, Path.cwd() if cwd is None else cwd)
    definitions = discover_definitions(project)
    agents = definitions.project()
    for line in found.skipped:
        say(f"instruction file {sanitize_line(line)}")
    for note in definitions.notes():
        say(sanitize_line(note))
    if not skills and not found.project and not agents:
        say(
            f"The project {sanitize_line(str(project))} has no skills "
            "(.agents/skills/*/SKILL.md), no instruction files "
            "(AGENTS.md, CLAUDE.md, GEMINI.md) and no subagent definitions "
            "(.agents/agents/*.md, .claude/agents/*.md)."
        )
        return 0
    store = SkillTrustStore()
    request = store.question(project, skills, found.project, agents)
    if not sys.stdin.isatty():
        raise AgentError("there is no terminal to ask; run `agent skills trust` in a terminal")
    for line in request.describe():  # one line each: a description cannot draw more
        print(sanitize_line(line))
    trusted = confirm(request.question, default=False)
    store.record(request, "trusted" if trusted else "declined")
    earlier = (*request.trusted_before, *request.agents_trusted_before)
    kept = f" ({', '.join(earlier)} stay trusted)" if earlier else ""
    if trusted:
        count = len(request.skills) + len(request.instructions) + len(request.agents)
        say(
            f"Trusted {count} project {request.what} for {sanitize_line(str(project))}"
            f"{sanitize_line(kept)}."
        )
        return 0
    say(
        f"The {request.what} asked about stay off{sanitize_line(kept)}; you will be asked "
        "again if they change."
    )
    return 1
