"""The chat's active skills as run_command needs them: a skill's folder, and what its
frontmatter says it expects to use (agent.tools.command_tool.SkillFolders)."""

from __future__ import annotations

from agent.skills.names import skill_key
from agent.skills.tools import SkillError, SkillSession
from agent.tools.command_tool import SkillFolder
from agent.tools.pinned_folder import MovedFolderError, moved_text, opened


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
        # The folder pinned when the skill was found, and still that folder now: checked here
        # (the preview) and again when the command runs (agent.tools.skill_run_folder).
        try:
            pin = self.skills.folder_of(snapshot.name)
            with opened(pin):
                pass
        except SkillError as error:
            raise LookupError(str(error)) from None
        except MovedFolderError as error:
            raise LookupError(moved_text(snapshot.name, pin, str(error), "nothing ran")) from None
        return SkillFolder(snapshot.name, pin.path, self._allowed_tools(name), pin)

    def _allowed_tools(self, name: str) -> str | None:
        key = skill_key(name)
        for skill in self.skills.local:
            if skill_key(skill.name) == key:
                value = skill.frontmatter.get("allowed-tools")
                return value if isinstance(value, str) and value.strip() else None
        return None
