"""One chat's state beyond the loop: its session file, skills, trust question, resume, new,
compaction. The terminal drives it through these operations; it knows no terminal itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent.errors import AgentError
from agent.loop import Conversation
from agent.mcp.host import McpHost
from agent.messages import Usage
from agent.session.compaction import compact, estimate_tokens
from agent.session.events import ModelChangeEvent, SkillActivationEvent, message_event
from agent.session.history import rebuild
from agent.session.recorder import SessionRecorder
from agent.session.store import load_session
from agent.skills.activation import ActiveSkills, SkillSnapshot, snapshot_of
from agent.skills.model import Discovery, Skill
from agent.skills.tools import SkillSession
from agent.skills.trust import SkillTrustPrompt, SkillTrustRequest, SkillTrustStore, usable_skills


def project_skills(discovery: Discovery) -> list[Skill]:
    """The project-scope skills found (all of them win over lower scopes, so all are listed)."""
    return [skill for skill in discovery.skills if skill.scope == "project"]


def usable_from(discovery: Discovery, project_trusted: bool) -> list[Skill]:
    """Skills the model may see, given the project's trust decision."""
    hidden = [shadowing.hidden for shadowing in discovery.shadowed]
    return usable_skills(list(discovery.skills), hidden, project_trusted)


@dataclass
class ChatSession:
    """Everything a chat keeps besides the loop's own history."""

    conversation: Conversation
    skills: SkillSession
    recorder: SessionRecorder
    project: Path
    model_name: str
    discovery: Discovery
    trust_store: SkillTrustStore
    context_window: Callable[[], int]
    compact_at_share: float = 0.8
    keep_recent_turns: int = 2
    pending_skill_trust: SkillTrustRequest | None = None
    notes: list[str] = field(default_factory=list)
    host: McpHost | None = None  # the chat's MCP side, for /mcp

    def __post_init__(self) -> None:
        self.skills.on_activate = self._record_activation

    def _record_activation(self, snapshot: SkillSnapshot) -> None:
        self.recorder.record(SkillActivationEvent(snapshot))

    # -- skills -----------------------------------------------------------------------------

    async def settle_skill_trust(self, prompt: SkillTrustPrompt) -> list[str]:
        """Ask the pending question about the project's skills, once; returns notes."""
        request, self.pending_skill_trust = self.pending_skill_trust, None
        if request is None:
            return []
        trusted = await prompt.confirm(request)
        self.trust_store.record(self.project, request.skills, "trusted" if trusted else "declined")
        self.skills.skills = usable_from(self.discovery, trusted)
        if trusted:
            return [f"Project skills trusted: {', '.join(s.name for s in request.skills)}"]
        return ["Project skills stay off (run `agent skills trust` to decide again)"]

    def activate_skill(self, name: str) -> tuple[SkillSnapshot, bool]:
        """The person's /skill NAME (may activate skills hidden from the model)."""
        return self.skills.activate(name, by_person=True)

    # -- sessions ---------------------------------------------------------------------------

    def new(self) -> None:
        """Start over: an empty history, no active skills, a new session file at the next turn."""
        self.recorder.start_new()
        self.conversation.history = []
        self.conversation.numbers = []
        self.conversation.usage = Usage()
        self.conversation.memory = None
        self.skills.active = ActiveSkills()

    def resume(self, path: Path) -> list[str]:
        """Continue the session saved at `path`; returns notes for the person."""
        loaded = load_session(path)
        rebuilt = rebuild(loaded.events, loaded.header.model)
        notes = list(loaded.notes) + rebuilt.notes
        self.recorder.continue_file(loaded, rebuilt.message_count)
        self.conversation.history = rebuilt.messages
        self.conversation.numbers = rebuilt.numbers
        # Results that repair added exist only in memory; write them, so the file and the
        # history agree again (compaction and the next resume depend on it).
        for index, number in enumerate(rebuilt.numbers):
            if number is None:
                event = message_event(rebuilt.messages[index])
                self.conversation.numbers[index] = self.recorder.record(event)
        self.conversation.usage = rebuilt.usage
        self.conversation.memory = rebuilt.memory
        self.skills.active = ActiveSkills(rebuilt.snapshots)
        notes.extend(self._changed_skills(rebuilt.snapshots))
        if rebuilt.model and rebuilt.model != self.model_name:
            self.recorder.record(ModelChangeEvent(rebuilt.model, self.model_name))
            notes.append(f"this session used {rebuilt.model}; it continues with {self.model_name}")
        return notes

    def _changed_skills(self, snapshots: list[SkillSnapshot]) -> list[str]:
        notes = []
        for snapshot in snapshots:
            skill = self.skills.find(snapshot.name)
            if skill is None:
                notes.append(
                    f"skill {snapshot.name!r} is no longer available; its saved instructions "
                    "stay in force for this session"
                )
            elif snapshot_of(skill).body_sha256 != snapshot.body_sha256:
                notes.append(
                    f"skill {snapshot.name!r} changed on disk since it was activated; the saved "
                    f"version stays in force until you activate it again (/skill {snapshot.name})"
                )
        return notes

    # -- model ------------------------------------------------------------------------------

    def switch_model(self, name: str) -> str:
        """/model NAME: the rest of the session uses `name`; returns the previous model."""
        from dataclasses import replace

        from agent.model import LiteLLMModel

        current = self.conversation.model
        if not isinstance(current, LiteLLMModel):
            raise AgentError("this chat's model cannot be switched")
        previous = self.model_name
        self.conversation.model = LiteLLMModel(replace(current.settings, name=name))
        self.model_name = name
        self.recorder.model = name
        self.recorder.record(ModelChangeEvent(previous, name))
        return previous

    # -- compaction -------------------------------------------------------------------------

    async def compact(self, focus: str | None = None) -> str:
        """/compact: summarise older turns now; returns a line for the person."""
        _summary, count = await compact(self.conversation, self.keep_recent_turns, focus)
        return f"Compacted {count} earlier messages into session memory."

    def needs_compaction(self) -> bool:
        """True when the next request would fill more than the configured share of the window."""
        limit = self.context_window() * self.compact_at_share
        return estimate_tokens(self.conversation.request_messages()) > limit
