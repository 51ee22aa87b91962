"""A client for both protocol eras on one SDK session: how it starts (the handshake, the
`server/discover` probe, or a remembered discover result adopted as is) and the requests whose
modern form differs (multi-round `input_required`, cache hints, a re-list on HEADER_MISMATCH).

This is what `mcp.Client` does, composed from the same SDK parts (sdk.py names them) so that a
start does not import the SDK's server side; the legacy era passes straight through to the
session, byte for byte what the connection sent before.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

import anyio
import mcp_types as types
from mcp.client.caching import ClientResponseCache, InMemoryResponseCacheStore
from mcp.client.session import ClientRequestContext, MessageHandlerFnT
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent.mcp.client.sdk import (
    EraSession,
    absorb_tool_listing,
    negotiate_auto,
    run_input_required_driver,
)

R = TypeVar("R")
C = TypeVar("C", bound=types.CacheableResult)
_RELIST_PAGES = 100  # a re-list after HEADER_MISMATCH that never ends must not hang a call
# Each input request of a round is a question to the person (a form, a page to open): a server
# that asks dozens at once is nagging, not working; legitimate servers ask one or two.
MAX_INPUTS_PER_ROUND = 8


class TooManyInputsError(RuntimeError):
    """A server's `input_required` round asked for more inputs than a person is asked at once."""

    def __init__(self, count: int) -> None:
        super().__init__(
            f"it asked for {count} inputs at once (at most {MAX_INPUTS_PER_ROUND} are asked); "
            "none was asked"
        )


@dataclass(frozen=True)
class EraStart:
    """How a connection starts: probe (`auto`), the handshake (`legacy`), or a remembered
    modern discover result adopted without a request (`modern`)."""

    mode: Literal["auto", "legacy", "modern"]
    discover: types.DiscoverResult | None = None


AUTO = EraStart("auto")
LEGACY = EraStart("legacy")


def response_cache(identity: str, version: Callable[[], str | None]) -> ClientResponseCache:
    """The SDK's response cache for one connection: honours ttlMs/cacheScope hints, in memory,
    keyed by a hash of the launch (never the launch itself: a URL may hold a credential)."""
    return ClientResponseCache(
        store=InMemoryResponseCacheStore(),
        partition="",
        arm_id=hashlib.sha256(identity.encode()).hexdigest(),
        default_ttl_ms=0,
        clock=time.time,
        share_public=False,
        negotiated_version=version,
    )


