"""The interactive chat: prompt_toolkit input, streamed answers, Ctrl-C that stops a turn.

The prompt is drawn before anything heavy loads: litellm and the MCP side come up in the
background, and their progress is printed above the prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import anyio
import anyio.abc
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.completion import ThreadedCompleter
from prompt_toolkit.filters import emacs_insert_mode, has_completions, vi_insert_mode
from prompt_toolkit.history import FileHistory, History
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.shortcuts import PromptSession

from agent.chat.state import ChatSession
from agent.errors import AgentError
from agent.messages import Part
from agent.text import error_lines, noun_for, sanitize, sanitize_line
from agent.ui.completion.completer import chat_completer
from agent.ui.completion.tab import complete_or_go_into
from agent.ui.fit import glimpse
from agent.ui.interrupt import ctrl_c_cancels
from agent.ui.render import EventRenderer, preload_markdown
from agent.ui.slash.commands import EXIT, run_slash, switch_plan_mode
from agent.ui.spinner import mcp_progress
from agent.ui.style import styled
from agent.ui.toolbar import StatusToolbar
from agent.ui.typeahead import TypeAhead

T = TypeVar("T")
PLAN_NOT_YET = "Shift-Tab: the chat is still starting; press it again in a moment."


@dataclass
class ChatSetup:
    """Everything the interactive chat needs, wired by agent/ui/launch.py."""

    prepare: Callable[[], ChatSession]  # validates settings, builds the chat (~150 ms)
    history_path: Path
    greeting: str
    load_model: Callable[[], None]  # starts the background import of litellm
    resume: str | None = None  # "pick", "latest", a session id, or None


async def _interruptible(action: Callable[[], Awaitable[T]]) -> T | None:
    """Run `action` so that Ctrl-C (SIGINT) cancels it: /compact, /mcp restart, a resume..."""
    with ctrl_c_cancels(ignore_after=True):
        return await action()
    print(styled("(interrupted)", "yellow"))
    return None


async def _run_turn(
    chat: ChatSession,
    text: str,
    renderer: EventRenderer,
    parts: list[Part] | None = None,
    typeahead: TypeAhead | None = None,
    files: Sequence[Part] = (),
) -> bool:
    """One turn; Ctrl-C (SIGINT) cancels it. Returns True when it was interrupted.
    `parts`: what goes with the text (a prompt's messages); None: read its @-mentions.
    `typeahead`: reads the next message while the turn runs. `files`: its @path files."""
    reading = typeahead.reading() if typeahead is not None else contextlib.nullcontext()
    # Between turns Ctrl-C is a key again (ignore_after): the prompt reads it.
    with (
        reading,
        ctrl_c_cancels(ignore_after=True) as scope,
        mcp_progress(renderer.progress),
    ):
        renderer.begin()
        try:
            async with chat.host.request_scope():
                if parts is None:
                    parts = [*files, *await _attachments(chat, text, renderer)]
                async for event in chat.conversation.turn(text, parts):
                    renderer.render(event)
        finally:
            renderer.end()
    if scope.cancelled_caught:
        renderer.interrupted()
    return scope.cancelled_caught


async def _wait_for_servers(
    chat: ChatSession, renderer: EventRenderer, typeahead: TypeAhead
) -> None:
    """Hold the request until the enabled MCP servers that are still starting are up, so
    their tools (and skills) are in it; Ctrl-C sends without them. Keys typed meanwhile are
    typed ahead, as during the turn."""
    waited: list[str] = []

    def show(names: list[str]) -> None:
        waited[:] = names
        shown = ", ".join(sanitize_line(name) for name in names)
        server = "MCP " + noun_for(len(names), "server")
        renderer.waiting(f"Waiting for {server} {shown} (Ctrl-C sends without)")

    with typeahead.reading(), ctrl_c_cancels(ignore_after=True) as scope:
        await chat.host.wait_for_servers(show)
    renderer.waiting(None)
    if scope.cancelled_caught and waited:
        renderer.aside(f"sending without {', '.join(waited)} (still starting)", "yellow")


async def _list_prompts_when_started(chat: ChatSession, stop: anyio.Event) -> None:
    """List the servers' prompts once they are up, so /help and Tab know them at once.

    Leaving the chat (`stop`) ends it: listing starts a server that is not running, and
    a server whose start the exit cancelled would otherwise be started again, holding the
    exit for its whole start-up timeout."""
    from agent.chat.prompt_commands import listed_prompt_commands

    async with anyio.create_task_group() as group:

        async def cancel_on_stop() -> None:
            await stop.wait()
            group.cancel_scope.cancel()

        group.start_soon(cancel_on_stop)
        await chat.host.started.wait()
        if not stop.is_set():
            with contextlib.suppress(AgentError):
                async with chat.host.request_scope():
                    await listed_prompt_commands(chat.host.runtime)
        group.cancel_scope.cancel()


async def _attachments(chat: ChatSession, text: str, renderer: EventRenderer) -> list[Part]:
    """Read the resources the message @-mentions (the person chose them: no approval)."""
    if "@" not in text:
        return []
    from agent.chat.attachments import read_mentions

    attached = await read_mentions(text, chat.host.runtime)
    for line in attached.attached:
        renderer.aside(f"⎿ attached {line}")
    for line in attached.notes:
        renderer.aside(line, "yellow")
    return attached.parts


async def _file_attachments(chat: ChatSession, text: str) -> list[Part] | None:
    """The project files the message @-mentions, said as attached; None when one is refused:
    each refusal is said in one line and nothing is sent."""
    if "@" not in text:
        return []
    import anyio.to_thread

    from agent.chat.file_attachments import file_mentions

    found = await anyio.to_thread.run_sync(file_mentions, text, chat.project, chat.host.runtime)
    for line in found.refused:
        print(styled(line, "red"))
    if found.refused:
        print(styled("Nothing was sent: your message is back at the prompt to correct.", "dim"))
        return None
    for line in found.attached:
        print(styled(sanitize_line(f"⎿ attached {line}"), "dim"))
    return found.parts


def _bindings(chat: Callable[[], ChatSession | None] = lambda: None) -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        # Ctrl-C clears a line being typed; at an empty prompt it asks to exit.
        buffer = event.app.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt)

    # After `@r` took `rs:`, a second Tab lists rs's resources (not back to `@r`).
    bindings.add("tab", filter=emacs_insert_mode | vi_insert_mode)(complete_or_go_into)

    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.app.current_buffer.insert_text("\n")

    # Shift-Tab as in Claude Code: plan mode on or off (the completion menu keeps it for
    # going back while it is open).
    @bindings.add("s-tab", filter=~has_completions)
    def _plan_mode(event: KeyPressEvent) -> None:
        current = chat()
        # Still starting (a split second): there is no chat to switch yet, and a key that
        # does nothing must say so.
        line = PLAN_NOT_YET if current is None else switch_plan_mode(current)
        run_in_terminal(lambda: print(styled(line, "yellow")))

    return bindings


def prompt_session(history: History, chat: Callable[[], ChatSession | None]) -> PromptSession[str]:
    """The chat's prompt: Enter sends, Esc Enter adds a line, a paste stays one message,
    Ctrl-R searches the history, Tab completes slash commands, a toolbar shows the status."""
    return PromptSession(
        history=history,
        key_bindings=_bindings(chat),
        # Listing sessions reads files; resources may be asked of a server.
        completer=ThreadedCompleter(chat_completer(chat, _running_loop())),
        complete_while_typing=True,
        search_ignore_case=True,  # Ctrl-R: "build" finds "Build", as people expect of a search
        bottom_toolbar=StatusToolbar(chat),
        refresh_interval=1.0,  # the toolbar follows MCP servers coming up
    )


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # built outside the chat's loop (tests): completion uses caches only
        return None


def _history(path: Path) -> FileHistory:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # prompts may hold secrets
    return FileHistory(str(path))


async def run_interactive(setup: ChatSetup) -> int:
    """The REPL until /exit, Ctrl-D, or Ctrl-C twice at an empty prompt.

    The prompt is drawn first; settings, litellm and the MCP servers come up behind it.
    """
    renderer = EventRenderer()
    stop = anyio.Event()
    ready = anyio.Event()
    chats: list[ChatSession] = []  # the chat, once it is built behind the prompt
    failure: list[AgentError] = []
    session = prompt_session(_history(setup.history_path), lambda: chats[0] if chats else None)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, lambda: None)

    async def bring_up(group: anyio.abc.TaskGroup) -> None:
        await anyio.sleep(0.05)  # let the prompt draw before the CPU-heavy set-up
        try:
            chats.append(setup.prepare())
        except AgentError as error:
            failure.append(error)
            group.cancel_scope.cancel()
            return
        if chats[0].subagents is not None:
            from agent.ui.subagent_lines import SubagentLines

            chats[0].subagents.listeners.append(SubagentLines(renderer))
        renderer.follow(chats[0].todos)
        group.start_soon(chats[0].host.serve, stop)
        group.start_soon(_list_prompts_when_started, chats[0], stop)
        setup.load_model()
        preload_markdown()
        for line in chats[0].notes:  # one line each: a folder name must not forge lines
            print(styled(sanitize_line(line), "yellow"))
        ready.set()

    try:
        with patch_stdout(raw=True):
            print(sanitize(setup.greeting))
            async with anyio.create_task_group() as group:
                group.start_soon(bring_up, group)
                await _repl(session, renderer, ready, chats, setup.resume)
                stop.set()
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    saved = chats[0].recorder.path if chats else None
    if saved is not None:
        # The way back to this conversation, where the person looks last: the file's name is
        # what --resume finds it by (a resumed file's header could say anything).
        print(styled(f"to continue: agent --resume {sanitize_line(saved.stem)}", "dim"))
    for error in failure:
        for line in error_lines(str(error)) or ["unknown error"]:
            print(f"agent: {line}", file=sys.stderr)
        return 1
    return 0


async def _repl(
    session: PromptSession[str],
    renderer: EventRenderer,
    ready: anyio.Event,
    chats: list[ChatSession],
    resume: str | None,
) -> None:
    if resume is not None:  # the person asked to continue: wait for the set-up, then resume
        await ready.wait()
        if chats:
            await _resume_at_start(chats[0], resume)
    typeahead = TypeAhead(
        renderer.queued, renderer.typed_ahead, renderer.queue_cleared, renderer.draft_kept
    )
    with typeahead.serving():
        await _serve(session, renderer, ready, chats, typeahead)


async def _serve(
    session: PromptSession[str],
    renderer: EventRenderer,
    ready: anyio.Event,
    chats: list[ChatSession],
    typeahead: TypeAhead,
) -> None:
    interrupted_once = False
    saving_failure_shown = False
    while True:
        try:
            text = await _next_message(session, typeahead)
        except KeyboardInterrupt:
            if interrupted_once:
                return
            interrupted_once = True
            print(styled("(press Ctrl-C again to exit)", "dim"))
            continue
        except EOFError:
            return
        interrupted_once = False
        if not text.strip():
            continue
        await ready.wait()
        parts: list[Part] | None = None  # None: the turn reads the message's @-mentions
        if text.lstrip().startswith("/"):
            command = functools.partial(run_slash, chats[0], text)
            outcome = await _interruptible(command)
            if outcome == EXIT:
                return
            from agent.ui.slash.prompts import TurnToSend  # loaded by the command that made it

            if not isinstance(outcome, TurnToSend):
                continue
            # A prompt's messages: the person's turn, with everything a typed one gets.
            text, parts = outcome.text, outcome.parts
        files: list[Part] = []
        if parts is None:  # a typed message: its @path files first, all or nothing
            checked = await _file_attachments(chats[0], text)
            if checked is None:
                typeahead.give_back(text)
                continue
            files = checked
        await _interruptible(lambda: _settle_project_skills(chats[0]))
        await _interruptible(lambda: _settle_server_trust(chats[0]))
        if chats[0].host.still_starting():
            await _wait_for_servers(chats[0], renderer, typeahead)
        await _interruptible(lambda: _before_request(chats[0]))
        if await _run_turn(chats[0], text, renderer, parts, typeahead, files):
            typeahead.hold()  # stopped: what was queued goes back to the prompt, unsent
        problems = chats[0].recorder.problems
        if problems and not saving_failure_shown:
            print(styled(f"warning: {sanitize(problems[0])}", "red"))
            saving_failure_shown = True


async def _next_message(session: PromptSession[str], typeahead: TypeAhead) -> str:
    """A message queued while the last turn ran, else what the person types at the prompt
    (which starts with anything typed ahead without Enter). What the prompt read after its
    Enter is typed ahead too, never a dialog's answer (TypeAhead.take_prompt_leftovers)."""
    queued = typeahead.take()
    if queued is not None:
        # As if typed now: the transcript shows what was sent (a glimpse of a huge paste).
        print(f"› {glimpse(queued)}")
        session.history.append_string(queued)  # and Up brings it back like a typed one
        return queued
    text = await session.prompt_async("› ", handle_sigint=False, default=typeahead.take_draft())
    typeahead.take_prompt_leftovers(session.app.input)
    return text


async def _settle_project_skills(chat: ChatSession) -> None:
    """The question that comes before anything else of a turn: the project's skills."""
    from agent.ui.dialogs.confirm import SKILLS_QUESTION, ChatConfirm

    for line in await chat.settle_skill_trust(ChatConfirm(SKILLS_QUESTION)):
        print(styled(sanitize_line(line), "yellow"))


async def _settle_server_trust(chat: ChatSession) -> None:
    """The servers that need trust in this project: one question for them all, once."""
    if not chat.host.awaits_trust():
        return
    from agent.ui.dialogs.server_trust import ChatTrustChoice

    for line in await chat.host.settle_trust(ChatTrustChoice()):
        print(styled(sanitize_line(line), "yellow"))


async def _before_request(chat: ChatSession) -> None:
    """What must come once the servers are up and before the request: the skills of servers
    not listed yet, asked about per server, then compaction."""
    if chat.served_skills_unsettled():
        from agent.ui.dialogs.confirm import SKILLS_QUESTION, ChatConfirm

        for line in await chat.settle_served_skills(ChatConfirm(SKILLS_QUESTION)):
            print(styled(sanitize_line(line), "yellow"))
    if chat.needs_compaction():
        from agent.session.compaction import NothingToCompactError

        print(styled("The conversation is near the model's context limit; compacting…", "yellow"))
        try:
            print(sanitize(await chat.compact()))
        except NothingToCompactError:
            print(
                styled(
                    "Too few turns to compact: /new starts over, or set "
                    "model_limits.context_window_tokens in settings.yaml if the model's window "
                    "is larger than assumed.",
                    "yellow",
                )
            )
        except AgentError as error:
            print(styled(f"error: could not compact: {sanitize(str(error))}", "red"))


async def _resume_at_start(chat: ChatSession, resume: str) -> None:
    """--continue / --resume, before the first prompt."""
    if resume == "pick":
        await run_slash(chat, "/resume")
    elif resume == "latest":
        from agent.session.store import chats_first, list_sessions

        # The latest chat: a one-shot run (`agent -p hi`) since is not what a person means by
        # continuing (there is one only when no chat is left).
        latest = chats_first(list_sessions(project=chat.project))
        if not latest:
            print(styled("No earlier session in this project to continue.", "yellow"))
            return
        await run_slash(chat, f"/resume {latest[0].header.id}")
    else:
        await run_slash(chat, f"/resume {resume}")
