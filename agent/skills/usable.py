"""Which discovered skills the model may see, given the project's trust decision."""

from __future__ import annotations

from agent.skills.model import Discovery, Skill
from agent.skills.trust import usable_skills


def project_skills(discovery: Discovery) -> list[Skill]:
    """The project-scope skills found (all of them win over lower scopes, so all are listed)."""
    return [skill for skill in discovery.skills if skill.scope == "project"]


def usable_from(discovery: Discovery, project_trusted: bool) -> list[Skill]:
    """Skills the model may see, given the project's trust decision."""
    hidden = [shadowing.hidden for shadowing in discovery.shadowed]
    return usable_skills(list(discovery.skills), hidden, project_trusted)
