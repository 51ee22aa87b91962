"""The skills catalog in the system prompt: name, description and location of each skill.

It must fit a budget (a share of the model's context window). Descriptions are shortened
first; if that is not enough, skills are left out, and the catalog says which: never silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from agent.skills.model import SCOPE_PRECEDENCE, Skill
from agent.text import plural

CATALOG_INSTRUCTION = (
    "Skills give you specialised instructions for particular tasks. When a task matches a "
    "skill's description, call activate_skill with its name before you start, then follow it."
)
_DESCRIPTION_LIMITS = (None, 400, 200, 100, 50)


@dataclass(frozen=True)
class Catalog:
    """The rendered section ("" when there are no skills) and notes for the person."""

    text: str
    notes: tuple[str, ...] = ()


def _entry(skill: Skill, limit: int | None) -> str:
    description = " ".join(skill.description.split())
    if limit is not None and len(description) > limit:
        description = description[: limit - 1].rstrip() + "…"
    return (
        f"<skill><name>{escape(skill.name)}</name>"
        f"<description>{escape(description)}</description>"
        f"<location>{escape(skill.location)}</location></skill>"
    )


def _render(entries: list[str], omitted: list[str]) -> str:
    lines = [CATALOG_INSTRUCTION, "<available_skills>", *entries, "</available_skills>"]
    if omitted:
        lines.append(
            f"({plural(len(omitted), 'more skill')} {'is' if len(omitted) == 1 else 'are'} "
            "not listed for lack of space: "
            f"{escape(', '.join(omitted))}; activate_skill still accepts their names.)"
        )
    return "\n".join(lines)


def build_catalog(skills: Sequence[Skill], budget_chars: int) -> Catalog:
    """The catalog of `skills` within `budget_chars`, shortening, then dropping, with notes."""
    if not skills:
        return Catalog("")
    for limit in _DESCRIPTION_LIMITS:
        text = _render([_entry(s, limit) for s in skills], [])
        if len(text) <= budget_chars:
            note = (
                ()
                if limit is None
                else (
                    f"skill descriptions shortened to {limit} characters to fit the catalog budget",
                )
            )
            return Catalog(text, note)
    # Keep the skills of the nearest scopes (project, then user, then bundled). Entries are
    # rendered once; dropping one only subtracts its length.
    ranked = sorted(skills, key=lambda s: -SCOPE_PRECEDENCE.index(s.scope))
    entries = [_entry(s, _DESCRIPTION_LIMITS[-1]) for s in ranked]
    kept_length = sum(len(entry) + 1 for entry in entries)
    frame = len(_render([], []))
    omitted: list[str] = []
    while entries:
        kept_length -= len(entries.pop()) + 1
        omitted.insert(0, ranked[len(entries)].name)
        note_length = len(_render([], omitted)) - frame
        if frame + kept_length + note_length <= budget_chars:
            break
    text = _render(entries, omitted)
    dropped = (
        f"{plural(len(omitted), 'skill')} left out of the catalog to fit it: {', '.join(omitted)}"
    )
    return Catalog(text, (dropped,))
