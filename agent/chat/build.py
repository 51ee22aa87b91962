"""Wiring the chat together: model, tools, MCP host, approver, terminal. Called by cli.py only.

Kept apart from cli.py so `agent --help` never loads any of it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from agent import __version__
from agent.approval import Approver, DenyAll
from agent.chat_session import ChatSession, project_skills, usable_from
from agent.errors import AgentError
from agent.home import data_home
from agent.loop import Conversation
from agent.mcp.host import McpHost
from agent.model import LOADER, LiteLLMModel, ModelSettings
from agent.project import find_project_dir
from agent.prompt import SystemPrompt
from agent.session.compaction import memory_section
from agent.session.recorder import SessionRecorder
from agent.skills.model import Discovery, Skill
from agent.skills.tools import SkillSession
from agent.skills.trust import SkillTrustRequest, SkillTrustStore
from agent.text import sanitize, sanitize_line
from agent.tools.builtin import BuiltinToolset

if TYPE_CHECKING:
    from agent.mcp.runtime import McpRuntime
    from agent.settings import Settings
    from agent.ui.chat import ChatParts


def run_chat(
    model_name: str,
    api_base: str | None,
    resume: str | None = None,
    *,
    prompt: str | None = None,
    output_format: str = "text",
) -> int:
    """The chat (interactive on a terminal; one turn with -p or piped stdin); the exit code.

    `resume`: "latest" (--continue), "pick" (--resume with no id), a session id, or None.
    `prompt` (-p) and `output_format` select and shape one-shot mode (agent/ui/oneshot.py).
    """
    project = find_project_dir()
    interactive = prompt is None and sys.stdin.isatty()
    if interactive:
        from agent.ui.chat import ChatParts, ChatSetup, host_toolset, run_interactive
    else:  # the same two shapes without loading prompt_toolkit
        from agent.ui.oneshot import ChatParts, host_toolset

    def prepare() -> ChatParts:
        from agent.settings import load_settings

        settings = load_settings()
        model = LiteLLMModel(
            ModelSettings(
                name=model_name,
                api_base=api_base or settings.api_base,
                api_key_env=settings.api_key_env,
                chunk_timeout_seconds=settings.model_limits.chunk_timeout_seconds,
                request_timeout_seconds=settings.model_limits.request_timeout_seconds,
                retries=settings.model_limits.retries,
            )
        )

        def context_window() -> int:
            return model.context_window() or settings.model_limits.context_window_tokens

        skills, trust_store, pending, notes = _skills_for(project, interactive)
        skill_session = SkillSession(
            skills,
            catalog_budget=lambda: int(context_window() * settings.skills.catalog_share * 4),
        )
        host = McpHost(lambda: _make_runtime(settings, project, interactive), report=_report)
        recorder = SessionRecorder(project, model_name)
        conversation = Conversation(
            model,
            [BuiltinToolset(project), skill_session, host_toolset(host)],
            _approver(interactive),
            lambda: system_prompt.render(),
            max_tool_rounds=settings.loop.max_tool_rounds,
            recorder=recorder,
        )
        # The system prompt is composed for each request: skills catalog and active skills,
        # then the session memory of this conversation.
        system_prompt = SystemPrompt(
            project,
            sections=[skill_session.prompt_sections, lambda: memory_section(conversation.memory)],
        )
        chat = ChatSession(
            conversation=conversation,
            skills=skill_session,
            recorder=recorder,
            project=project,
            model_name=model_name,
            discovery=skills_discovery(project),
            trust_store=trust_store,
            context_window=context_window,
            compact_at_share=settings.sessions.compact_at_share,
            keep_recent_turns=settings.sessions.keep_recent_turns,
            pending_skill_trust=pending,
            notes=notes,
            host=host,
        )
        return ChatParts(conversation, host, chat)

    if interactive:
        setup = ChatSetup(
            prepare=prepare,
            history_path=data_home() / "prompt-history",
            greeting=(
                f"agent {__version__} · {sanitize_line(model_name)} · "
                f"{sanitize_line(str(project))}\n"
                "Enter sends, Alt+Enter adds a line, Ctrl-C stops an answer, /help lists "
                "commands, /exit quits."
            ),
            load_model=LOADER.start,
            resume=resume,
        )
        code = anyio.run(run_interactive, setup)
    else:
        code = _run_one_shot(prepare, model_name, prompt, output_format, resume)
    return _exit_fast(code)


def _run_one_shot(
    prepare: Callable[[], ChatParts],
    model_name: str,
    prompt: str | None,
    output_format: str,
    resume: str | None,
) -> int:
    """-p, or stdin piped: one turn, approval asked on the controlling terminal if any."""
    from agent.ui.oneshot import (
        EXIT_USAGE,
        ControllingTerminalApprover,
        make_output,
        one_shot_text,
        run_one_shot,
    )

    text = one_shot_text(prompt, sys.stdin)
    if not text.strip():
        print(
            "agent: nothing to send: give a prompt with -p or pipe text to stdin", file=sys.stderr
        )
        return EXIT_USAGE
    LOADER.start()  # litellm imports in the background while the parts are built
    output = make_output(output_format, model_name)
    try:
        parts = prepare()
        for line in parts.chat.notes:
            output.note(line)
        if resume is not None:
            _resume_quietly(parts, resume, output.note)
    except AgentError as error:
        return output.fail(str(error))
    with ControllingTerminalApprover() as approver:
        parts.conversation.approver = approver
        return anyio.run(run_one_shot, parts, text, output)


_DISCOVERY_CACHE: dict[Path, Discovery] = {}


def skills_discovery(project: Path) -> Discovery:
    """The skills found for this project (discovered once per run)."""
    if project not in _DISCOVERY_CACHE:
        from agent.skills.discovery import discover_skills  # yaml: after the prompt is drawn

        _DISCOVERY_CACHE[project] = discover_skills(project)
    return _DISCOVERY_CACHE[project]


def _skills_for(
    project: Path, interactive: bool
) -> tuple[list[Skill], SkillTrustStore, SkillTrustRequest | None, list[str]]:
    """Usable skills now, the trust store, a pending trust question, and notes to show."""
    discovery = skills_discovery(project)
    notes = [shadowing.note() for shadowing in discovery.shadowed]
    for skipped in discovery.skipped:
        reasons = "; ".join(d.message for d in skipped.diagnostics)
        notes.append(f"skill at {skipped.path} skipped: {reasons}")
    trust_store = SkillTrustStore()
    mine = project_skills(discovery)
    status = trust_store.status(project, mine)
    pending = None
    if status == "ask":
        if interactive:
            pending = trust_store.request(project, mine)
        else:
            notes.append(
                f"{len(mine)} project skill(s) are not trusted and stay off; "
                "run `agent skills trust` to decide"
            )
    return usable_from(discovery, status == "trusted"), trust_store, pending, notes


def _resume_quietly(parts: ChatParts, resume: str, note: Callable[[str], None]) -> None:
    from agent.session.store import find_session, list_sessions

    chat = parts.chat
    if resume in ("latest", "pick"):
        latest = list_sessions(project=chat.project)
        if not latest:
            note("no earlier session in this project to continue")
            return
        path = latest[0].path
    else:
        path = find_session(resume)
    for line in chat.resume(path):
        note(line)


def _approver(interactive: bool) -> Approver:
    if not interactive:
        return DenyAll()
    from agent.ui.approval_dialog import TerminalApprover

    return TerminalApprover()


def _make_runtime(settings: Settings, project: Path, interactive: bool) -> McpRuntime:
    from agent.mcp.elicitation import DeclineElicitation, ElicitationHandler
    from agent.mcp.runtime import McpRuntime
    from agent.mcp.store import McpStore
    from agent.mcp.trust import DenyTrust, TrustPrompt

    elicitation: ElicitationHandler = DeclineElicitation()
    if interactive:
        from agent.ui.elicitation_dialog import ChatElicitation

        elicitation = ChatElicitation()
    trust: TrustPrompt = DenyTrust()
    if interactive:
        from agent.ui.trust_dialog import ChatTrustPrompt

        trust = ChatTrustPrompt()  # asked only by the person's own /mcp trust or enable
    return McpRuntime(
        McpStore(),
        settings.mcp,
        logs_dir=data_home(),
        project_dir=project,
        trust=trust,
        elicitation=elicitation,
    )


def _report(text: str) -> None:
    print(sanitize(text), file=sys.stderr)


def _exit_fast(code: int) -> int:
    # litellm takes about a second to tear down at interpreter exit; everything of ours is
    # closed and written by now, so flush and leave.
    if LOADER.loaded:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code
