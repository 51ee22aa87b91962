"""Completion at the prompt: slash command names, then each command's argument.

Arguments come from small sources asked at completion time (skill names from the chat,
session ids from the session store), so what is offered is always current.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.completion import (
    CompleteEvent,
    Completer,
    Completion,
    DynamicCompleter,
    merge_completers,
)
from prompt_toolkit.document import Document

from agent.text import sanitize_line
from agent.ui.completion.catalog_bridge import AskedCompleter
from agent.ui.slash.commands import COMMANDS

if TYPE_CHECKING:
    from agent.chat.state import ChatSession

# The words of the argument before the one being typed -> (value, description) pairs.
Choices = Callable[[Sequence[str]], Iterable[tuple[str, str]]]
SESSIONS_FRESH_SECONDS = 5.0  # listing reads every session file's head and tail
# /mcp's subcommands (agent/ui/slash/mcp.py); those that take a server name come second.
MCP_ACTIONS = {
    "status": "servers, their state and tools",
    "enable": "NAME start using a server",
    "disable": "NAME stop using a server",
    "trust": "NAME trust a local server's command line",
    "restart": "NAME restart a server",
    "tools": "NAME choose a server's tools",
    "defer": "NAME on|off|auto whether its tools wait behind search_tools",
    "edit": "the MCP configuration in $EDITOR",
}
_MCP_NAMED = ("enable", "disable", "trust", "restart", "tools", "defer")
_DEFER_MODES = {"on": "always deferred", "off": "never deferred", "auto": "by the window"}


class SlashCompleter(Completer):
    """`/sk` offers /skills and /skill; `/skill m` offers the skills whose names start with m."""

    def __init__(
        self, commands: Callable[[], Mapping[str, str]], arguments: Mapping[str, Choices]
    ) -> None:
        self._commands = commands  # name -> one-line summary
        self._arguments = arguments  # command name -> its arguments' choices

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or "\n" in text:
            return
        name, space, argument = text[1:].partition(" ")
        commands = self._commands()
        if not space:
            for command, summary in commands.items():
                if command.startswith(name):
                    yield Completion(
                        command,
                        start_position=-len(name),
                        display="/" + command,
                        display_meta=summary,
                    )
            return
        choices = self._arguments.get(name)
        if choices is None or name not in commands:
            return
        *before, word = argument.split(" ")
        for value, description in choices(before):
            if value.startswith(word):
                yield Completion(
                    value,
                    start_position=-len(word),
                    display_meta=sanitize_line(description)[:80],
                )


def first_word(choices: Callable[[], Iterable[tuple[str, str]]]) -> Choices:
    """Choices for a command that takes one word."""
    return lambda before: [] if before else choices()


def session_choices(project: Callable[[], Path | None]) -> Callable[[], list[tuple[str, str]]]:
    """The project's saved sessions, chats first (newest first), then one-shot runs marked
    as /sessions shows them; listed again at most every few seconds."""
    cache: list[tuple[float, list[tuple[str, str]]]] = []

    def choices() -> list[tuple[str, str]]:
        from agent.session.store import chats_first, list_sessions

        folder = project()
        if folder is None:
            return []
        if cache and time.monotonic() - cache[0][0] < SESSIONS_FRESH_SECONDS:
            return cache[0][1]
        found = [
            (s.header.id, ("[-p] " if s.header.one_shot else "") + s.title)
            for s in chats_first(list_sessions(project=folder))
        ]
        cache[:] = [(time.monotonic(), found)]
        return found

    return choices


def chat_completer(
    current: Callable[[], ChatSession | None], loop: asyncio.AbstractEventLoop | None = None
) -> Completer:
    """The chat's completer: slash commands and their arguments, and @-mentions of MCP
    resources (asked on `loop`, the chat's); before the chat is set up, command names only."""
    return AskedCompleter(
        merge_completers([_slash_completer(current), _mcp_completer(current, loop)])
    )


def _mcp_completer(
    current: Callable[[], ChatSession | None], loop: asyncio.AbstractEventLoop | None
) -> Completer:
    """Prompt commands, @-mentions and @paths, built at the first completion: their modules are not
    needed to draw the prompt (launch to prompt is measured: bench/startup_to_prompt.py)."""
    built: list[Completer] = []

    def get() -> Completer:
        if not built:
            from agent.ui.completion.catalog_bridge import CatalogBridge
            from agent.ui.completion.mentions import MentionCompleter
            from agent.ui.completion.paths import project_paths
            from agent.ui.completion.prompts import PromptCompleter

            bridge = CatalogBridge(current, loop)
            completers = [PromptCompleter(bridge), MentionCompleter(bridge), project_paths(current)]
            built.append(merge_completers(completers))
        return built[0]

    return DynamicCompleter(get)


def _slash_completer(current: Callable[[], ChatSession | None]) -> SlashCompleter:

    def commands() -> dict[str, str]:
        return {name: command.summary for name, command in COMMANDS.items()}

    def skills() -> list[tuple[str, str]]:
        chat = current()
        if chat is None:
            return []
        return [(skill.name, skill.description) for skill in chat.skills.skills]

    def project() -> Path | None:
        chat = current()
        return chat.project if chat else None

    def mcp(before: Sequence[str]) -> Iterable[tuple[str, str]]:
        if not before:
            return MCP_ACTIONS.items()
        chat = current()
        if len(before) == 1 and before[0] in _MCP_NAMED and chat is not None:
            from agent.ui.slash.mcp import mcp_completions

            return [(name, "MCP server") for name in mcp_completions(chat)]
        if len(before) == 2 and before[0] == "defer":
            return _DEFER_MODES.items()
        return []

    return SlashCompleter(
        commands,
        {
            "skill": first_word(skills),
            "resume": first_word(session_choices(project)),
            "export": first_word(lambda: [("md", "Markdown"), ("json", "JSON")]),
            "mcp": mcp,
        },
    )
