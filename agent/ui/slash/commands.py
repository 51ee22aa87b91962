"""Slash commands in the chat: /help, /new, /resume, /sessions, /compact, /skills, /skill,
/export, /usage, /show, /exit, ..., and each MCP prompt as /mcp__<server>__<prompt>."""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.shortcuts import PromptSession

from agent.chat.prompt_commands import PREFIX as PROMPT_PREFIX
from agent.chat.state import ChatSession
from agent.errors import AgentError
from agent.text import plural, sanitize, sanitize_line
from agent.ui.dialogs.fresh_keys import ask_line
from agent.ui.fit import first_line, fit
from agent.ui.notices import held
from agent.ui.render import RECENT_RESULTS, describe_usage
from agent.ui.style import styled

if TYPE_CHECKING:
    from agent.session.store import SessionSummary
    from agent.tools.deferral import Plan
    from agent.ui.slash.prompts import TurnToSend

EXIT = "exit"


def say(text: str) -> None:
    print(sanitize(text))


def note(text: str) -> None:
    print(styled(sanitize(text), "yellow"))


@dataclass(frozen=True)
class Command:
    summary: str
    run: Callable[[ChatSession, str], Awaitable[str | None]]


async def _help(chat: ChatSession, argument: str) -> None:
    from agent.chat.prompt_commands import listed_prompt_commands

    for name, command in COMMANDS.items():
        say(f"  /{name:<9} {command.summary}")
    clashes: list[str] = []
    # A request of its own: a remote server listed here disconnects when /help is done.
    async with chat.host.request_scope():
        prompts = await listed_prompt_commands(chat.host.runtime, clashes)
    if prompts or clashes:
        say("MCP prompts (arguments as name=value; quote values with spaces):")
    for name, prompt in prompts.items():
        arguments = " ".join(
            a.name if a.required else f"[{a.name}]" for a in prompt.prompt.arguments
        )
        about = prompt.prompt.title or prompt.prompt.description or ""
        usage = f"/{name} {sanitize_line(arguments)}".rstrip()
        say(f"  {usage}  {sanitize_line(about)[:80]}".rstrip())
    for line in clashes:
        note(f"  {sanitize_line(line)}")
    for heading, rows in _KEYS_AND_MENTIONS:
        say(heading)
        for what, does in rows:
            say(f"  {what:<22} {does}")
    return None


# What the prompt's keys do and how to mention a resource: people look for them in /help.
_KEYS_AND_MENTIONS = (
    (
        "Keys:",
        (
            ("Enter", "send the message"),
            ("Alt+Enter, Esc Enter", "add a line"),
            ("Esc", "while the agent works: clear what you typed ahead"),
            ("Ctrl-C", "stop an answer; clear the line; at an empty prompt, twice to quit"),
            ("Ctrl-D", "quit"),
            ("Ctrl-R", "search earlier messages (any case)"),
            ("Tab", "complete commands, their arguments and @ mentions"),
            ("Shift-Tab", "plan mode on or off (/plan)"),
        ),
    ),
    (
        "Mentions:",
        (
            ("@path", "attach a project file (Tab completes; a space is written \\ )"),
            ("@server:uri", "attach an MCP server's resource (Tab lists them)"),
            ("@./name:x", "a file whose path starts like a server's name"),
        ),
    ),
)


async def _exit(chat: ChatSession, argument: str) -> str:
    return EXIT


async def _new(chat: ChatSession, argument: str) -> None:
    _start_over(chat)
    return None


def _start_over(chat: ChatSession) -> None:
    """A new conversation (`/new`, `/clear`), said with the id that brings the last one back
    (a conversation where nothing was said has no file and nothing to bring back)."""
    previous = chat.recorder.session_id
    chat.new()
    if previous is None:
        note("New conversation.")
    else:
        note(f"New conversation; the previous one is saved: /resume {previous} brings it back.")


async def _sessions(chat: ChatSession, argument: str) -> None:
    _list_sessions(chat, _recent_sessions(chat))
    return None


# How many sessions /sessions and the /resume chooser list (the newest chats, then one-shot runs).
LISTED_SESSIONS = 15
ONE_SHOT_MARK = "[-p] "  # an `agent -p` run's title begins with it, as in `agent sessions list`


def _recent_sessions(chat: ChatSession) -> list[SessionSummary]:
    """This project's sessions as the chat lists them: chats first, then one-shot runs."""
    from agent.session.store import chats_first, list_sessions

    return chats_first(list_sessions(project=chat.project))[:LISTED_SESSIONS]


