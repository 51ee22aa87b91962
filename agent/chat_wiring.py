"""Wiring the chat together: model, tools, MCP host, approver, terminal. Called by cli.py only.

Kept apart from cli.py so `agent --help` never loads any of it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from agent import __version__
from agent.approval import Approver, DenyAll
from agent.errors import AgentError
from agent.home import data_home
from agent.loop import Conversation
from agent.mcp.host import McpHost
from agent.model import LOADER, LiteLLMModel, ModelSettings
from agent.project import find_project_dir
from agent.prompt import SystemPrompt
from agent.tools.builtin import BuiltinToolset

if TYPE_CHECKING:
    from agent.mcp.runtime import McpRuntime
    from agent.settings import Settings


def run_chat(model_name: str, api_base: str | None) -> int:
    """The chat (interactive on a terminal, one turn from piped stdin); returns the exit code."""
    from agent.ui.chat import ChatParts, ChatSetup, host_toolset, run_interactive, run_once

    project = find_project_dir()
    interactive = sys.stdin.isatty()

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
        host = McpHost(lambda: _make_runtime(settings, project, interactive), report=_report)
        conversation = Conversation(
            model,
            [BuiltinToolset(project), host_toolset(host)],
            _approver(interactive),
            SystemPrompt(project).render,
            max_tool_rounds=settings.loop.max_tool_rounds,
        )
        return ChatParts(conversation, host)

    if interactive:
        setup = ChatSetup(
            prepare=prepare,
            history_path=data_home() / "prompt-history",
            greeting=(
                f"agent {__version__} · {model_name} · {project}\n"
                "Enter sends, Alt+Enter adds a line, Ctrl-C stops an answer, /exit quits."
            ),
            load_model=LOADER.start,
        )
        code = anyio.run(run_interactive, setup)
    else:
        text = sys.stdin.read()
        if not text.strip():
            raise AgentError("stdin was empty: nothing to send to the model")
        parts = prepare()
        LOADER.start()
        code = anyio.run(run_once, parts.conversation, parts.host, text)
    return _exit_fast(code)


def _approver(interactive: bool) -> Approver:
    if not interactive:
        return DenyAll()
    from agent.ui.approval_dialog import TerminalApprover

    return TerminalApprover()


def _make_runtime(settings: Settings, project: Path, interactive: bool) -> McpRuntime:
    from agent.mcp.elicitation import DeclineElicitation, ElicitationHandler
    from agent.mcp.runtime import McpRuntime
    from agent.mcp.store import McpStore

    elicitation: ElicitationHandler = DeclineElicitation()
    if interactive:
        from agent.commands.terminal import TerminalElicitation

        elicitation = TerminalElicitation()
    return McpRuntime(
        McpStore(),
        settings.mcp,
        logs_dir=data_home(),
        project_dir=project,
        elicitation=elicitation,
    )


def _report(text: str) -> None:
    from agent.text import sanitize

    print(sanitize(text), file=sys.stderr)


def _exit_fast(code: int) -> int:
    # litellm takes about a second to tear down at interpreter exit; everything of ours is
    # closed and written by now, so flush and leave.
    if LOADER.loaded:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code
