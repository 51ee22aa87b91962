"""The chat's active skills as run_command needs them: a skill's folder, and what its
frontmatter says it expects to use (agent.tools.command_tool.SkillFolders)."""

from __future__ import annotations

from pathlib import Path

from agent.skills.names import skill_key
from agent.skills.tools import SkillSession
from agent.tools.command_tool import SkillFolder


class ActiveSkillFolders:
    """Only a skill activated in this chat (its instructions are what the model follows), and
    only one on this machine: a served skill's files are resources, not a folder."""

    def __init__(self, skills: SkillSession) -> None:
        self.skills = skills

    def folder(self, name: str) -> SkillFolder:
        snapshot = self.skills.active.find(name)
        if snapshot is None:
            raise LookupError(
                f"skill {name!r} is not active in this chat; activate it first (activate_skill), "
                "then run its scripts"
            )
        if snapshot.served:
            raise LookupError(
                f"skill {name!r} is served by an MCP server: its files are not on this machine, "
                "so none of them can run"
            )
        directory = Path(snapshot.directory)
        if not directory.is_dir():
            raise LookupError(f"skill {name!r}'s folder {str(directory)!r} is gone")
        return SkillFolder(snapshot.name, directory.resolve(), self._allowed_tools(name))

    def _allowed_tools(self, name: str) -> str | None:
        key = skill_key(name)
        for skill in self.skills.local:
            if skill_key(skill.name) == key:
                value = skill.frontmatter.get("allowed-tools")
                return value if isinstance(value, str) and value.strip() else None
        return None
