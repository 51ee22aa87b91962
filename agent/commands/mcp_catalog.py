"""`agent mcp resources|read|prompts|prompt`: a server's resources and prompts by hand.

Like `agent mcp call`, these are the person's own requests: a local server that is not trusted
asks first (at a terminal), and a disabled server answers too. Everything the server sends is
sanitized before it is printed, and text is cut at the output limit. A blob is only ever
written to the file the person names with --output, never to a name the server suggests, and
never over an existing file unless --force says so.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from agent.commands.mcp_console import parse_arguments, run_with_runtime
from agent.commands.output import say, table, warn
from agent.errors import AgentError
from agent.mcp.catalog.contents import (
    PromptContent,
    PromptLink,
    PromptMedia,
    PromptResource,
    PromptText,
    ResourceBlob,
    ResourcePart,
)
from agent.mcp.store import McpStore
from agent.text import plural, sanitize_line

if TYPE_CHECKING:
    from agent.mcp.runtime import McpRuntime


def resources_command(store: McpStore, name: str, trace: bool) -> int:
    """List a server's resources and resource templates."""

    async def body(runtime: McpRuntime) -> int:
        server = await _started(runtime, store, name)
        resources = await runtime.resources(server, allow_disabled=True)
        templates = await runtime.resource_templates(server, allow_disabled=True)
        if resources.items:
            rows = [
                [item.uri, item.name, item.mime_type or "", _summary(item.description)]
                for item in resources.items
            ]
            say(table(("URI", "NAME", "TYPE", "DESCRIPTION"), rows))
        say(f"{plural(len(resources.items), 'resource')} on MCP server {server!r}.")
        if templates.items:
            say("")
            rows = [
                [item.uri_template, item.name, item.mime_type or "", _summary(item.description)]
                for item in templates.items
            ]
            say(table(("URI TEMPLATE", "NAME", "TYPE", "DESCRIPTION"), rows))
        say(f"{plural(len(templates.items), 'resource template')} on MCP server {server!r}.")
        for note in (resources.note, templates.note):
            if note:
                warn(f"agent: {sanitize_line(note)}")
        return 0

    return run_with_runtime(store, body, trace)


def read_command(
    store: McpStore, name: str, uri: str, output: str | None, force: bool, trace: bool
) -> int:
    """Print a resource's text; write it (or its blob) to --output; describe blobs otherwise."""
    target = Path(output) if output is not None else None
    if target is not None and not force and os.path.lexists(target):
        raise AgentError(f"--output: {output} exists; choose another file or add --force")

    async def body(runtime: McpRuntime) -> int:
        server = await _started(runtime, store, name)
        parts = await runtime.read_resource(server, uri, allow_disabled=True, may_ask=True)
        if target is not None:
            _write(parts, target, force)
            return 0
        limit = runtime.limits.output_limit_chars
        for part in parts:
            if len(parts) > 1:
                say(f"--- {sanitize_line(part.uri)} ({sanitize_line(part.mime_type or '?')})")
            if isinstance(part, ResourceBlob):
                say(f"[{_blob_description(part)}; save it with --output FILE]")
            elif len(parts) > 1:  # indented, so no line of it can pass for a part's header
                say("  " + _indented(_capped(part.text, limit)))
            else:
                say(_capped(part.text, limit))
        if not parts:
            say(f"(MCP server {server!r} returned no contents)")
        return 0

    return run_with_runtime(store, body, trace)


def prompts_command(store: McpStore, name: str, trace: bool) -> int:
    """List a server's prompts with their arguments."""

    async def body(runtime: McpRuntime) -> int:
        server = await _started(runtime, store, name)
        prompts = await runtime.prompts(server, allow_disabled=True)
        for prompt in prompts.items:
            say(f"{sanitize_line(prompt.name)}: {sanitize_line(_summary(prompt.description))}")
            for argument in prompt.arguments:
                need = "required" if argument.required else "optional"
                detail = _summary(argument.description)
                say(
                    f"  {sanitize_line(argument.name)} ({need}){': ' if detail else ''}"
                    f"{sanitize_line(detail)}"
                )
        say(f"{plural(len(prompts.items), 'prompt')} on MCP server {server!r}.")
        if prompts.note:
            warn(f"agent: {sanitize_line(prompts.note)}")
        return 0

    return run_with_runtime(store, body, trace)


