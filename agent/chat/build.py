"""Wiring one chat from settings: model, tools, MCP host, skills, system prompt, session file.

The front end says how the person is asked (approver, trust prompt, elicitation, where MCP
progress goes); nothing here imports a terminal. Kept apart from cli.py so `agent --help`
never loads any of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent.chat.approval import Approver
from agent.chat.conversation import Conversation
from agent.chat.delegate import DelegateToolset
from agent.chat.file_changes import FileChangeLog
from agent.chat.plan_review import NoPersonReviews, PlanReviewer
from agent.chat.prompt import NamedSection, SystemPrompt
from agent.chat.server_notes import server_notes_section
from agent.chat.skill_folders import ActiveSkillFolders
from agent.chat.state import ASSUMED_WINDOW, ChatSession
from agent.chat.subagents import SubagentContext, Subagents
from agent.chat.todos import TodoList
from agent.home import data_home, mcp_store_path, own_folders
from agent.mcp.host import McpHost
from agent.model import ChatModel, LiteLLMModel, ModelSettings, chat_model
from agent.session.compaction import memory_section
from agent.session.recorder import SessionRecorder
from agent.skills.agent_definitions import SubagentDefinition
from agent.skills.agent_discovery import AgentDefinitions
from agent.skills.instruction_files import InstructionFiles, find_instruction_files
from agent.skills.instruction_prompt import ProjectInstructions
from agent.skills.model import Discovery, Skill
from agent.skills.tools import SkillSession
from agent.skills.trust import SkillTrustRequest, SkillTrustStore
from agent.skills.usable import project_skills, usable_from
from agent.text import noun_for, plural
from agent.tools.base import Toolset
from agent.tools.builtin import BuiltinToolset
from agent.tools.deferral import ToolDeferral

if TYPE_CHECKING:
    from agent.mcp.forms.elicitation import ElicitationHandler
    from agent.mcp.runtime import McpRuntime
    from agent.mcp.trust.question import TrustPrompt
    from agent.settings import Settings


@dataclass(frozen=True)
class FrontEnd:
    """How a chat reaches its person, chosen by the front end that runs it."""

    interactive: bool  # a person answers questions as they come (project skill trust)
    approver: Approver
    trust: Callable[[], TrustPrompt]  # called when the MCP side comes up (mcp imports are heavy)
    elicitation: Callable[[], ElicitationHandler]
    report: Callable[[str], None]  # MCP servers coming up, failing, not trusted
    quiet: bool = False  # servers' "ready" lines in their logs only (agent -p, not --verbose)
    plans: PlanReviewer = field(default_factory=NoPersonReviews)  # present_plan's question


def build_chat(
    model_name: str,
    api_base: str | None,
    project: Path,
    front: FrontEnd,
    servers: frozenset[str] | None = None,
) -> ChatSession:
    """Validate the settings and build the chat (about 150 ms); AgentError when they are bad.

    `servers`: the only MCP servers of this run (--mcp, --no-mcp); None: every enabled one."""
    from agent.settings import load_settings

    settings = load_settings()
    model = _model(settings, model_name, api_base)
    context_window, window_source = _window(settings, lambda: conversation.model)
    instructions = ProjectInstructions(
        instruction_files(project), settings.instructions.budget_bytes
    )
    found = _skills_for(project, front.interactive, instructions)
    skill_session = _skill_session(settings, found.skills, context_window)
    host = _mcp_host(settings, project, front, servers)
    # Without a person this is `agent -p` (or piped stdin): its session file says so.
    recorder = SessionRecorder(project, model_name, one_shot=not front.interactive)
    built: list[ChatSession] = []  # the chat its subagents are of, once built below
    tools = _chat_tools(settings, front, skill_session, host, recorder, context_window, built)
    deferral = _deferral(settings, host, context_window)
    conversation = _conversation(settings, model, front, tools, deferral)
    system_prompt = _system_prompt(project, instructions, tools, conversation)
    conversation.system_prompt = system_prompt.render  # it reads the conversation: set after
    chat = ChatSession(
        conversation=conversation,
        host=host,
        skills=skill_session,
        recorder=recorder,
        project=project,
        model_name=model_name,
        discovery=skills_discovery(project),
        trust_store=found.trust_store,
        context_window=context_window,
        window_source=window_source,
        compact_at_share=settings.sessions.compact_at_share,
        keep_recent_turns=settings.sessions.keep_recent_turns,
        pending_skill_trust=found.pending,
        notes=found.notes,
        agent_discovery=agent_definitions(project),  # read once: what `agents` were made of
        agent_definitions=found.agents,
        instructions=instructions,
        system_prompt=system_prompt,
        file_changes=tools.file_changes,
        subagents=tools.subagents,
        todos=tools.todos,
    )
    built.append(chat)
    return chat


def _conversation(
    settings: Settings,
    model: ChatModel,
    front: FrontEnd,
    tools: _ChatTools,
    deferral: ToolDeferral,
) -> Conversation:
    """The chat's conversation: its tools, the person's approver and plan reviewer, its
    session file; its system prompt is set once composed (the prompt reads it)."""
    return Conversation(
        model,
        tools.of_the_chat(),
        front.approver,
        lambda: "",
        max_tool_rounds=settings.loop.max_tool_rounds,
        recorder=tools.recorder,
        deferral=deferral,
        plan_reviewer=front.plans,
    )


@dataclass(frozen=True)
class _ChatTools:
    file_changes: FileChangeLog
    shared: list[Toolset]  # the chat's tools a subagent may get (its kind chooses among them)
    subagents: Subagents
    todos: TodoList  # the chat's own, like delegate: a subagent goes without them
    skills: SkillSession
    host: McpHost
    recorder: SessionRecorder

    def of_the_chat(self) -> list[Toolset]:
        """The chat's toolsets in the order its requests list them: the built-in ones first
        (so /context's rows by source add up), then skills and MCP."""
        builtin, *others = self.shared
        return [builtin, self.todos, DelegateToolset(self.subagents, depth=1), *others]


def _chat_tools(
    settings: Settings,
    front: FrontEnd,
    skills: SkillSession,
    host: McpHost,
    recorder: SessionRecorder,
    context_window: Callable[[], int | None],
    built: list[ChatSession],
) -> _ChatTools:
    """Reading, changing files (kept for /undo), running commands, skills and MCP, and the
    subagents that may use them."""
    project = recorder.project
    file_changes = FileChangeLog(project, recorder, own_folders())
    builtin = _builtin_tools(project, settings, file_changes, skills)
    shared: list[Toolset] = [builtin, skills, host]
    subagents = _subagents(
        settings, front, (builtin, host), skills, recorder, context_window, built
    )
    todos = TodoList(recorder)
    return _ChatTools(file_changes, shared, subagents, todos, skills, host, recorder)


# The parts of the chat's system prompt a subagent's has too (after its own preamble): not the
# chat's session memory, nor its deferred tools (a subagent defers its own).
# (Its skills catalog and active skills are its own: agent.chat.subagents.)
SUBAGENT_SECTIONS = ("instruction files", "server instructions")


def _subagent_sections(prompt: SystemPrompt | None) -> list[NamedSection]:
    sections = prompt.sections if prompt is not None else []
    return [section for section in sections if section[0] in SUBAGENT_SECTIONS]


def _subagents(
    settings: Settings,
    front: FrontEnd,
    shared: Sequence[Toolset],
    skills: SkillSession,
    recorder: SessionRecorder,
    context_window: Callable[[], int | None],
    built: list[ChatSession],
) -> Subagents:
    """The chat's subagents: its tools (`shared`), its approver, its session; the chat's
    model, name, prompt and usage as they are when a subagent starts (`built[0]`)."""
    return Subagents(
        SubagentContext(
            recorder.project,
            model=lambda: built[0].conversation.model,
            model_name=lambda: built[0].model_name,
            model_named=lambda name: model_like(built[0].conversation.model, name),
            toolsets=shared,
            skills=skills,
            approver=front.approver,
            prompt_sections=lambda: _subagent_sections(built[0].system_prompt),
            recorder=recorder,
            count_usage=lambda usage: built[0].conversation.history.add_usage(usage),
            deferral=lambda: _deferral(settings, built[0].host, context_window),
            definitions=lambda: built[0].agent_definitions,  # the usable ones, trusted
            max_tool_rounds=settings.loop.max_tool_rounds,
        )
    )


def model_like(current: ChatModel, name: str) -> ChatModel:
    """The model `name` with the settings of the chat's (a subagent definition's model): the
    chat's address is kept only for a model of the same provider, so another provider's key
    is never sent there (as /model does)."""
    from dataclasses import replace

    from agent.settings import model_provider

    if not isinstance(current, LiteLLMModel):  # a test's scripted model: the chat's own
        return current
    same = model_provider(name) == model_provider(current.settings.name)
    api_base = current.settings.api_base if same else None
    return chat_model(replace(current.settings, name=name, api_base=api_base))


def _skill_session(
    settings: Settings, skills: list[Skill], context_window: Callable[[], int | None]
) -> SkillSession:
    """The chat's skills, whose catalog takes at most its share of the model's window."""
    budget = settings.skills.catalog_share * 4  # characters: about four a token
    return SkillSession(
        skills, catalog_budget=lambda: int((context_window() or ASSUMED_WINDOW) * budget)
    )


def _builtin_tools(
    project: Path, settings: Settings, file_changes: FileChangeLog, skills: SkillSession
) -> BuiltinToolset:
    """Reading, changing files (kept for /undo) and running commands (a skill's scripts from
    its folder while it is active)."""
    return BuiltinToolset(
        project,
        journal=file_changes,
        commands=settings.commands,
        skills=ActiveSkillFolders(skills),
    )


def _window(
    settings: Settings, model: Callable[[], object]
) -> tuple[Callable[[], int | None], Callable[[], str]]:
    """The model's context window (None: unknown) and where that figure comes from.

    The person's setting wins: they know what their model server gives (a local server may
    run a model with a smaller window than litellm's table says). Else litellm's table for
    the chat's model now (/model switches it); else unknown, never a guess shown as fact."""
    configured = settings.model_limits.context_window_tokens

    def table() -> int | None:
        window = getattr(model(), "context_window", None)
        return window() if callable(window) else None

    def source() -> str:
        if configured:
            return "model_limits.context_window_tokens in settings.yaml"
        return "litellm's model table" if table() else ""

    return (lambda: configured or table()), source


def _system_prompt(
    project: Path, instructions: ProjectInstructions, tools: _ChatTools, conversation: Conversation
) -> SystemPrompt:
    """Composed for each request: the instruction files, the skills catalog, the MCP servers'
    instructions and which of their tools are deferred, the active skills, plan mode's part
    while it is on, the session memory of this conversation, then the model's task list once
    compaction took its last update from the history (the ones that change least first: the
    cached prefix lasts longer)."""
    deferral, skills, host = conversation.deferral, tools.skills, tools.host
    return SystemPrompt(
        project,
        sections=[
            ("instruction files", instructions.section),
            ("skills catalog", skills.catalog_section),
            ("server instructions", lambda: server_notes_section(host.server_instructions())),
            ("deferred tools", deferral.prompt_line if deferral else lambda: ""),
            ("active skills", skills.active_section),
            ("plan mode", conversation.plan.prompt_section),
            ("session memory", lambda: memory_section(conversation.memory)),
            ("task list", lambda: tools.todos.section(conversation.history)),
        ],
    )


def _deferral(
    settings: Settings, host: McpHost, context_window: Callable[[], int | None]
) -> ToolDeferral:
    # The threshold's window is the chat's own (the person's setting, else litellm's for the
    # model in use now: /model switches it), else deferral.py's conservative
    # UNKNOWN_WINDOW_TOKENS.
    return ToolDeferral(context_window, host.defer_modes, share=settings.mcp.defer_tools_at_share)


def _model(settings: Settings, model_name: str, api_base: str | None) -> LiteLLMModel:
    from agent.settings import inherited_api_base

    return chat_model(
        ModelSettings(
            name=model_name,
            api_base=api_base or inherited_api_base(settings, model_name),
            api_key_env=settings.api_key_env,
            chunk_timeout_seconds=settings.model_limits.chunk_timeout_seconds,
            request_timeout_seconds=settings.model_limits.request_timeout_seconds,
            retries=settings.model_limits.retries,
        )
    )


_DISCOVERY_CACHE: dict[Path, Discovery] = {}


def skills_discovery(project: Path) -> Discovery:
    """The skills found for this project (discovered once per run)."""
    if project not in _DISCOVERY_CACHE:
        from agent.skills.discovery import discover_skills  # yaml: after the prompt is drawn

        _DISCOVERY_CACHE[project] = discover_skills(project)
    return _DISCOVERY_CACHE[project]


_AGENTS_CACHE: dict[Path, AgentDefinitions] = {}


def agent_definitions(project: Path) -> AgentDefinitions:
    """The subagent definitions found for this project (read once per run: what is trusted
    and used is what was read then)."""
    if project not in _AGENTS_CACHE:
        from agent.skills.agent_discovery import discover_definitions  # yaml, as skills

        _AGENTS_CACHE[project] = discover_definitions(project)
    return _AGENTS_CACHE[project]


_INSTRUCTIONS_CACHE: dict[tuple[Path, Path], InstructionFiles] = {}


def instruction_files(project: Path) -> InstructionFiles:
    """The instruction files for this project and working directory (read once per run)."""
    key = (project, Path.cwd())
    if key not in _INSTRUCTIONS_CACHE:
        _INSTRUCTIONS_CACHE[key] = find_instruction_files(project, key[1])
    return _INSTRUCTIONS_CACHE[key]


@dataclass(frozen=True)
class _ProjectFiles:
    """What the chat may use of the skills and definitions found, and what it asks."""

    skills: list[Skill]
    trust_store: SkillTrustStore
    pending: SkillTrustRequest | None  # the one question about the project's files
    notes: list[str]
    agents: tuple[SubagentDefinition, ...]  # the usable subagent definitions


def _skills_for(
    project: Path, interactive: bool, instructions: ProjectInstructions
) -> _ProjectFiles:
    """Usable skills now, the trust store, a pending trust question, notes to show, and the
    usable subagent definitions (the person's own, the project's trusted as they were read).

    One question covers the project's skills, instruction files and subagent definitions
    that are undecided."""
    discovery = skills_discovery(project)
    agents = agent_definitions(project)
    notes = [shadowing.note() for shadowing in discovery.shadowed]
    for skipped in discovery.skipped:
        reasons = "; ".join(d.message for d in skipped.diagnostics)
        notes.append(f"skill at {skipped.path} skipped: {reasons}")
    notes.extend(f"instruction file {line}" for line in instructions.files.skipped)
    notes.extend(agents.notes())
    trust_store = SkillTrustStore()
    mine = project_skills(discovery)
    files = instructions.files.project
    theirs = agents.project()
    if interactive:  # the question carries the digests it shows: each folder hashed once
        trust, pending = trust_store.assess(project, mine, files, theirs)
    else:
        trust, pending = trust_store.state(project, mine, files, theirs), None
        if trust.status == "ask":
            skills = len(mine) if trust.skills == "ask" else 0
            notes.append(
                _untrusted_note(
                    skills,
                    [f.label for f in trust.undecided_files],
                    [d.label for d in trust.undecided_agents],
                )
            )
    # Each file on its own: those trusted as read are used, whichever folder trusted them.
    instructions.trusted_labels = frozenset(trust.trusted_files)
    usable = usable_from(discovery, trust.skills == "trusted")
    return _ProjectFiles(usable, trust_store, pending, notes, agents.usable(trust.trusted_agents))


def _untrusted_note(skills: int, files: list[str], agents: list[str]) -> str:
    """Without a person to ask: what stays off, and how to decide."""
    kept_off = [plural(skills, "project skill")] if skills else []
    if files:
        kept_off.append(f"the instruction {noun_for(len(files), 'file')} {', '.join(files)}")
    if agents:
        noun = noun_for(len(agents), "definition")
        kept_off.append(f"the subagent {noun} {', '.join(agents)}")
    verb = "is" if skills + len(files) + len(agents) == 1 else "are"
    listed = " and ".join(kept_off[-2:])
    if len(kept_off) > 2:
        listed = f"{kept_off[0]}, {listed}"
    return (
        f"{listed} {verb} not trusted and stay off (only trusted ones are used "
        "without a terminal to ask); run `agent skills trust` to decide"
    )


def _mcp_host(
    settings: Settings, project: Path, front: FrontEnd, servers: frozenset[str] | None
) -> McpHost:
    """The host and the runtime it brings up read the same store (the person's), as this
    run sees it (only `servers`, when chosen)."""
    store_path = mcp_store_path()
    return McpHost(
        lambda: _make_runtime(settings, project, front, store_path, servers),
        report=front.report,
        store_path=store_path,
        chosen=servers,
        quiet=front.quiet,
    )


def _make_runtime(
    settings: Settings,
    project: Path,
    front: FrontEnd,
    store_path: Path,
    servers: frozenset[str] | None,
) -> McpRuntime:
    from agent.mcp.run_servers import RunStore
    from agent.mcp.runtime import McpRuntime

    return McpRuntime(
        RunStore(store_path, servers),
        settings.mcp,
        logs_dir=data_home(),
        project_dir=project,
        trust=front.trust(),
        elicitation=front.elicitation(),
        on_restarted=lambda name: front.report(
            f"MCP server {name} stopped unexpectedly; restarted it"
        ),
    )
