"""`agent mcp skills NAME [SKILL] [--trust]`: the skills a server serves (SEP-2640), by hand.

Without SKILL: the listing only (names, digests, files, descriptions); nothing of a skill is
read. With SKILL: its SKILL.md is read once and verified against the listing (size, digest,
frontmatter) as an activation in a chat does, then printed; a mismatch refuses it and says what
differed (exit 1). With --trust: the chat's question about this server's skills, asked here, and
the answer recorded. Everything the server sends is sanitized before it is printed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.commands.mcp_console import run_with_runtime
from agent.commands.output import say, table, warn
from agent.errors import AgentError
from agent.mcp.store import McpStore
from agent.skills.served import ServedSkillError, ServerSkills, loaded_skill
from agent.text import sanitize, sanitize_line

if TYPE_CHECKING:
    from agent.chat.served_skills import RuntimeSkillServers
    from agent.mcp.runtime import McpRuntime


def skills_command(store: McpStore, name: str, skill: str | None, trust: bool, trace: bool) -> int:
    """List a server's skills, show one (verified), or decide whether to use them."""

    async def body(runtime: McpRuntime) -> int:
        from agent.chat.served_skills import RuntimeSkillServers

        definition = store.load().find(name)
        await runtime.start(definition.name, ask_trust=True)
        servers = RuntimeSkillServers(runtime, allow_disabled=True)
        listing = await servers.listing(definition.name)
        for problem in listing.problems:
            warn(sanitize_line(problem))
        if skill is not None:
            return await _show(servers, listing, skill, runtime.limits.output_limit_chars)
        if trust:
            return await _trust(listing)
        _print_listing(listing)
        return 0

    return run_with_runtime(store, body, trace)


def _print_listing(listing: ServerSkills) -> None:
    if not listing.skills:
        say(f"MCP server {sanitize_line(listing.server)!s} serves no usable skills.")
        return
    rows = [
        [
            sanitize_line(s.qualified),
            f"sha256:{s.digest[:16]}",
            str(len(s.files)),
            sanitize_line(s.description[:80]),
        ]
        for s in listing.skills
    ]
    say(table(["SKILL", "DIGEST", "FILES", "DESCRIPTION"], rows))


async def _show(
    servers: RuntimeSkillServers, listing: ServerSkills, wanted: str, limit: int
) -> int:
    short = wanted.split(":", 1)[1] if wanted.startswith(f"{listing.server}:") else wanted
    entry = next((s for s in listing.skills if s.name == short), None)
    if entry is None:
        known = ", ".join(s.name for s in listing.skills) or "none"
        raise AgentError(
            f"MCP server {listing.server!r} lists no usable skill {wanted!r} (it lists: {known})"
        )
    try:
        loaded = loaded_skill(entry, await servers.read(entry.server, entry.uri))
    except ServedSkillError as error:
        warn(sanitize_line(str(error)))
        return 1
    say(f"# {sanitize_line(loaded.name)}: {sanitize_line(loaded.description)}")
    say(sanitize(loaded.body[:limit]))
    if len(loaded.body) > limit:
        say(f"[cut at {limit} characters]")
    return 0


async def _trust(listing: ServerSkills) -> int:
    import sys

    from agent.commands.terminal import ask_yes_no
    from agent.skills.served_trust import ServedSkillTrustStore

    store = ServedSkillTrustStore()
    status, request = store.assess(listing)
    if request is None:
        say(f"Skills of MCP server {sanitize_line(listing.server)}: {status}, as listed now.")
        return 0
    if not sys.stdin.isatty():
        raise AgentError("deciding about a server's skills needs a terminal to ask at")
    for line in request.describe():
        print(sanitize_line(line), file=sys.stderr)
    trusted = await ask_yes_no(request.question, default=False)
    store.record(request, "trusted" if trusted else "declined")
    decided = "trusted" if trusted else "declined"
    say(f"Skills of MCP server {sanitize_line(listing.server)}: {decided}.")
    return 0
