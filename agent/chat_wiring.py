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
from agent.settings import Settings
from agent.tools.builtin import BuiltinToolset

if TYPE_CHECKING:
    from agent.mcp.runtime import McpRuntime


def run_chat(settings: Settings, model_name: str, api_base: str | None) -> int:
    """The chat (interactive on a terminal, one turn from piped stdin); returns the exit code."""
    project = find_project_dir()
    interactive = sys.stdin.isatty()
    model = LiteLLMModel(
        ModelSettings(
            name=model_name,
            api_base=api_base,
            api_key_env=settings.api_key_env,
            chunk_timeout_seconds=settings.model_limits.chunk_timeout_seconds,
            request_timeout_seconds=settings.model_limits.request_timeout_seconds,
            retries=settings.model_limits.retries,
        )
    )
    host = McpHost(lambda: _make_runtime(settings, project, interactive), report=_report)
    approver: Approver
    if interactive:
        from agent.ui.approval_dialog import TerminalApprover

        approver = TerminalApprover()
    else:
        approver = DenyAll()
    from agent.ui.chat import ChatSetup, host_toolset, run_interactive, run_once

    conversation = Conversation(
        model,
        [BuiltinToolset(project), host_toolset(host)],
        approver,
        SystemPrompt(project).render,
        max_tool_rounds=settings.loop.max_tool_rounds,
    )
    if interactive:
        setup = ChatSetup(
            conversation=conversation,
            host=host,
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
        LOADER.start()
        code = anyio.run(run_once, conversation, host, text)
    return _exit_fast(code)


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
