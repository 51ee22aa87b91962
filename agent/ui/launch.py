"""Running a chat in the terminal: interactive on a tty, one turn with -p or piped stdin.

Called by cli.py only. The one-shot path never loads prompt_toolkit: its dialogs load only
when a call needs a person and /dev/tty could be opened.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio

from agent import __version__
from agent.chat.approval import Approver, DenyAll
from agent.chat.build import FrontEnd, build_chat
from agent.chat.plan_review import NoPersonReviews, PlanReviewer
from agent.errors import AgentError
from agent.home import data_home
from agent.model import LOADER, load_for
from agent.project import find_project_dir
from agent.text import sanitize, sanitize_line

if TYPE_CHECKING:
    from agent.chat.state import ChatSession
    from agent.mcp.forms.elicitation import ElicitationHandler
    from agent.mcp.trust.question import TrustPrompt


def run_chat(
    model_name: str,
    api_base: str | None,
    resume: str | None = None,
    *,
    prompt: str | None = None,
    output_format: str = "text",
    servers: frozenset[str] | None = None,
    verbose: bool = False,
) -> int:
    """The chat (interactive on a terminal; one turn with -p or piped stdin); the exit code.

    `resume`: "latest" (--continue), "pick" (--resume with no id), a session id, or None.
    `prompt` (-p) and `output_format` select and shape one-shot mode (agent/ui/oneshot.py).
    `servers`: the only MCP servers of this run (--mcp, --no-mcp); None: every enabled one.
    `verbose`: one-shot mode says its servers' "ready" lines on stderr too.
    """
    project = find_project_dir()
    interactive = prompt is None and sys.stdin.isatty()
    front = _front_end(interactive, quiet=not interactive and not verbose)

    def prepare() -> ChatSession:
        return build_chat(model_name, api_base, project, front, servers)

    if interactive:
        from agent.ui.chat import ChatSetup, run_interactive

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
        code = _run_one_shot(prepare, model_name, api_base, prompt, output_format, resume)
    return _exit_fast(code)


def _run_one_shot(
    prepare: Callable[[], ChatSession],
    model_name: str,
    api_base: str | None,
    prompt: str | None,
    output_format: str,
    resume: str | None,
) -> int:
    """-p, or stdin piped: one turn, approval asked on the controlling terminal if any."""
    from agent.ui.oneshot import (
        EXIT_USAGE,
        ControllingTerminalApprover,
        make_output,
        one_shot_input,
        run_one_shot,
    )

    sent = one_shot_input(prompt, sys.stdin)
    if not sent.text.strip():
        print(
            "agent: nothing to send: give a prompt with -p or pipe text to stdin", file=sys.stderr
        )
        return EXIT_USAGE
    load_for(model_name, api_base)  # litellm imports in the background while the chat is built
    output = make_output(output_format, model_name)
    try:
        chat = prepare()
        for line in chat.notes:
            output.note(line)
        if resume is not None:
            _resume_quietly(chat, resume, output.note)
    except AgentError as error:
        return output.fail(str(error))
    with ControllingTerminalApprover() as approver:
        chat.conversation.approver = approver
        return anyio.run(run_one_shot, chat, sent, output)


def _resume_quietly(chat: ChatSession, resume: str, note: Callable[[str], None]) -> None:
    from agent.session.store import find_session, list_sessions

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


def _front_end(interactive: bool, quiet: bool = False) -> FrontEnd:
    """The chat's dialogs on a terminal; without one, every question is a refusal. `quiet`:
    the servers' "ready" lines go to their logs only (one-shot mode without --verbose)."""
    return FrontEnd(
        interactive=interactive,
        approver=_approver(interactive),
        trust=lambda: _trust(interactive),
        elicitation=lambda: _elicitation(interactive),
        report=_report_in_chat if interactive else _report,
        quiet=quiet,
        plans=_plan_reviewer(interactive),
    )


def _plan_reviewer(interactive: bool) -> PlanReviewer:
    if not interactive:
        return NoPersonReviews()  # a session resumed in plan mode by `agent -p`
    from agent.ui.dialogs.plan_review import ChatPlanReviewer

    return ChatPlanReviewer()


def _approver(interactive: bool) -> Approver:
    if not interactive:
        return DenyAll()
    from agent.ui.dialogs.approval import ChatApprover

    return ChatApprover()


def _trust(interactive: bool) -> TrustPrompt:
    if not interactive:
        from agent.mcp.trust.question import DenyTrust

        return DenyTrust()
    from agent.ui.dialogs.confirm import TRUST_QUESTION, ChatConfirm

    return ChatConfirm(TRUST_QUESTION)  # asked only by the person's own /mcp trust or enable


def _elicitation(interactive: bool) -> ElicitationHandler:
    if not interactive:
        from agent.mcp.forms.elicitation import DeclineElicitation

        return DeclineElicitation(tell=_report)  # a page it wanted is said, with its host
    from agent.ui.dialogs.elicitation import ChatElicitation

    return ChatElicitation()


def _report(text: str) -> None:
    print(sanitize(text), file=sys.stderr)


def _report_in_chat(text: str) -> None:
    """A notice of the chat's own (a server ready, failed): on a line of its own, never glued
    to the spinner's half-drawn line (the chat has loaded the spinner long before), and never
    in the middle of a chooser (it waits until the chooser closes)."""
    from agent.ui.notices import deliver

    deliver(text, _show_in_chat)


def _show_in_chat(text: str) -> None:
    from agent.ui.spinner import write_clear_of_spinners

    if not write_clear_of_spinners(sanitize(text)):
        _report(text)


def _exit_fast(code: int) -> int:
    # litellm takes about a second to tear down at interpreter exit (and an import still
    # running in its thread must not meet the interpreter's finalization); everything of ours
    # is closed and written by now, so flush and leave.
    if LOADER.started:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code
