"""Why a project skill is off, in words for `/skills`: declined here, new, or changed since the
person decided, and then what changed (files added, removed, changed; the folder's size); and
why a project subagent definition is (declined, new, changed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from agent.skills.agent_definitions import SubagentDefinition
from agent.skills.fingerprint import SkillDigest
from agent.skills.trust import SkillDecision, SkillTrustStore
from agent.text import plural

DECIDE = "agent skills trust decides"


def off_reasons(
    decision: SkillDecision | None, found: Mapping[str, SkillDigest], pending: bool
) -> dict[str, str]:
    """Why each project skill in `found` is off; `pending`: the chat asks before the next
    message."""
    hint = "you are asked before your next message" if pending else DECIDE
    reasons = {}
    for name, digest in found.items():
        if decision is None or name not in decision.skills:
            reasons[name] = f"new, not decided yet ({hint})"
        elif decision.skills[name] != digest.sha256:
            reasons[name] = (
                f"changed since you decided: {_changes(decision.files.get(name), digest)} ({hint})"
            )
        elif decision.decision == "declined":
            reasons[name] = f"declined in this project ({DECIDE} again)"
        else:
            reasons[name] = f"off with the project's other skills until they are decided ({hint})"
    return reasons


def _changes(before: Mapping[str, list[object]] | None, now: SkillDigest) -> str:
    if not before:  # decided before files were kept with the decision
        return "its files differ"
    after = {name: (short, size) for name, short, size in now.files}
    added = sorted(after.keys() - before.keys())
    removed = sorted(before.keys() - after.keys())
    changed = sorted(
        name for name in after.keys() & before.keys() if list(after[name]) != list(before[name])
    )
    parts = [
        f"{label} {', '.join(names)}"
        for label, names in (("added", added), ("removed", removed), ("changed", changed))
        if names
    ]
    size_before = sum(_int(entry[1]) for entry in before.values() if len(entry) > 1)
    size_after = sum(size for _, size in after.values())
    parts.append(f"{_bytes(size_before)} -> {_bytes(size_after)}")
    return "; ".join(parts)


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


def _bytes(count: int) -> str:
    return plural(count, "byte")


def definitions_off(
    store: SkillTrustStore, project: Path, off: Sequence[SubagentDefinition], pending: bool
) -> dict[str, str]:
    """Why each of the project's definitions in `off` is not in use, by label; `pending`: the
    chat asks before the next message."""
    if not off:
        return {}
    hint = "you are asked before your next message" if pending else DECIDE
    declined = store.state(project, [], [], off).declined_agents
    changed = store.request(project, [], [], off).changed
    reasons = {}
    for definition in off:
        if definition.label in declined:
            reasons[definition.label] = f"declined in this project ({DECIDE} again)"
        elif definition.label in changed:
            reasons[definition.label] = f"changed since you decided ({hint})"
        else:
            reasons[definition.label] = f"new, not decided yet ({hint})"
    return reasons
