"""What Tab completion asks the MCP side for: servers, resources, templates, completion values.

Completion runs in a worker thread (ThreadedCompleter) while the chat's event loop owns the
runtime, so a question that needs the server (a list not cached yet, completion/complete) is
run on that loop and waited for briefly; a slow server just offers nothing this time. Asked
from the loop's own thread, only the cache answers (waiting there would block the loop).

Completion runs on every key press (complete_while_typing), and a remote server connects
afresh for every question: so a key press answers a remote server from the cache only, and
only an explicit Tab asks it. A local server that is up is asked either way (no connection
is opened). A server that could not be listed a moment ago is not asked again for a while,
and one that offers no resources or prompts is cached as offering none (agent/mcp/catalog/cache.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, TypeVar

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

if TYPE_CHECKING:
    from agent.chat.state import ChatSession
    from agent.mcp.catalog.entries import PromptInfo, ResourceInfo, ResourceTemplateInfo
    from agent.mcp.runtime import McpRuntime

T = TypeVar("T")
WAIT_SECONDS = 3.0  # how long one Tab waits for a server before offering nothing
# Whether the completion being computed (in this thread's context) was asked for with Tab.
_TAB_PRESSED: ContextVar[bool] = ContextVar("agent_tab_pressed", default=False)


class AskedCompleter(Completer):
    """Runs `inner` knowing whether Tab was pressed (CompleteEvent.completion_requested), so
    the bridge asks remote servers only then."""

    def __init__(self, inner: Completer) -> None:
        self._inner = inner

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        previous = _TAB_PRESSED.get()
        # set() and a plain set back (not a token reset): the generator may be closed later,
        # from another context, when prompt_toolkit drops a completion that is out of date.
        _TAB_PRESSED.set(complete_event.completion_requested)
        try:
            yield from self._inner.get_completions(document, complete_event)
        finally:
            _TAB_PRESSED.set(previous)


class CatalogBridge:
    """Sync questions from the completer thread, answered by the runtime on the chat's loop."""

    def __init__(
        self,
        current: Callable[[], ChatSession | None],
        loop: asyncio.AbstractEventLoop | None,
    ) -> None:
        self._current = current
        self._loop = loop

    def _runtime(self) -> McpRuntime | None:
        chat = self._current()
        return chat.host.runtime if chat is not None else None

    def servers(self) -> list[str]:
        """Enabled, trusted servers that are up (a remote one connects per request): a key
        press never starts a local server."""
        runtime = self._runtime()
        if runtime is None:
            return []
        from agent.mcp.config.definitions import LOCAL_DEFINITIONS

        config = runtime.store.load()
        return [
            d.name
            for d in config.definitions
            if config.state(d.name).enabled
            and runtime.is_trusted(d)
            and (not isinstance(d, LOCAL_DEFINITIONS) or runtime.status(d.name).state == "ready")
        ]

    def resources(self, server: str) -> list[ResourceInfo]:
        """The server's resources: cached, else listed now (briefly waited for)."""
        runtime = self._runtime()
        if runtime is None:
            return []
        cached = runtime.cached_catalog(server).resources
        if cached is None and self._may_ask(runtime, server):
            cached = self._wait(server, lambda: runtime.resources(server))
        return list(cached.items) if cached is not None else []

    def templates(self, server: str) -> list[ResourceTemplateInfo]:
        """The server's resource templates: cached, else listed now."""
        runtime = self._runtime()
        if runtime is None:
            return []
        cached = runtime.cached_catalog(server).templates
        if cached is None and self._may_ask(runtime, server):
            cached = self._wait(server, lambda: runtime.resource_templates(server))
        return list(cached.items) if cached is not None else []

    def prompts(self, server: str) -> list[PromptInfo]:
        """The server's prompts: cached, else listed now."""
        runtime = self._runtime()
        if runtime is None:
            return []
        cached = runtime.cached_catalog(server).prompts
        if cached is None and self._may_ask(runtime, server):
            cached = self._wait(server, lambda: runtime.prompts(server))
        return list(cached.items) if cached is not None else []

    def complete(
        self, server: str, kind: str, name: str, argument: str, value: str,
        context: Mapping[str, str],
    ) -> list[str]:  # fmt: skip
        """Values the server suggests for a template's or prompt's argument."""
        runtime = self._runtime()
        if runtime is None or not self._may_ask(runtime, server):
            return []
        from agent.mcp.catalog.entries import CompletionRef

        ref = CompletionRef("template" if kind == "template" else "prompt", name)
        found = self._wait(
            server, lambda: runtime.complete(server, ref, argument, value, dict(context))
        )
        return list(found or ())

    def _may_ask(self, runtime: McpRuntime, server: str) -> bool:
        """Whether this completion may put a question to the server (see the module's text)."""
        if runtime.cached_catalog(server).failed:
            return False
        if _TAB_PRESSED.get():
            return True
        from agent.errors import AgentError
        from agent.mcp.config.definitions import LOCAL_DEFINITIONS

        try:
            definition = runtime.store.load().find(server)
        except AgentError:  # gone from the configuration meanwhile: nothing to ask
            return False
        local = isinstance(definition, LOCAL_DEFINITIONS)
        return local and runtime.status(definition.name).state == "ready"

    def _wait(self, server: str, make: Callable[[], Awaitable[T]]) -> T | None:
        chat, loop = self._current(), self._loop
        if chat is None or loop is None or not loop.is_running() or _on(loop):
            return None

        async def run() -> T:
            async with chat.host.request_scope():
                return await make()

        future = asyncio.run_coroutine_threadsafe(run(), loop)
        try:
            return future.result(timeout=WAIT_SECONDS)
        except concurrent.futures.TimeoutError:
            future.cancel()
            # Remembered at once (not when the cancellation reaches the loop), or this very
            # Tab would wait again for the server's next list.
            runtime = chat.host.runtime
            if runtime is not None:
                runtime.catalog_failed(server)
            return None
        except Exception:  # a server error: nothing to offer; the person will see it on use
            return None


def _on(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
