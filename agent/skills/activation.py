"""Activated skills: snapshots of their bodies, kept in activation order for the prompt.

A snapshot is what the model was given, frozen: name, scope, SKILL.md path, the body and its
sha256, and the skill's folder as pinned when it was found (agent.tools.pinned_folder). The
sessions issue saves and restores them exactly; a resumed chat gets the same text even if the
file changed since, and reads the skill's files only from that very folder.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from agent.skills.folder_walk import FolderWalk
from agent.skills.model import Skill
from agent.skills.names import skill_key
from agent.tools.pinned_folder import FolderPin, opened, pin_folder

MAX_LISTED_FILES = 200


@dataclass(frozen=True)
class SkillSnapshot:
    """One activation, as the model saw it."""

    name: str
    scope: str
    path: str  # the SKILL.md
    body_sha256: str
    body: str
    # A local skill's folder as pinned when found; None for a served skill, and in a session
    # saved before folders were pinned (nothing vouches for its folder then).
    folder: FolderPin | None = None

    @property
    def served(self) -> bool:
        """Whether an MCP server served it (its path is its SKILL.md's skill:// URI)."""
        return self.scope == "server"

    @property
    def directory(self) -> str:
        if self.served:  # a URI: Path would fold its "//"
            return self.path.rsplit("/", 1)[0]
        return str(Path(self.path).parent)

    def to_json(self) -> dict[str, Any]:
        data = {
            "name": self.name,
            "scope": self.scope,
            "path": self.path,
            "body_sha256": self.body_sha256,
            "body": self.body,
        }
        return data if self.folder is None else {**data, "folder": self.folder.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SkillSnapshot:
        folder = FolderPin.from_json(data.get("folder"))
        return cls(
            data["name"], data["scope"], data["path"], data["body_sha256"], data["body"], folder
        )

    def prompt_block(self) -> str:
        """The body wrapped with the skill's name and directory."""
        return (
            f'<skill name="{escape(self.name)}" directory="{escape(self.directory)}">\n'
            f"{self.body.strip()}\n</skill>"
        )


def snapshot_of(skill: Skill) -> SkillSnapshot:
    """Freeze a skill's body now, with its folder as pinned when it was found (pinned now for
    one that was not found by discovery; OSError when that folder is gone)."""
    body = skill.body
    folder = None if skill.served else (skill.folder or pin_folder(skill.directory))
    return SkillSnapshot(
        name=skill.name,
        scope=skill.scope,
        path=skill.location,
        body_sha256=hashlib.sha256(body.encode("utf-8")).hexdigest(),
        body=body,
        folder=folder,
    )


def skill_files(pin: FolderPin) -> list[str]:
    """Relative paths of the files under a skill (not SKILL.md), for the model to read on
    demand: listed through the pinned folder, never through a link (MovedFolderError when the
    folder is not the pinned one)."""
    with opened(pin) as root:
        return _listed_files(FolderWalk(pin.path, root_fd=root))


def _listed_files(walk: FolderWalk) -> list[str]:
    files: list[str] = []
    for folder in walk:
        folder.dirs[:] = [d for d in folder.dirs if not d.startswith(".")]
        for name in folder.files:
            relative = "/".join((*folder.relative, name))
            # A link is never read (read_skill_resource): listing it would offer what fails.
            listed = name not in folder.file_links and not name.startswith(".")
            if relative != "SKILL.md" and listed:
                files.append(relative)
            if len(files) >= MAX_LISTED_FILES:
                return files
    return files


class ActiveSkills:
    """The snapshots of one conversation, each once, in activation order."""

    def __init__(self, snapshots: list[SkillSnapshot] | None = None) -> None:
        self.snapshots: list[SkillSnapshot] = list(snapshots or [])

    def find(self, name: str) -> SkillSnapshot | None:
        key = skill_key(name)
        return next((s for s in self.snapshots if skill_key(s.name) == key), None)

    def activate(self, skill: Skill, *, refresh: bool = False) -> tuple[SkillSnapshot, bool]:
        """Snapshot `skill`; (snapshot, False) when it was already active.

        With `refresh` (the person activating it again), a snapshot whose body or folder
        differs from the skill found now is replaced in place: a saved snapshot stays in
        force until then.
        """
        existing = self.find(skill.name)
        if existing is not None:
            current = snapshot_of(skill)
            same = (current.body_sha256, current.folder) == (existing.body_sha256, existing.folder)
            if not refresh or same:
                return existing, False
            self.snapshots[self.snapshots.index(existing)] = current
            return current, True
        snapshot = snapshot_of(skill)
        self.snapshots.append(snapshot)
        return snapshot, True

    def prompt_section(self) -> str:
        """The active skills' bodies for the system prompt ("" when none)."""
        if not self.snapshots:
            return ""
        blocks = "\n\n".join(snapshot.prompt_block() for snapshot in self.snapshots)
        return f"Active skills (follow their instructions):\n\n{blocks}"
