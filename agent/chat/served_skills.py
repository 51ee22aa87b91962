"""The bridge between MCP servers and skills: `SkillServers` (skills/served.py) over the runtime.

skills/ and mcp/ may not import each other, so the chat composes them here: listings come from
`McpRuntime.skills` (skills/list only, never a file), reads from `McpRuntime.read_resource`, so
a server's secrets are masked in what it sends before any check or the model sees it. Every
call runs in a request scope: a remote server's connection is closed when it ends.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from agent.errors import AgentError
from agent.skills.served import ServerSkills, parse_listing
from agent.text import plural

if TYPE_CHECKING:
    from agent.mcp.config.definitions import ServerDefinition
    from agent.mcp.runtime import McpRuntime


def server_identity(definition: ServerDefinition) -> str:
    """What a server is, for trust: its URL, or the command line it is started with."""
    url = getattr(definition, "url", None)
    if isinstance(url, str):
        return url
    command = getattr(definition, "command", None)
    args = getattr(definition, "args", ())
    return json.dumps([command, *args], ensure_ascii=False)


class RuntimeSkillServers:
    """Served skills through one McpRuntime (the chat's, or a command's)."""

    def __init__(self, runtime: McpRuntime, *, allow_disabled: bool = False) -> None:
        self.runtime = runtime
        self.allow_disabled = allow_disabled
        self.notes: list[str] = []  # servers whose listing failed, said once by the caller

    async def listings(self, listed: set[str] | None = None) -> list[ServerSkills]:
        """The skills of every running (local) or enabled (remote) server that offers them.

        `listed`: the servers already asked, left out; each server asked now is added to it
        (a failed listing too: it is said once, not again every turn). A local server not
        running yet is not asked and not added, so it is asked once it has started."""
        from agent.mcp.config.definitions import LOCAL_DEFINITIONS

        listed = set() if listed is None else listed
        config = self.runtime.store.load()
        found = []
        for definition in config.definitions:
            if not config.state(definition.name).enabled or definition.name in listed:
                continue
            if (
                isinstance(definition, LOCAL_DEFINITIONS)
                and self.runtime.live(definition.name) is None
            ):
                continue  # not started here (not trusted, or failed): nothing is started for skills
            listed.add(definition.name)
            try:
                found.append(await self.listing(definition.name))
            except AgentError as error:
                self.notes.append(f"skills of MCP server {definition.name!r} not listed: {error}")
        return [listing for listing in found if listing.skills or listing.problems]

    async def listing(self, server: str) -> ServerSkills:
        """One server's skills, listed and checked (none when it does not offer the extension)."""
        definition = self.runtime.store.load().find(server)
        async with self.runtime.request_scope():
            answer = await self.runtime.skills(definition.name, allow_disabled=self.allow_disabled)
        listing = parse_listing(answer.server, server_identity(definition), answer.entries)
        if answer.note:
            problems = (*listing.problems, f"MCP server {answer.server!r}: {answer.note}")
            listing = ServerSkills(listing.server, listing.identity, listing.skills, problems)
        return listing

    async def read(self, server: str, uri: str) -> bytes:
        """The resource's one part as bytes (text as UTF-8), as the server sent it, masked."""
        from agent.mcp.catalog.contents import ResourceText

        async with self.runtime.request_scope():
            parts = await self.runtime.read_resource(
                server, uri, allow_disabled=self.allow_disabled
            )
        if len(parts) != 1 or parts[0].uri != uri:
            raise AgentError(
                f"MCP server {server!r} answered the read of {uri!r} with "
                f"{plural(len(parts), 'part')} "
                "(or another URI); a skill file is one part"
            )
        part = parts[0]
        return part.text.encode("utf-8") if isinstance(part, ResourceText) else part.data
