"""One chat's state: its conversation, MCP host, session file, skills, trust question, resume,
new, compaction. The front ends drive it through these operations; it knows no terminal."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import EllipsisType
from typing import TYPE_CHECKING

from agent.chat.conversation import Conversation
from agent.chat.file_changes import FileChangeLog
from agent.chat.plan_mode import PlanState
from agent.chat.subagents import Subagents
from agent.chat.todos import TodoList
from agent.errors import AgentError
from agent.mcp.host import McpHost
from agent.messages import estimate_tokens
from agent.session.events import ModelChangeEvent, SkillActivationEvent
from agent.session.history import rebuild
from agent.session.recorder import SessionRecorder
from agent.session.store import LoadedSession, load_session
from agent.skills.activation import ActiveSkills, SkillSnapshot, snapshot_of
from agent.skills.instruction_prompt import ProjectInstructions
from agent.skills.model import Discovery
from agent.skills.served import ServedSkill
from agent.skills.served_trust import ServedSkillTrustPrompt, ServedSkillTrustStore
from agent.skills.tools import SkillSession
from agent.skills.trust import SkillTrustPrompt, SkillTrustRequest, SkillTrustStore
from agent.skills.usable import usable_from
from agent.text import plural

if TYPE_CHECKING:
    from agent.chat.prompt import SystemPrompt
    from agent.chat.served_skills import RuntimeSkillServers
    from agent.skills.agent_definitions import SubagentDefinition
    from agent.skills.agent_discovery import AgentDefinitions


# What compaction and the skills catalog's budget assume of a window nobody knows (a model
# litellm does not know, model_limits.context_window_tokens unset). Never shown as the window.
ASSUMED_WINDOW = 128_000


def _no_definitions() -> AgentDefinitions:
    # Imported here: the definitions' parser loads yaml, which the prompt must not wait for.
    from agent.skills.agent_discovery import AgentDefinitions

    return AgentDefinitions()


@dataclass
class ChatSession:
    """One chat: the conversation, the MCP host whose tools it offers, and everything else
    the chat keeps (the front ends take this object, or a callable returning it)."""

    conversation: Conversation
    host: McpHost
    skills: SkillSession
    recorder: SessionRecorder
    project: Path
    model_name: str
    discovery: Discovery
    trust_store: SkillTrustStore
    context_window: Callable[[], int | None]  # the model's window; None: unknown
    compact_at_share: float = 0.8
    keep_recent_turns: int = 2
    pending_skill_trust: SkillTrustRequest | None = None
    notes: list[str] = field(default_factory=list)
    instructions: ProjectInstructions | None = None
    system_prompt: SystemPrompt | None = None
    share_cache: dict[str, object] = field(default_factory=dict)  # the toolbar's last count
    window_source: Callable[[], str] = lambda: ""  # where the window's figure comes from
    served_trust: ServedSkillTrustStore = field(default_factory=ServedSkillTrustStore)
    file_changes: FileChangeLog | None = None  # what the file tools changed, for /undo
    subagents: Subagents | None = None  # the model's `delegate` tool: who ran, for /agents
    todos: TodoList = field(default_factory=TodoList)  # the model's task list (update_todos)
    # Subagent definitions: all found (read once, at start), and those this chat may use
    # (the person's own, and the project's trusted as read; settle_skill_trust updates it).
    agent_discovery: AgentDefinitions = field(default_factory=lambda: _no_definitions())
    agent_definitions: tuple[SubagentDefinition, ...] = ()
    _cut_said: str | None = field(default=None, init=False, repr=False)
    _served_listed: set[str] = field(default_factory=set, init=False, repr=False)
    _served_servers: RuntimeSkillServers | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.skills.on_activate = self._record_activation
        self.notes.extend(self.instruction_cut_notice())

    def system_parts(self) -> list[tuple[str, str]]:
        """The system prompt's parts by name, as the next request composes them."""
        if self.system_prompt is None:
            return [("system prompt", self.conversation.system_prompt())]
        return self.system_prompt.parts()

    def instruction_cut_notice(self) -> list[str]:
        """What the budget cut from the instruction files, said once (again only if it
        changes, say once the project's files are trusted)."""
        note = self.instructions.cut_note() if self.instructions else None
        if note is None or note == self._cut_said:
            return []
        self._cut_said = note
        return [note]

    def _record_activation(self, snapshot: SkillSnapshot) -> None:
        self.recorder.record(SkillActivationEvent(snapshot))

    # -- skills -----------------------------------------------------------------------------

    async def settle_skill_trust(self, prompt: SkillTrustPrompt) -> list[str]:
        """Ask the pending question about the project's skills, once; returns notes."""
        request, self.pending_skill_trust = self.pending_skill_trust, None
        if request is None:
            return []
        trusted = await prompt.confirm(request)
        self.trust_store.record(request, "trusted" if trusted else "declined")
        skills_trusted = trusted if request.decides_skills else request.skills_status == "trusted"
        self.skills.skills = usable_from(self.discovery, skills_trusted)
        if self.instructions is not None:
            # A no declines the files it listed; those trusted before stay in use, as they
            # would in the next run or without a terminal.
            labels = {*request.trusted_before, *(request.files if trusted else ())}
            self.instructions.trusted_labels = frozenset(labels)
        # The same, per definition: the ones shown (the very text read and hashed) if yes.
        agents = {*request.agents_trusted_before, *(request.agent_digests if trusted else ())}
        self.agent_definitions = self.agent_discovery.usable(agents)
        names = [f.label for f in request.instructions] + [s.name for s in request.skills]
        names += [d.label for d in request.agents]
        if trusted:
            notes = [f"Project {request.what} trusted: {', '.join(names)}"]
        else:
            notes = [f"Project {request.what} stay off (run `agent skills trust` to decide again)"]
        return [*notes, *self.instruction_cut_notice()]

    def skills_off(self) -> dict[str, str]:
        """The project's skills that are off, each with why (declined, new, or changed and
        what changed); /skills shows them."""
        from agent.skills.off_reasons import off_reasons
        from agent.skills.trust import digests
        from agent.skills.usable import project_skills

        on = {skill.path for skill in self.skills.skills}
        off = [skill for skill in project_skills(self.discovery) if skill.path not in on]
        if not off:
            return {}
        decided = self.trust_store.decided(self.project)
        return off_reasons(decided, digests(off), self.pending_skill_trust is not None)

    def agent_definitions_off(self) -> dict[str, str]:
        """The project's subagent definitions not in use, by label, each with why (new,
        changed since decided, or declined); /skills shows them."""
        from agent.skills.off_reasons import definitions_off

        on = {d.label for d in self.agent_definitions}
        off = [d for d in self.agent_discovery.project() if d.label not in on]
        pending = self.pending_skill_trust is not None
        return definitions_off(self.trust_store, self.project, off, pending)

    async def activate_skill(self, name: str) -> tuple[SkillSnapshot, bool]:
        """The person's /skill NAME (may activate skills hidden from the model); a served
        skill is read from its server now."""
        return await self.skills.activate_async(name, by_person=True)

    def served_skills_unsettled(self) -> bool:
        """Whether an enabled server's skills are still to be listed (each server once, after
        it started: one still starting when a turn is sent is listed before a later turn)."""
        return any(name not in self._served_listed for name in self.host.enabled_servers())

    async def settle_served_skills(self, prompt: ServedSkillTrustPrompt | None) -> list[str]:
        """List the skills (never their files) of the started servers not listed before, and
        offer those the person chose to use: one question per server whose skills are new or
        changed (`prompt` None: no person, so only skills trusted as they are now). Servers
        still starting are not waited for: the turn's own wait says so and Ctrl-C ends it.
        Returns notes."""
        if not self.served_skills_unsettled():
            return []
        await self.host.ready.wait()
        runtime = self.host.runtime
        if runtime is None:
            return []
        from agent.chat.served_skills import RuntimeSkillServers

        if self._served_servers is None or self._served_servers.runtime is not runtime:
            self._served_servers = RuntimeSkillServers(runtime)
        servers = self._served_servers
        self.skills.servers = servers
        servers.notes.clear()
        listings = await servers.listings(self._served_listed)
        notes = list(servers.notes)
        usable: list[ServedSkill] = []
        for listing in listings:
            notes.extend(listing.problems)
            status, request = self.served_trust.assess(listing)
            if request is not None and prompt is not None:
                trusted = await prompt.confirm(request)
                status = "trusted" if trusted else "declined"
                self.served_trust.record(request, status)
                names = ", ".join(skill.qualified for skill in listing.skills)
                notes.append(
                    f"Skills of MCP server {listing.server} trusted: {names}"
                    if trusted
                    else f"Skills of MCP server {listing.server} stay off"
                )
            elif request is not None:
                notes.append(
                    f"skills of MCP server {listing.server} are not trusted as listed now and "
                    "stay off (only trusted ones are used without a terminal to ask)"
                )
            if status == "trusted":
                usable.extend(listing.skills)
        return [*notes, *self.skills.use_served(usable)]

    # -- sessions ---------------------------------------------------------------------------

    def new(self) -> None:
        """Start over: an empty history, no active skills, a new session file at the next turn."""
        self.recorder.start_new()
        self.conversation.history.reset()
        self.skills.active = ActiveSkills()
        if self.conversation.deferral is not None:
            self.conversation.deferral.reset()
        if self.file_changes is not None:
            self.file_changes.reset()
        if self.subagents is not None:
            self.subagents.reset()
        self.todos.reset()
        self.conversation.plan.reset()  # the mode carries on; the new file records it

    def resume(self, source: Path | LoadedSession) -> list[str]:
        """Continue the session saved at `source` (or already loaded from there); returns
        notes for the person."""
        loaded = source if isinstance(source, LoadedSession) else load_session(source)
        rebuilt = rebuild(loaded.events, loaded.header.model)
        notes = list(loaded.notes) + rebuilt.notes
        self.recorder.continue_file(loaded, rebuilt.message_count)
        self.conversation.history.restore(
            rebuilt.messages, rebuilt.numbers, rebuilt.usage, rebuilt.memory
        )
        self.skills.active = ActiveSkills([self.skills.vouched(s) for s in rebuilt.snapshots])
        if self.conversation.deferral is not None:  # the tools its searches found
            self.conversation.deferral.restore(rebuilt.found_tools)
        if self.file_changes is not None:  # its changes can still be undone
            self.file_changes.restore(rebuilt.file_changes, rebuilt.undone, loaded.header.project)
        if self.subagents is not None:  # listed by /agents, never run again
            self.subagents.restore(rebuilt.subagents)
        self.todos.restore(rebuilt.todos)
        notes.extend(self._changed_skills(self.skills.active.snapshots))
        mode = rebuilt.plan_mode
        self.conversation.plan.restore(PlanState(mode.on, mode.mcp))
        if mode.on:
            notes.append("this session is in plan mode (/plan or Shift-Tab leaves it)")
        if rebuilt.model and rebuilt.model != self.model_name:
            self.recorder.record(ModelChangeEvent(rebuilt.model, self.model_name))
            notes.append(f"this session used {rebuilt.model}; it continues with {self.model_name}")
        return notes

    def _changed_skills(self, snapshots: list[SkillSnapshot]) -> list[str]:
        notes = []
        for snapshot in snapshots:
            skill = self.skills.find(snapshot.name)
            if snapshot.served and skill is None:
                continue  # its server's skills are listed once the servers are up
            if skill is not None and skill.served:
                continue  # served: compared when activated again (the listing has no body)
            if skill is None:
                notes.append(
                    f"skill {snapshot.name!r} is no longer available; its saved instructions "
                    "stay in force for this session"
                )
            elif self.skills.moved_since_activated(snapshot):
                notes.append(
                    f"skill {snapshot.name!r}'s folder is not the one it was activated in; none "
                    "of its files is read or run until you activate it again "
                    f"(/skill {snapshot.name})"
                )
            elif snapshot_of(skill).body_sha256 != snapshot.body_sha256:
                notes.append(
                    f"skill {snapshot.name!r} changed on disk since it was activated; the saved "
                    f"version stays in force until you activate it again (/skill {snapshot.name})"
                )
        return notes

    # -- model ------------------------------------------------------------------------------

    def switch_model(self, name: str, api_base: str | EllipsisType | None = ...) -> str:
        """/model NAME: the rest of the session uses `name` (served at `api_base`; by default
        the current address is kept only for a model of the same provider, so another
        provider's key is never sent there); returns the previous model."""
        from dataclasses import replace

        from agent.model import LiteLLMModel, chat_model
        from agent.settings import model_provider

        current = self.conversation.model
        if not isinstance(current, LiteLLMModel):
            raise AgentError("this chat's model cannot be switched")
        if isinstance(api_base, EllipsisType):
            same = model_provider(name) == model_provider(current.settings.name)
            api_base = current.settings.api_base if same else None
        previous = self.model_name
        self.conversation.model = chat_model(
            replace(current.settings, name=name, api_base=api_base)
        )
        self.model_name = name
        self.recorder.model = name
        self.recorder.record(ModelChangeEvent(previous, name))
        return previous

    # -- compaction -------------------------------------------------------------------------

    def turns_to_compact(self) -> int:
        """How many of the older turns /compact would summarise (0: too few turns yet; the
        last `keep_recent_turns` always stay as they are)."""
        from agent.session.compaction import split_point

        messages = list(self.conversation.history)
        cut = split_point(messages, self.keep_recent_turns)
        return sum(message.role == "user" for message in messages[:cut])

    async def compact(self, focus: str | None = None) -> str:
        """/compact: summarise older turns now; returns a line for the person."""
        _summary, count = await self.conversation.compact(self.keep_recent_turns, focus)
        return f"Compacted {plural(count, 'earlier message')} into session memory."

    def needs_compaction(self) -> bool:
        """True when the next request would fill more than the configured share of the window."""
        limit = (self.context_window() or ASSUMED_WINDOW) * self.compact_at_share
        return estimate_tokens(self.conversation.request_messages(estimate=True)) > limit