def _list_sessions(chat: ChatSession, summaries: list[SessionSummary]) -> None:
    if not summaries:
        say("No saved sessions for this project yet.")
    for index, summary in enumerate(summaries, start=1):
        current = " (current)" if summary.header.id == chat.recorder.session_id else ""
        title = sanitize_line(summary.title) or "(no messages)"
        mark = ONE_SHOT_MARK if summary.header.one_shot else ""
        # Titles as long as the terminal allows: the start of a first message seldom tells
        # two sessions apart.
        print(
            fit(
                f"  {index:>2}. {sanitize_line(summary.header.id)}  "
                f"{sanitize_line(summary.last_activity[:16]).replace('T', ' ')}  "
                f"{plural(summary.message_count, 'msg'):>8}  {mark}{title}{current}"
            )
        )


async def _resume(chat: ChatSession, argument: str) -> None:
    # The chat's notices (a server coming up) wait until the chooser and the conversation
    # drawn again are on screen: a line amid them would split the list from its question.
    with held():
        await _resume_now(chat, argument)
    return None


async def _resume_now(chat: ChatSession, argument: str) -> None:
    from agent.session.store import find_session, load_session

    path = find_session(argument) if argument else await _choose_session(chat)
    if path is None:
        return
    loaded = load_session(path)
    notes = chat.resume(loaded)
    _replay(path.stem, loaded.events)  # the file's name finds it; its header could say anything
    note(
        f"Resumed {sanitize_line(path.stem)}: {plural(len(chat.conversation.history), 'message')}."
    )
    for line in notes:
        note(f"  {sanitize_line(line)}")


async def _choose_session(chat: ChatSession) -> Path | None:
    """The /resume chooser: a number or an id (None: nothing chosen)."""
    from agent.session.store import find_session

    summaries = _recent_sessions(chat)
    if not summaries:
        say("No saved sessions for this project yet.")
        return None
    _list_sessions(chat, summaries)
    try:
        answer = await ask_line(
            PromptSession[str](), "Resume which one (number or id, Enter to cancel)? "
        )
    except (KeyboardInterrupt, EOFError):
        return None
    answer = answer.strip()
    if not answer:
        return None
    if answer.isdigit() and 1 <= int(answer) <= len(summaries):
        return summaries[int(answer) - 1].path
    return find_session(answer)


def _replay(session_id: str, events: list[dict[str, Any]]) -> None:
    """The last turns of a resumed session on screen, as they were drawn."""
    from agent.session.replay import replayed_turns
    from agent.ui.slash.replay import replay_text

    text = replay_text(replayed_turns(events), session_id)
    if text:
        print(text)


async def _compact(chat: ChatSession, argument: str) -> None:
    if chat.turns_to_compact() == 0:
        # Not a failure: there is simply nothing older than the turns that are always kept.
        kept = (
            "turn always stays"
            if chat.keep_recent_turns == 1
            else (f"{plural(chat.keep_recent_turns, 'turn')} always stay")
        )
        note(
            f"Nothing to compact yet: the last {kept} as they are, and the conversation "
            "has no older ones. /compact helps once it grows."
        )
        return None
    note("Compacting the conversation…")
    say(await chat.compact(argument or None))
    return None


async def _skills(chat: ChatSession, argument: str) -> None:
    off = chat.skills_off()
    if not chat.skills.skills and not off:
        say("No skills available.")
    for skill in chat.skills.skills:
        active = " (active)" if chat.skills.active.find(skill.name) else ""
        hidden = " [only by /skill]" if skill.disable_model_invocation else ""
        about = sanitize_line(first_line(skill.description))
        print(fit(f"  {sanitize_line(skill.name)} ({skill.scope}){active}{hidden}: {about}"))
    for name, why in off.items():  # project skills not in use, and why
        print(fit(f"  {sanitize_line(name)} (project) off: {sanitize_line(why)}"))
    _subagent_definitions(chat)
    return None


def _subagent_definitions(chat: ChatSession) -> None:
    """The subagent definitions this chat may use, then the project's that are off and why."""
    off = chat.agent_definitions_off()
    if not chat.agent_definitions and not off:
        return
    say("Subagent definitions:")
    for definition in chat.agent_definitions:
        about = sanitize_line(first_line(definition.description))
        print(fit(f"  {sanitize_line(definition.name)} ({definition.scope}): {about}"))
    for definition in chat.agent_discovery.project():
        why = off.get(definition.label)
        if why is not None:
            name = sanitize_line(definition.name)
            print(fit(f"  {name} (project) off: {sanitize_line(why)}"))


