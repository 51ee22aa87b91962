"""Tab completion of MCP prompt commands: `/mcp__` offers the enabled servers' prompts, and
after the command, its argument names (`name=`) and then values through the server's
completion/complete (with the arguments already given as context). Server text is shown
through sanitize_line; a value is offered shell-quoted when it needs quoting."""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from agent.chat.prompt_commands import PromptCommand, prompt_commands
from agent.text import sanitize_line
from agent.ui.completion.catalog_bridge import CatalogBridge


class PromptCompleter(Completer):
    """Prompt command names, argument names and argument values."""

    def __init__(self, bridge: CatalogBridge) -> None:
        self._bridge = bridge

    def _commands(self) -> dict[str, PromptCommand]:
        servers = self._bridge.servers()
        return prompt_commands(servers, {s: self._bridge.prompts(s) for s in servers})

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or "\n" in text:
            return
        name, space, argument = text[1:].partition(" ")
        if not space:
            if "mcp__".startswith(name[:5]):
                for command, found in self._commands().items():
                    if command.startswith(name):
                        about = found.prompt.title or found.prompt.description or "MCP prompt"
                        yield Completion(
                            command, -len(name), display="/" + command,
                            display_meta=sanitize_line(about)[:60],
                        )  # fmt: skip
            return
        chosen = self._commands().get(name) if name.startswith("mcp__") else None
        if chosen is not None:
            yield from self._arguments(chosen, argument)

    def _arguments(self, command: PromptCommand, argument: str) -> Iterator[Completion]:
        *before, word = argument.split(" ")
        given = dict(w.partition("=")[::2] for w in before if "=" in w)
        key, equals, value = word.partition("=")
        if not equals:
            for info in command.prompt.arguments:
                if info.name.startswith(word) and info.name not in given and _plain(info.name):
                    meta = ("required" if info.required else "optional") + (
                        f": {info.description}" if info.description else ""
                    )
                    yield Completion(
                        f"{info.name}=", -len(word), display_meta=sanitize_line(meta)[:60]
                    )
            return
        values = self._bridge.complete(
            command.server, "prompt", command.prompt.name, key, value, given
        )
        for offered in values:
            # Quoted whenever quoting changes it (white space, quotes, backslashes...), so the
            # command line gives back exactly the value offered; a plain value stays plain.
            text = shlex.quote(offered)
            yield Completion(f"{key}={text}", -len(word), display=sanitize_line(offered))


def _plain(name: str) -> bool:
    return bool(name) and sanitize_line(name) == name and "=" not in name and " " not in name
