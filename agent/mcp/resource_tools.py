"""The model's two resource tools: list_mcp_resources (optionally one server) and
read_mcp_resource (server, uri).

Each is a request to a server the model chose, so each asks the person first, every time,
like every MCP tool call (the dialog shows the server and the URI exactly). The runtime's
gates still hold: a disabled or untrusted server is never started. A failure is a result the
model sees. Everything is capped at the output limit; an image (judged by its bytes, not by
the type the server claims) is an image part.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent.errors import AgentError
from agent.mcp.catalog.contents import ResourcePart, ResourceText
from agent.mcp.client.results import cap_text
from agent.mcp.runtime import McpRuntime
from agent.messages import ImagePart, ToolResult, checked_image
from agent.text import plural
from agent.tools.base import Tool, ToolSpec

SOURCE = "MCP resources"
LIST_TOOL = "list_mcp_resources"
READ_TOOL = "read_mcp_resource"

_LIST_SPEC = ToolSpec(
    name=LIST_TOOL,
    description=(
        "List the resources and resource templates of the enabled MCP servers (or of one). "
        "The person approves each call."
    ),
    parameters={
        "type": "object",
        "properties": {"server": {"type": "string", "description": "one server's name"}},
        "additionalProperties": False,
    },
    requires_approval=True,
    source=SOURCE,
)
_READ_SPEC = ToolSpec(
    name=READ_TOOL,
    description=(
        "Read one resource of an MCP server by its URI (see list_mcp_resources). "
        "The person approves each call."
    ),
    parameters={
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "the server's name"},
            "uri": {"type": "string", "description": "the resource's URI"},
        },
        "required": ["server", "uri"],
        "additionalProperties": False,
    },
    requires_approval=True,
    source=SOURCE,
)


def is_resource_tool(spec: ToolSpec) -> bool:
    """True for the two tools of this module (the approval dialog names server and URI)."""
    return spec.source == SOURCE


def resource_tools(runtime: McpRuntime, *, unstarted: bool = False) -> list[Tool]:
    """Both tools while some enabled, trusted server offers resources: a local one that said
    so when it started, or a remote one (it connects per request, so it may). `unstarted`: a
    local server not up yet may too (one turn, whose request does not wait for its servers:
    a call starts it)."""
    from agent.mcp.config.definitions import LOCAL_DEFINITIONS

    config = runtime.store.load()
    for definition in config.definitions:
        if not config.state(definition.name).enabled or not runtime.is_trusted(definition):
            continue
        offers = runtime.offers(definition.name, "resources")
        local = isinstance(definition, LOCAL_DEFINITIONS)
        if offers or (offers is None and (unstarted or not local)):
            return [ListResources(runtime), ReadResource(runtime)]
    return []


@dataclass(frozen=True)
class ListResources:
    """list_mcp_resources."""

    runtime: McpRuntime
    spec: ToolSpec = _LIST_SPEC

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        """Each server's resources and templates, one line each."""
        config = self.runtime.store.load()
        wanted = arguments.get("server")
        try:
            names = (
                [config.find(str(wanted)).name]
                if wanted is not None
                else [d.name for d in config.definitions if config.state(d.name).enabled]
            )
        except AgentError as error:  # no such server
            return ToolResult(str(error), is_error=True)
        lines: list[str] = []
        for name in names:
            lines.extend(await self._server_lines(name))
        text = "\n".join(lines) or "No enabled MCP servers."
        return ToolResult(cap_text(text, self.runtime.limits.output_limit_chars))

    async def _server_lines(self, name: str) -> list[str]:
        try:
            resources = await self.runtime.resources(name)
            templates = await self.runtime.resource_templates(name)
        except AgentError as error:
            return [f"server {name}: {error}"]
        lines = [
            f"server {name}: {plural(len(resources.items), 'resource')}, "
            f"{plural(len(templates.items), 'template')}"
        ]
        for resource in resources.items:
            about = f" ({resource.mime_type})" if resource.mime_type else ""
            description = f": {resource.description}" if resource.description else ""
            lines.append(f"  {resource.uri} {resource.name}{about}{description}")
        for template in templates.items:
            description = f": {template.description}" if template.description else ""
            lines.append(f"  template {template.uri_template} {template.name}{description}")
        lines += [f"  ({note})" for note in (resources.note, templates.note) if note]
        return lines


@dataclass(frozen=True)
class ReadResource:
    """read_mcp_resource."""

    runtime: McpRuntime
    spec: ToolSpec = _READ_SPEC

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        """The resource's text (capped), images as parts, other binary as notes."""
        server, uri = str(arguments["server"]), str(arguments["uri"])
        try:
            # Approved by the person for this URI, as a tool call is: its forms are shown.
            contents = await self.runtime.read_resource(server, uri, may_ask=True)
        except AgentError as error:
            return ToolResult(str(error), is_error=True)
        return resource_result(server, uri, contents, self.runtime.limits.output_limit_chars)


def resource_result(
    server: str, uri: str, contents: Sequence[ResourcePart], limit_chars: int
) -> ToolResult:
    """A read resource as a tool result: text with a heading per item, images as parts."""
    lines: list[str] = []
    images: list[ImagePart] = []
    for item in contents:
        claimed = f" (the server says it is {item.uri})" if item.uri != uri else ""
        if isinstance(item, ResourceText):
            lines += [f"[resource {uri}{claimed}, {item.mime_type or 'text'}]", item.text]
            continue
        source = f"{server}:{uri}"
        if item.image_type is not None:
            data = base64.b64encode(item.data).decode()
            image = checked_image(item.image_type, data, source, len(images))
            if isinstance(image, ImagePart):
                images.append(image)
                lines.append(f"[resource {uri}{claimed}: {image.mime_type}, {item.size} bytes]")
            else:
                lines.append(f"[resource {uri}{claimed}: {image}]")
            continue
        kind = item.mime_type or "binary"
        lines.append(f"[resource {uri}{claimed}: {kind}, {item.size} bytes; not shown]")
    text = "\n".join(lines) or f"[resource {uri} is empty]"
    return ToolResult(cap_text(text, limit_chars), images=tuple(images))
