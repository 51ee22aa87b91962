"""Skill names: the spec's rules, and the key names are compared by."""

from __future__ import annotations

import unicodedata

MAX_NAME_LENGTH = 64


def skill_key(name: str) -> str:
    """Names are compared after NFKC normalisation (and case-folding: `PDF` is `pdf`)."""
    return unicodedata.normalize("NFKC", name).casefold()


def name_problems(name: str) -> list[str]:
    """How `name` breaks the spec: 1-64 lowercase letters, digits and hyphens, no leading,
    trailing or double hyphen. Unicode lowercase letters are letters."""
    problems = []
    if not name:
        return ["the name is empty"]
    if len(name) > MAX_NAME_LENGTH:
        problems.append(f"the name is longer than {MAX_NAME_LENGTH} characters")
    if any(not (c == "-" or c.isdigit() or (c.isalpha() and c == c.lower())) for c in name):
        problems.append("the name may hold only lowercase letters, digits and hyphens")
    if name.startswith("-") or name.endswith("-"):
        problems.append("the name must not start or end with a hyphen")
    if "--" in name:
        problems.append("the name must not contain two hyphens in a row")
    return problems
