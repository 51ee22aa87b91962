"""`agent skills trust`: decide now whether this project's skills may reach the model."""

from __future__ import annotations

import sys
from pathlib import Path

from agent.commands.output import say
from agent.commands.terminal import confirm
from agent.errors import AgentError
from agent.skills.discovery import discover_skills
from agent.skills.trust import SkillTrustStore
from agent.skills.usable import project_skills
from agent.text import sanitize_line


def trust_command(project: Path) -> int:
    """Show the project's skills (and what changed) and record yes or no."""
    skills = project_skills(discover_skills(project))
    if not skills:
        say(f"The project {sanitize_line(str(project))} has no skills (.agents/skills/*/SKILL.md).")
        return 0
    store = SkillTrustStore()
    request = store.request(project, skills)
    if not sys.stdin.isatty():
        raise AgentError("there is no terminal to ask; run `agent skills trust` in a terminal")
    for line in request.describe():  # one line each: a description cannot draw more
        print(sanitize_line(line))
    trusted = confirm("Use these skills in this project?", default=False)
    store.record(request, "trusted" if trusted else "declined")
    if trusted:
        say(f"Trusted {len(skills)} project skill(s) for {sanitize_line(str(project))}.")
        return 0
    say("The project's skills stay off; you will be asked again if they change.")
    return 1