def prompt_command(
    store: McpStore, name: str, prompt: str, args_json: str | None, trace: bool
) -> int:
    """Get one prompt with --args and print its messages."""
    # A typo in --args is reported before anything is trusted or started.
    arguments = _prompt_arguments(args_json) if args_json is not None else {}

    async def body(runtime: McpRuntime) -> int:
        server = await _started(runtime, store, name)
        try:
            result = await runtime.get_prompt(server, prompt, arguments, allow_disabled=True)
        except AgentError as error:
            if "needs the argument" not in str(error):
                raise
            raise AgentError(
                f'{error}; give it with --args, e.g. --args \'{{"NAME": "VALUE"}}\' '
                f"(see: agent mcp prompts {server})"
            ) from None
        if result.description:
            say(f"# {sanitize_line(result.description)}")
        limit = runtime.limits.output_limit_chars
        for message in result.messages:
            # Continuation lines are indented: no line of a message can pass for the next one.
            say(f"[{message.role}] {_indented(_content_text(message.content, limit))}")
        return 0

    return run_with_runtime(store, body, trace)


async def _started(runtime: McpRuntime, store: McpStore, name: str) -> str:
    """The server's saved name, started (asking for trust at a terminal if it needs it)."""
    definition = store.load().find(name)
    await runtime.start(definition.name, ask_trust=True)
    return definition.name


def _prompt_arguments(args_json: str) -> dict[str, str]:
    arguments = parse_arguments(args_json)
    for key, value in arguments.items():
        if not isinstance(value, str):
            raise AgentError(
                f"--args: the value of {sanitize_line(repr(key))} must be a string "
                "(prompt arguments are text)"
            )
    return {key: str(value) for key, value in arguments.items()}


def _write(parts: tuple[ResourcePart, ...], target: Path, force: bool) -> None:
    if len(parts) != 1:
        raise AgentError(
            f"--output writes one part, and this resource has {len(parts)}; "
            "read it without --output to see them"
        )
    [part] = parts
    data = part.data if isinstance(part, ResourceBlob) else part.text.encode("utf-8")
    try:
        # "x" refuses an existing file (or a symlink planted there) at the moment of writing.
        with open(target, "wb" if force else "xb") as handle:
            handle.write(data)
    except FileExistsError:
        raise AgentError(f"--output: {target} exists; choose another file or add --force") from None
    except OSError as error:
        raise AgentError(f"--output: cannot write {target}: {error.strerror}") from None
    what = (
        _blob_description(part)
        if isinstance(part, ResourceBlob)
        else f"{plural(len(data), 'byte')} of text"
    )
    say(f"Wrote {target} ({what}).")


def _blob_description(blob: ResourceBlob) -> str:
    claimed = sanitize_line(blob.mime_type or "no type given")
    real = blob.image_type
    if blob.mime_type and blob.mime_type.startswith("image/") and real is None:
        return f"binary: {claimed} claimed, but the bytes are not an image; {blob.size} bytes"
    return f"binary: {claimed}, {blob.size} bytes"


def _content_text(content: PromptContent, limit: int) -> str:
    if isinstance(content, PromptText):
        return _capped(content.text, limit)
    if isinstance(content, PromptMedia):
        real = "" if content.kind != "image" or content.image_type else " (not really an image)"
        return (
            f"{content.kind}: {sanitize_line(content.mime_type)}, "
            f"{plural(len(content.data), 'byte')}{real}"
        )
    if isinstance(content, PromptResource):
        part = content.part
        if isinstance(part, ResourceBlob):
            return f"resource {sanitize_line(part.uri)}: {_blob_description(part)}"
        return f"resource {sanitize_line(part.uri)}:\n{_capped(part.text, limit)}"
    assert isinstance(content, PromptLink)
    return f"resource link: {sanitize_line(content.uri)} ({sanitize_line(content.name)})"


def _capped(text: str, limit: int) -> str:
    from agent.mcp.client.results import cap_text

    return cap_text(text, limit)


def _indented(text: str) -> str:
    return text.replace("\n", "\n  ")


def _summary(text: str | None) -> str:
    return (text or "").strip().split("\n")[0][:70]