def evicting(cache: ClientResponseCache, handler: MessageHandlerFnT) -> MessageHandlerFnT:
    """`handler`, after a list_changed notification has evicted what it makes stale."""

    async def handle(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            await cache.evict_for_notification(message)
        await handler(message)

    return handle


class EraClient:
    """Requests on one session, in whichever era it started."""

    def __init__(
        self, session: EraSession, cache: ClientResponseCache | None, max_rounds: int
    ) -> None:
        self.session = session
        self._cache = cache
        self._max_rounds = max_rounds

    @property
    def modern(self) -> bool:
        """Whether the session speaks 2026-07-28 (or later)."""
        return self.session.protocol_version in MODERN_PROTOCOL_VERSIONS

    @property
    def server_capabilities(self) -> types.ServerCapabilities:
        """What the server said it can do (the handshake's or the discover result's)."""
        return self.session.server_capabilities or types.ServerCapabilities()

    def listen(
        self, *, tools_list_changed: bool, prompts_list_changed: bool, resources_list_changed: bool
    ) -> Any:
        """One `subscriptions/listen` stream (2026-07-28 only): `mcp.Client.listen` without
        the Client (whose import loads the SDK's server side)."""
        from mcp.client.subscriptions import listen

        return listen(
            self.session,
            tools_list_changed=tools_list_changed,
            prompts_list_changed=prompts_list_changed,
            resources_list_changed=resources_list_changed,
        )

    async def start(self, how: EraStart) -> None:
        """The handshake, the probe, or adopting a remembered discover result."""
        if how.mode == "legacy":
            await self.session.initialize()
        elif how.mode == "modern" and how.discover is not None:
            self.session.adopt(how.discover)
        else:
            await negotiate_auto(self.session)

    async def list_tools(self, cursor: str | None = None) -> types.ListToolsResult:
        """One page of tools (the first from the cache while its hint says it is fresh)."""
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await self._cached(
            "tools/list", cursor, lambda: self.session.list_tools(params=params)
        )
        return result

    async def list_resources(self, cursor: str | None = None) -> types.ListResourcesResult:
        """One page of resources."""
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        return await self._cached(
            "resources/list", cursor, lambda: self.session.list_resources(params=params)
        )

    async def list_resource_templates(
        self, cursor: str | None = None
    ) -> types.ListResourceTemplatesResult:
        """One page of resource templates."""
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        return await self._cached(
            "resources/templates/list",
            cursor,
            lambda: self.session.list_resource_templates(params=params),
        )

    async def list_prompts(self, cursor: str | None = None) -> types.ListPromptsResult:
        """One page of prompts."""
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        return await self._cached(
            "prompts/list", cursor, lambda: self.session.list_prompts(params=params)
        )

    async def call_tool(
        self, name: str, arguments: dict[str, Any], progress: ProgressFnT | None = None
    ) -> types.CallToolResult:
        """Call a tool; input requests are answered through the session's callbacks (the same
        forms as the legacy back channel) and the call is sent again with the server's state."""
        if not self.modern:
            return await self.session.call_tool(name, arguments, progress_callback=progress)

        async def send(
            responses: types.InputResponses | None, state: str | None
        ) -> types.CallToolResult | types.InputRequiredResult:
            return await self.session.call_tool(
                name,
                arguments,
                progress_callback=progress,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
            )

        async def retry(
            responses: types.InputResponses | None, state: str | None
        ) -> types.CallToolResult | types.InputRequiredResult:
            try:
                return await send(responses, state)
            except MCPError as mismatch:
                if mismatch.code != types.HEADER_MISMATCH:
                    raise
                # The spec's recovery: our listing of the tool is missing or stale.
                await self._relist(name)
                return await send(responses, state)

        return await self._rounds(await retry(None, None), retry)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> types.GetPromptResult:
        """A prompt's messages (input requests answered as for a tool call)."""
        if not self.modern:
            return await self.session.get_prompt(name, arguments)

        async def retry(
            responses: types.InputResponses | None, state: str | None
        ) -> types.GetPromptResult | types.InputRequiredResult:
            return await self.session.get_prompt(
                name,
                arguments,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
            )

        return await self._rounds(await retry(None, None), retry)

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        """A resource's contents (cached while the server's hint allows)."""
        if not self.modern:
            return await self.session.read_resource(uri)

        async def retry(
            responses: types.InputResponses | None, state: str | None
        ) -> types.ReadResourceResult | types.InputRequiredResult:
            return await self.session.read_resource(
                uri, input_responses=responses, request_state=state, allow_input_required=True
            )

        cache = self._cache
        if cache is not None and (hit := await cache.read("resources/read", uri)) is not None:
            return cast(types.ReadResourceResult, hit)
        generation = cache.capture("resources/read", uri) if cache is not None else 0
        first = await retry(None, None)
        if cache is not None and not isinstance(first, types.InputRequiredResult):
            # Only a first-round answer may be stored: one reached through input is personal.
            await cache.write("resources/read", uri, first, generation, "use")
        return await self._rounds(first, retry)

    async def complete(
        self,
        ref: types.ResourceTemplateReference | types.PromptReference,
        argument: dict[str, str],
        context_arguments: dict[str, str] | None,
    ) -> types.CompleteResult:
        """Completion values for an argument."""
        return await self.session.complete(
            ref=ref, argument=argument, context_arguments=context_arguments
        )

    async def _cached(self, method: str, cursor: str | None, send: Callable[[], Awaitable[C]]) -> C:
        cache = self._cache
        if cache is None or cursor is not None or not self.modern:
            return await send()
        hit = await cache.read(method, "")
        if hit is not None:
            if isinstance(hit, types.ListToolsResult):
                absorb_tool_listing(self.session, hit)
            return cast(C, hit)
        generation = cache.capture(method, "")
        result = await send()
        await cache.write(method, "", result, generation, "use")
        return result

    async def _relist(self, name: str) -> None:
        cursor: str | None = None
        for _page in range(_RELIST_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await self.session.list_tools(params=params)
            cursor = page.next_cursor
            if cursor is None or any(tool.name == name for tool in page.tools):
                return

    async def _rounds(
        self,
        first: R | types.InputRequiredResult,
        retry: Callable[
            [types.InputResponses | None, str | None], Awaitable[R | types.InputRequiredResult]
        ],
    ) -> R:
        if not isinstance(first, types.InputRequiredResult):
            return first
        session = self.session
        one_at_a_time = anyio.Lock()  # the SDK asks a round's inputs at once; a person cannot

        def checked(answer: R | types.InputRequiredResult) -> R | types.InputRequiredResult:
            if isinstance(answer, types.InputRequiredResult):
                count = len(answer.input_requests or {})
                if count > MAX_INPUTS_PER_ROUND:
                    raise TooManyInputsError(count)
            return answer

        async def dispatch(key: str, request: types.InputRequest) -> Any:
            meta = request.params.meta if request.params else None
            context = ClientRequestContext(session=session, request_id=key, meta=meta)
            async with one_at_a_time:
                return await session.dispatch_input_request(context, request)

        async def checked_retry(
            responses: types.InputResponses | None, state: str | None
        ) -> R | types.InputRequiredResult:
            return checked(await retry(responses, state))

        checked(first)
        result: R = await run_input_required_driver(
            first, dispatch=dispatch, retry=checked_retry, max_rounds=self._max_rounds
        )
        return result
