"""The skills side of a chat: what the model may use, the catalog, and the two skill tools.

`activate_skill` makes a skill active (its body joins the system prompt; the result lists
its files); `read_skill_resource` reads one file inside a skill's directory. Both are
read-only and need no approval.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent.errors import AgentError
from agent.messages import ToolResult
from agent.skills.activation import MAX_LISTED_FILES, ActiveSkills, SkillSnapshot, skill_files
from agent.skills.catalog import Catalog, build_catalog
from agent.skills.model import Skill
from agent.skills.names import skill_key
from agent.skills.served import ServedSkill, SkillServers
from agent.tools.base import Tool, ToolSpec
from agent.tools.credential_files import (
    credential_rule,
    key_refusal,
    link_refusal,
    private_key_in,
    refusal,
)
from agent.tools.credential_links import CredentialLinks
from agent.tools.folder_descent import folder_below, is_link_or_file
from agent.tools.pinned_folder import (
    FolderPin,
    MovedFolderError,
    moved_text,
    opened,
    pin_folder,
    place_refusal,
    relative_parts,
)
from agent.tools.reading import READ_LIMIT_BYTES, UnreadableFileError, open_regular

MAX_RESOURCE_BYTES = READ_LIMIT_BYTES  # the same cap as read_file
NOTHING_READ = "nothing was read from it"
NOT_ACTIVATED = "it is not activated"


class SkillError(AgentError):
    """A skill cannot be activated or read as asked."""


class SkillSession:
    """The usable skills of one chat and the ones it has activated."""

    def __init__(
        self,
        skills: Sequence[Skill],
        active: ActiveSkills | None = None,
        catalog_budget: Callable[[], int] = lambda: 20_000,
    ) -> None:
        self.local: list[Skill] = list(skills)
        # The skills of the MCP servers the person chose to use, as listed (not read), by
        # their `server:name` key; `servers` reads their files when one is activated.
        self.served: dict[str, ServedSkill] = {}
        self.servers: SkillServers | None = None
        self.active = active or ActiveSkills()
        self.catalog_budget = catalog_budget
        self.last_catalog = Catalog("")
        self._catalog_key: object = None
        self.on_activate: Callable[[SkillSnapshot], None] = lambda snapshot: None

    def fork(self) -> SkillSession:
        """The same usable skills, with activations of its own (a subagent's: a skill it
        activates reaches its own prompt, never the chat's, whose context gets only its
        answer); `on_activate` is for the caller to set."""
        child = SkillSession(self.local, catalog_budget=self.catalog_budget)
        child.served, child.servers = dict(self.served), self.servers
        return child

    @property
    def skills(self) -> list[Skill]:
        """Every usable skill: this machine's, then the trusted servers' (never one with the
        name of a skill of this machine: see `use_served`)."""
        return [*self.local, *(served.listed_skill() for served in self.served.values())]

    @skills.setter
    def skills(self, skills: Sequence[Skill]) -> None:
        self.local = list(skills)

    def use_served(self, skills: Sequence[ServedSkill]) -> list[str]:
        """Offer these servers' skills from now on; notes on any left out. A served name that
        is also a skill of this machine's (after normalisation) is left out: a server's skill
        never stands in for a local one."""
        local = {skill_key(s.name) for s in self.local}
        notes = []
        for skill in skills:
            key = skill_key(skill.qualified)
            if key in local:
                notes.append(
                    f"MCP server {skill.server!r}: skill {skill.qualified!r} is left out: a "
                    "skill of this machine has that name"
                )
            else:
                self.served[key] = skill
        return notes

    def served_entry(self, name: str) -> ServedSkill | None:
        """The listing entry of the served skill called `name`, while its server is trusted."""
        return self.served.get(skill_key(name))

    async def activate_async(
        self, name: str, *, by_person: bool = False
    ) -> tuple[SkillSnapshot, bool]:
        """Activate a skill; a served one is read now (once), verified, then snapshotted."""
        entry = self.served_entry(name)
        if entry is None:
            return self.activate(name, by_person=by_person)
        existing = self.active.find(entry.qualified)
        if existing is not None and not by_person:
            return existing, False
        skill = await self._load(entry)
        if skill.disable_model_invocation and not by_person:
            raise SkillError(f"no skill named {name!r} (it is activated only by the person)")
        snapshot, new = self.active.activate(skill, refresh=by_person)
        if new:
            self.on_activate(snapshot)
        return snapshot, new

    async def _load(self, entry: ServedSkill) -> Skill:
        from agent.skills.served import loaded_skill

        if self.servers is None:
            raise SkillError(f"MCP server {entry.server!r} is not available to read its skills")
        try:
            data = await self.servers.read(entry.server, entry.uri)
            return loaded_skill(entry, data)
        except AgentError as error:
            raise SkillError(str(error)) from None

    async def read_served(self, name: str, relative: str) -> str:
        """A file of a served skill, as listed: read now, verified against the listing."""
        from agent.skills.served import MAX_RESOURCE_BYTES as SERVED_LIMIT
        from agent.skills.served import verified

        entry = self.served_entry(name)
        if entry is None or self.servers is None:
            raise SkillError(f"no skill named {name!r} whose server is available")
        file = entry.file(relative)
        if file is None or file.uri == entry.uri:
            listed = ", ".join(f.relative for f in entry.files if f.uri != entry.uri)
            raise SkillError(
                f"{relative!r} is not a file the skill {entry.qualified!r} lists "
                f"(it lists: {listed or 'none'})"
            )
        if file.size > SERVED_LIMIT:
            raise SkillError(
                f"{relative!r} is {file.size} bytes; files over {SERVED_LIMIT} bytes are not read"
            )
        try:
            data = verified(entry, file, await self.servers.read(entry.server, file.uri))
        except AgentError as error:
            raise SkillError(str(error)) from None
        if private_key_in(data):  # the whole file: bigger ones were refused above
            raise SkillError(key_refusal(relative))
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise SkillError(f"{relative!r} is not UTF-8 text") from None

    def listed_files(self, snapshot: SkillSnapshot) -> list[str]:
        """The files of an active skill the model may read: a served one's as listed, a local
        one's through its pinned folder (SkillError when that is not the folder any more)."""
        if not snapshot.served:
            pin = self.folder_of(snapshot.name)
            try:
                return skill_files(pin)
            except MovedFolderError as error:
                raise SkillError(moved_text(snapshot.name, pin, str(error), NOTHING_READ)) from None
        entry = self.served_entry(snapshot.name)
        files = entry.files if entry is not None else ()
        return [f.relative for f in files if f.uri != snapshot.path][:MAX_LISTED_FILES]

    def for_model(self) -> list[Skill]:
        """Skills in the catalog: all but those with disable-model-invocation."""
        return [s for s in self.skills if not s.disable_model_invocation]

    def find(self, name: str) -> Skill | None:
        key = skill_key(name)
        return next((s for s in self.skills if skill_key(s.name) == key), None)

    def activate(self, name: str, *, by_person: bool = False) -> tuple[SkillSnapshot, bool]:
        """Activate a skill (the person may also activate those hidden from the model)."""
        skill = self.find(name)
        if skill is not None and skill.served:  # its body is not read yet: activate_async
            raise SkillError(f"skill {name!r} is served by an MCP server: read when activated")
        if skill is None or (skill.disable_model_invocation and not by_person):
            known = ", ".join(s.name for s in (self.skills if by_person else self.for_model()))
            raise SkillError(f"no skill named {name!r} (available: {known or 'none'})")
        try:
            pin = skill.folder or pin_folder(skill.directory)
        except OSError as error:
            raise SkillError(f"skill {name!r}'s folder cannot be opened: {error}") from None
        # Its folder must still be the one found: else nothing of it is taken on (a skill
        # active in name whose files are all refused would only mislead).
        try:
            with opened(pin):
                pass
        except MovedFolderError as error:
            raise SkillError(moved_text(skill.name, pin, str(error), NOT_ACTIVATED)) from None
        snapshot, new = self.active.activate(replace(skill, folder=pin), refresh=by_person)
        if new:
            self.on_activate(snapshot)  # the session records the snapshot as given
        return snapshot, new

    def prompt_sections(self) -> str:
        """The catalog, then the active skills' bodies, for the system prompt."""
        parts = [self.catalog_section(), self.active_section()]
        return "\n\n".join(part for part in parts if part)

    def catalog_section(self) -> str:
        """The skills catalog for the system prompt ("" when no skill is offered).

        Rebuilt only when the skills or the budget change: every request composes the
        prompt, and shortening a long catalog is not free.
        """
        skills = self.for_model()
        budget = self.catalog_budget()
        key = (tuple((s.name, s.content_sha256, s.scope) for s in skills), budget)
        if key != self._catalog_key:
            self.last_catalog = build_catalog(skills, budget)
            self._catalog_key = key
        return self.last_catalog.text

    def active_section(self) -> str:
        """The active skills' bodies for the system prompt ("" when none)."""
        return self.active.prompt_section()

    def tools(self) -> Sequence[Tool]:
        """The skill tools, when there is something to use them on."""
        tools: list[Tool] = []
        names = [s.name for s in self.for_model()]
        if names:
            tools.append(ActivateSkill(self, tuple(names)))
        readable = sorted({*names, *(snapshot.name for snapshot in self.active.snapshots)})
        if readable:
            tools.append(ReadSkillResource(self, tuple(readable)))
        return tools

    def folder_of(self, name: str) -> FolderPin:
        """A local skill's folder as pinned when found: an active one's as its snapshot holds
        it, another's as discovery found it. SkillError when there is none to read from (a
        served skill's files are resources), or it lies where nothing is read."""
        snapshot = self.active.find(name)
        skill = None if snapshot is not None else self.find(name)
        if snapshot is not None and not snapshot.served:
            pin = snapshot.folder
            if pin is None:
                raise SkillError(
                    f"skill {snapshot.name!r} was activated by an earlier agent, which did not "
                    "record which folder it is; nothing is read from it until you activate it "
                    f"again (/skill {snapshot.name})"
                )
        elif skill is not None and not skill.served and not skill.disable_model_invocation:
            try:
                pin = skill.folder or pin_folder(skill.directory)
            except OSError as error:
                raise SkillError(f"skill {name!r}'s folder cannot be opened: {error}") from None
        else:
            raise SkillError(f"no skill named {name!r}")
        from agent.home import own_folders

        refused = place_refusal(pin.path, own_folders())
        if refused is not None:
            raise SkillError(f"skill {name!r}'s folder {pin.path}: {refused}; nothing was read")
        return pin

    def vouched(self, snapshot: SkillSnapshot) -> SkillSnapshot:
        """A restored snapshot; one saved before folders were pinned gets the folder of the
        skill this chat found (and, for a project's, trusted) at its SKILL.md path: the skill
        as usable now vouches for it. Without one, nothing of its folder is read."""
        if snapshot.served or snapshot.folder is not None:
            return snapshot
        found = next((s for s in self.local if str(s.path) == snapshot.path), None)
        if found is None or found.folder is None:
            return snapshot
        return replace(snapshot, folder=found.folder)

    def moved_since_activated(self, snapshot: SkillSnapshot) -> bool:
        """Whether the skill found now at an active snapshot's name is another folder."""
        skill = self.find(snapshot.name)
        if skill is None or skill.served or snapshot.folder is None or skill.folder is None:
            return False
        return skill.folder != snapshot.folder

    def is_served(self, name: str) -> bool:
        """Whether `name` is a served skill (listed now, or active from a server)."""
        snapshot = self.active.find(name)
        return self.served_entry(name) is not None or (snapshot is not None and snapshot.served)