async def _skill(chat: ChatSession, argument: str) -> None:
    if not argument:
        raise AgentError("usage: /skill NAME (see /skills)")
    snapshot, new = await chat.activate_skill(argument)
    note(f"Skill {snapshot.name} {'activated' if new else 'is already active'}.")
    return None


async def _export(chat: ChatSession, argument: str) -> None:
    from agent.ui.slash.export import export_session

    say(export_session(chat, argument))
    return None


async def _usage(chat: ChatSession, argument: str) -> None:
    usage = chat.conversation.usage
    say(describe_usage(usage, usage))
    return None


async def _show(chat: ChatSession, argument: str) -> None:
    number = int(argument) if argument.isdigit() else None
    if argument and number is None:
        raise AgentError("usage: /show [N] (1 is the most recent tool result)")
    kept = RECENT_RESULTS.get(1 if number is None else number)
    if kept is None:
        say(f"No such tool result; {len(RECENT_RESULTS)} kept (1 is the most recent).")
        return None
    heading = f"⏺ {kept.title}" + (" (error)" if kept.is_error else "")
    print(styled(heading, "red" if kept.is_error else "cyan"))
    say(kept.text or "(empty)")
    return None


async def _mcp(chat: ChatSession, argument: str) -> None:
    from agent.ui.slash.mcp import run_mcp

    await run_mcp(chat, argument)
    return None


async def _model(chat: ChatSession, argument: str) -> None:
    from agent.ui.dialogs.model_chooser import model_command

    await model_command(chat, argument.strip())
    return None


async def _tools(chat: ChatSession, argument: str) -> None:
    import anyio.to_thread

    from agent.chat.approval import needs_approval
    from agent.chat.context import measure_deferred

    # Measured first, as `/context` measures it (litellm may load, so in a worker thread): the
    # plan then knows the model's window, and the listing below is the request it counts.
    deferred = await anyio.to_thread.run_sync(measure_deferred, chat, abandon_on_cancel=True)
    by_source: dict[str, list[str]] = {}
    for tool in chat.conversation.next_tools().values():
        asks = "asks every time" if needs_approval(tool.spec) else "no approval"
        about = sanitize_line(first_line(tool.spec.description))
        by_source.setdefault(sanitize_line(tool.spec.source), []).append(
            f"  {sanitize_line(tool.spec.name)} ({asks})  {about}".rstrip()
        )
    if not by_source:
        say("No tools in the next request.")
    for source, lines in by_source.items():
        print(fit(f"{source}:"))
        for line in lines:
            print(fit(line))
    deferral = chat.conversation.deferral
    if deferral is not None and deferred is not None:
        for line in deferred_lines(deferral.plan_now, deferred.tokens):
            note(line)
    return None


def deferred_lines(plan: Plan, tokens: int) -> list[str]:
    """What the tool search holds back, by server, and the tokens it would add to each request
    (`tokens`: measured by `measure_deferred`, the figure `/context` says too)."""
    hidden = plan.hidden()
    if not hidden:
        return []
    counts: dict[str, int] = {}
    for tool in hidden.values():
        server = sanitize_line(str(tool.spec.server))
        counts[server] = counts.get(server, 0) + 1
    servers = ", ".join(f"{server} ({count})" for server, count in counts.items())
    return [
        f"Deferred: {plural(len(hidden), 'MCP tool')} of {servers}, "
        f"{plural(tokens, 'token')} not sent with each request; search_tools finds them "
        "(/mcp defer NAME on|off|auto)."
    ]


async def _context(chat: ChatSession, argument: str) -> None:
    from agent.ui.slash.context_view import show_context

    await show_context(chat, argument)
    return None


async def _todos(chat: ChatSession, argument: str) -> None:
    from agent.ui.todo_list import todo_lines

    if not chat.todos.items:
        say("No task list yet: the model keeps one (update_todos) for work of several steps.")
    for line in todo_lines(chat.todos.items):
        print(line)  # sanitised, with our own styles
    return None


async def _changes(chat: ChatSession, argument: str) -> None:
    from agent.ui.slash.changes import changes_command

    return await changes_command(chat, argument)


async def _undo(chat: ChatSession, argument: str) -> None:
    from agent.ui.slash.changes import undo_command

    return await undo_command(chat, argument)


