"""Build Skill objects over real directories, without going through the parser."""

from __future__ import annotations

import hashlib
from pathlib import Path

from agent.skills.model import Scope, Skill


def make_skill(
    root: Path,
    name: str,
    description: str = "Does a thing.",
    scope: Scope = "user",
    body: str = "Step one.\n",
    hidden_from_model: bool = False,
) -> Skill:
    directory = root / name
    directory.mkdir(parents=True, exist_ok=True)
    text = f"---\nname: {name}\ndescription: {description}\n---\n{body}"
    (directory / "SKILL.md").write_text(text)
    return Skill(
        name=name,
        description=description,
        scope=scope,
        path=directory / "SKILL.md",
        body=body,
        content_sha256=hashlib.sha256(text.encode()).hexdigest(),
        disable_model_invocation=hidden_from_model,
    )