def activation_text(snapshot: SkillSnapshot, files: list[str]) -> str:
    """What activate_skill returns: that the skill is active, and its files (not their text).

    The body itself is in the system prompt's active skills section from the next request
    on; repeating it here would send it twice in every later request."""
    listing = "\n".join(f"- {name}" for name in files) if files else "(none)"
    # A script of the skill runs from its folder when run_command names the skill; a served
    # skill's files are resources, not a folder, so nothing of it runs.
    running = (
        ""
        if snapshot.served
        else (
            f"\n\nTo run a script of this skill as its instructions say, call run_command with "
            f"skill={snapshot.name!r}: the command then runs in the skill's folder."
        )
    )
    return (
        f"Skill {snapshot.name!r} is now active: its instructions are in your system prompt "
        "(Active skills); follow them.\n\n"
        f"Files in this skill (read one with read_skill_resource when the instructions need it):\n"
        f"{listing}{running}"
    )


@dataclass(frozen=True)
class ActivateSkill:
    session: SkillSession
    names: tuple[str, ...]

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(
            name="activate_skill",
            description="Load a skill's full instructions (see the skills catalog).",
            parameters={
                "type": "object",
                "properties": {"name": {"type": "string", "enum": list(self.names)}},
                "required": ["name"],
                "additionalProperties": False,
            },
            requires_approval=False,
            changes_nothing=True,
            source="skills",
        )

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            snapshot, new = await self.session.activate_async(str(arguments["name"]))
        except SkillError as error:
            return ToolResult(str(error), is_error=True)
        if not new:
            return ToolResult(
                f"Skill {snapshot.name!r} is already active; its instructions are in your "
                "system prompt."
            )
        try:
            files = self.session.listed_files(snapshot)
        except SkillError as error:
            return ToolResult(str(error), is_error=True)
        return ToolResult(activation_text(snapshot, files))