async def _agents(chat: ChatSession, argument: str) -> None:
    from agent.ui.slash.agents import agents_command

    return await agents_command(chat, argument)


PLAN_ON = (
    "Plan mode: the model investigates with tools that change nothing and answers with a plan "
    "for you to accept (/plan or Shift-Tab leaves)."
)
PLAN_MCP = " MCP tools are offered too; each call still asks."
PLAN_OFF = "Plan mode off: every tool is offered again (changes still ask)."


def switch_plan_mode(chat: ChatSession, argument: str = "") -> str:
    """`/plan` (and Shift-Tab) turns plan mode on or off, `/plan mcp` on with MCP tools,
    `/plan off` off; the line that says what changed. AgentError for another argument."""
    plan = chat.conversation.plan
    if argument not in ("", "mcp", "off"):
        raise AgentError("usage: /plan [mcp|off] (no argument: on, or off when on)")
    if argument == "off" or (not argument and plan.on):
        was_on = plan.on
        plan.leave()
        return PLAN_OFF if was_on else "Plan mode is off."
    plan.enter(mcp=argument == "mcp")
    return PLAN_ON + (PLAN_MCP if argument == "mcp" else "")


async def _plan(chat: ChatSession, argument: str) -> None:
    note(switch_plan_mode(chat, argument))
    return None


async def _clear(chat: ChatSession, argument: str) -> None:
    """As in Claude Code: the screen cleared and a new conversation, the last one kept."""
    from prompt_toolkit.shortcuts import clear

    clear()
    _start_over(chat)
    return None


COMMANDS: dict[str, Command] = {
    "help": Command("this list", _help),
    "new": Command("start a new conversation", _new),
    "resume": Command("[ID] continue a saved session (no id: choose from a list)", _resume),
    "sessions": Command("recent sessions of this project", _sessions),
    "compact": Command("[focus] summarise older turns into session memory", _compact),
    "skills": Command("the skills available here", _skills),
    "skill": Command("NAME activate a skill now", _skill),
    "export": Command(
        "[md|json] [PATH] write this session to a file (default: the data home's exports/)",
        _export,
    ),
    "usage": Command("tokens and cost of this session", _usage),
    "model": Command("[NAME [API_BASE]|N] list the models found here, or switch", _model),
    "tools": Command("the tools of the next request, by source, with approval", _tools),
    "todos": Command("the model's task list for this conversation", _todos),
    "changes": Command("the files changed in this session (write_file, edit_file)", _changes),
    "undo": Command("[N] take back the last file change (or change N), if unchanged since", _undo),
    "context": Command("what the next request holds, in tokens, and the window's share", _context),
    "agents": Command("[N] this session's subagents (N: one's transcript)", _agents),
    "plan": Command(
        "[mcp|off] plan mode: only tools that change nothing, then a plan for you to accept; "
        "mcp: MCP tools too, each call asked (Shift-Tab toggles)",
        _plan,
    ),
    "mcp": Command(
        "[status|enable|disable|trust|restart|tools NAME|defer NAME MODE|edit] MCP servers", _mcp
    ),
    "clear": Command("clear the screen and start a new conversation (as /new)", _clear),
    "show": Command("[N] the N-th most recent tool result in full (default 1)", _show),
    "exit": Command("quit (also Ctrl-D)", _exit),
    "quit": Command("quit", _exit),
}


async def run_slash(chat: ChatSession, text: str) -> str | TurnToSend | None:
    """Run one slash command; returns EXIT to leave the chat, or a turn to send (a prompt)."""
    name, _, argument = text.strip()[1:].partition(" ")
    if name.startswith(PROMPT_PREFIX):
        try:
            # Loaded on first use: prompt commands bring the form pieces, not needed to start.
            from agent.ui.slash.prompts import run_prompt_command

            return await run_prompt_command(chat, name, argument.strip())
        except AgentError as error:
            print(styled(f"error: {sanitize(str(error))}", "red"))
            return None
    command = COMMANDS.get(name)
    if command is None:
        close = difflib.get_close_matches(name, COMMANDS, n=1)
        hint = f" (did you mean /{close[0]}?)" if close else ""
        note(f"Unknown command /{name}{hint}; /help lists them.")
        return None
    try:
        return await command.run(chat, argument.strip())
    except AgentError as error:
        print(styled(f"error: {sanitize(str(error))}", "red"))
        return None
