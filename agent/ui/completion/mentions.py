"""Tab completion of `@server:uri`: server names first, then the server's resource URIs and
its templates, whose variables complete through the server's completion/complete.

Every offered text is the server's: it is shown through sanitize_line, and a URI holding white
space or control characters is never offered (it could not be a mention, and would draw).
"""

from __future__ import annotations

from collections.abc import Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from agent.chat.mentions import mention_at_cursor
from agent.mcp.catalog.uri_template import expand
from agent.text import sanitize_line
from agent.ui.completion.catalog_bridge import CatalogBridge
from agent.ui.completion.uri_templates import template_state

_PLAIN = ("", "+")  # operators whose expansion adds nothing before the value
MAX_OFFERED = 200  # a server with ten thousand resources: the first ones, the rest by typing


class MentionCompleter(Completer):
    """`@` offers servers; `@server:` offers URIs and templates; `@server:tmpl/{x}` values."""

    def __init__(self, bridge: CatalogBridge) -> None:
        self._bridge = bridge

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        word = mention_at_cursor(document.text_before_cursor)
        if word is None or document.text.lstrip().startswith("/"):
            return
        servers = self._bridge.servers()
        server = next(
            (s for s in sorted(servers, key=len, reverse=True) if word.startswith(f"{s}:")), None
        )
        if server is None:
            for name in servers:
                if name.startswith(word) and _usable(name):
                    yield Completion(
                        f"{name}:", -len(word), display=f"@{name}:", display_meta="MCP server"
                    )
            return
        typed = word[len(server) + 1 :]
        yield from self._uris(server, typed, len(word))

    def _uris(self, server: str, typed: str, back: int) -> Iterator[Completion]:
        offered = 0
        for resource in self._bridge.resources(server):
            if resource.uri.startswith(typed) and _usable(resource.uri) and offered < MAX_OFFERED:
                offered += 1
                about = resource.title or resource.name
                yield Completion(
                    f"{server}:{resource.uri}", -back,
                    display=sanitize_line(resource.uri), display_meta=sanitize_line(about)[:60],
                )  # fmt: skip
        for template in self._bridge.templates(server):
            state = template_state(template.uri_template, typed)
            if state is None:
                continue
            if state.variable is None:  # still in the literal text: offer it up to the variable
                if _usable(state.literal):
                    yield Completion(
                        f"{server}:{state.literal}", -back, display=sanitize_line(state.literal),
                        display_meta=sanitize_line(f"template {template.name}")[:60],
                    )  # fmt: skip
                continue
            values = self._bridge.complete(
                server, "template", template.uri_template, state.variable, state.value,
                state.context,
            )  # fmt: skip
            if state.operator not in _PLAIN:
                continue  # "{/x}", "{?q}"...: the typed text holds the operator's own marks
            for value in values:
                # Encoded as the template says: a value like "../admin" stays in its variable.
                encoded = expand(f"{{{state.operator}{state.variable}}}", {state.variable: value})
                uri = state.before + encoded
                if _usable(uri):
                    yield Completion(
                        f"{server}:{uri}", -back, display=sanitize_line(uri),
                        display_meta=sanitize_line(f"{template.name}: {state.variable}")[:60],
                    )  # fmt: skip


def _usable(text: str) -> bool:
    return bool(text) and sanitize_line(text) == text and not any(c.isspace() for c in text)