@dataclass(frozen=True)
class ReadSkillResource:
    session: SkillSession
    names: tuple[str, ...]

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(
            name="read_skill_resource",
            description=(
                "Read a file inside a skill's directory (a path relative to it, as listed "
                "when the skill was activated). UTF-8 text, at most 256 KiB."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": list(self.names)},
                    "path": {"type": "string", "description": "relative to the skill"},
                },
                "required": ["name", "path"],
                "additionalProperties": False,
            },
            requires_approval=False,
            changes_nothing=True,
            source="skills",
        )

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        import anyio.to_thread

        name, relative = str(arguments["name"]), str(arguments["path"])
        if self.session.is_served(name):  # a resource of its server, verified when read
            try:
                return ToolResult(await self.session.read_served(name, relative))
            except SkillError as error:
                return ToolResult(str(error), is_error=True)
        # Off the event loop: a slow disk must not stop the chat (Ctrl-C, MCP servers).
        return await anyio.to_thread.run_sync(self._result, arguments, abandon_on_cancel=True)

    def _result(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            return ToolResult(self._read(str(arguments["name"]), str(arguments["path"])))
        except SkillError as error:
            return ToolResult(str(error), is_error=True)

    def _read(self, name: str, relative: str) -> str:
        pin = self.session.folder_of(name)
        parts = relative_parts(relative)
        if parts is None:
            if Path(relative).is_absolute():
                raise SkillError(
                    f"{relative!r}: give a path relative to the skill, not an absolute one"
                )
            raise SkillError(f"{relative!r} is outside the skill {name!r}")
        # A skill keeps its scripts' keys beside them (`.env`, `.aws/`) as a project does: the
        # same names read_file refuses. No link is followed below, so the names are the path.
        rule = credential_rule(parts)
        if rule is not None:
            raise SkillError(refusal(relative, rule))
        if not parts:
            raise SkillError(f"{relative!r} is the skill's folder; name a file inside it")
        from agent.home import own_folders

        refused = place_refusal(pin.path.joinpath(*parts), own_folders())
        if refused is not None:  # a skill folder holding agent's: never through it either
            raise SkillError(f"{relative!r}: {refused}; nothing was read")
        try:
            with opened(pin) as root:
                data, size = _read_below(root, parts, relative, name)
        except MovedFolderError as error:
            raise SkillError(moved_text(name, pin, str(error), NOTHING_READ)) from None
        if len(data) > MAX_RESOURCE_BYTES:
            raise SkillError(
                f"{relative!r} is {size} bytes; files over {MAX_RESOURCE_BYTES} bytes are not read"
            )
        if private_key_in(data):  # the whole file: bigger ones were refused above
            raise SkillError(key_refusal(relative))
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise SkillError(f"{relative!r} is not UTF-8 text") from None


def _read_below(root: int, parts: tuple[str, ...], relative: str, name: str) -> tuple[bytes, int]:
    """At most MAX_RESOURCE_BYTES + 1 bytes of the file `parts` below the folder `root`, and
    its size: every folder on the way and the file itself reached without following a link."""
    try:
        with folder_below(root, parts[:-1]) as folder:
            try:
                kind = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False).st_mode
            except FileNotFoundError:
                raise SkillError(f"{relative!r} does not exist in the skill {name!r}") from None
            if stat.S_ISLNK(kind):
                raise SkillError(_LINK_REFUSAL.format(relative=relative))
            if stat.S_ISDIR(kind):
                raise SkillError(f"{relative!r} is a directory; name a file inside it")
            # Regular files only, without blocking (a FIFO would wait for a writer forever),
            # and never a link swapped in since the look above (O_NOFOLLOW).
            with open_regular(parts[-1], dir_fd=folder) as handle:
                status = os.fstat(handle.fileno())
                linked_to = _linked_credential(status)
                if linked_to is not None:
                    raise SkillError(link_refusal(relative, linked_to))
                return handle.read(MAX_RESOURCE_BYTES + 1), status.st_size
    except FileNotFoundError:
        raise SkillError(f"{relative!r} does not exist in the skill {name!r}") from None
    except UnreadableFileError as error:
        raise SkillError(f"{relative!r} {error}") from None
    except OSError as error:
        if is_link_or_file(error):
            raise SkillError(_LINK_REFUSAL.format(relative=relative)) from None
        raise SkillError(f"{relative!r} cannot be read ({error.strerror or error})") from None


# Links are refused whole, in the skill or out of it: what the person trusted is the folder's
# own files, and a link's target is whatever it names by the time it is read.
_LINK_REFUSAL = (
    "{relative!r} is, or lies under, a link (or a file where a folder should be); a skill's "
    "files are read only as they lie in its folder, never through a link"
)


def _linked_credential(status: os.stat_result) -> str | None:
    """The credential file of the home or of agent's folders that a skill's file is a hard
    link to (agent.tools.credential_links), else None; agent's folders are looked up only for
    a file with more than one link."""
    if status.st_nlink < 2:
        return None
    from agent.home import own_folders

    return CredentialLinks(own_folders()).linked_to(status)
