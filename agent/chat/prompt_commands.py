"""MCP prompts as the person's slash commands `/mcp__<server>__<prompt>`.

The command's words are `name=value` arguments (shell quoting for spaces). The prompt's
messages become the person's turn: its texts are the person's words (they ran the prompt to
say them), labelled when the prompt writes them as the assistant's; embedded resources are
data, delimited like attachments; images go as image parts (judged by their bytes); audio and
links are notes. Knows no terminal.
"""

from __future__ import annotations

import base64
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.chat.attachments import Attached, attach
from agent.errors import AgentError
from agent.messages import ImagePart, Part, TextPart, checked_image
from agent.text import plural

if TYPE_CHECKING:
    from agent.mcp.catalog.contents import PromptMessage, PromptResult
    from agent.mcp.catalog.entries import PromptInfo
    from agent.mcp.runtime import McpRuntime

PREFIX = "mcp__"


@dataclass(frozen=True)
class PromptCommand:
    """One slash command: which server's which prompt."""

    command: str  # without the slash
    server: str
    prompt: PromptInfo


def prompt_commands(
    servers: Sequence[str],
    prompts_of: dict[str, Sequence[PromptInfo]],
    clashes: list[str] | None = None,
) -> dict[str, PromptCommand]:
    """Command name -> prompt, for the given servers' listed prompts. Two prompts whose names
    would make one command are both left out (neither could be told apart from the other),
    and `clashes` gets a line naming both."""
    from agent.mcp.config.names import model_tool_name

    found: dict[str, PromptCommand] = {}
    clashing: dict[str, list[PromptCommand]] = {}
    for server in servers:
        for prompt in prompts_of.get(server, ()):
            name = model_tool_name(server, prompt.name)
            command = PromptCommand(name, server, prompt)
            if name in found or name in clashing:
                clashing.setdefault(name, [found.pop(name)] if name in found else [])
                clashing[name].append(command)
                continue
            found[name] = command
    for name, commands in clashing.items():
        both = " and ".join(f"{c.prompt.name!r} of {c.server}" for c in commands)
        if clashes is not None:
            clashes.append(f"/{name} is left out: prompts {both} both make that command")
    return found


async def listed_prompt_commands(
    runtime: McpRuntime | None, clashes: list[str] | None = None
) -> dict[str, PromptCommand]:
    """The prompt commands of every enabled, trusted server (listing those not cached yet);
    a server that cannot list its prompts simply offers none."""
    if runtime is None:
        return {}
    config = runtime.store.load()
    servers = [
        d.name for d in config.definitions if config.state(d.name).enabled and runtime.is_trusted(d)
    ]
    prompts_of: dict[str, Sequence[PromptInfo]] = {}
    for server in servers:
        try:
            prompts_of[server] = (await runtime.prompts(server)).items
        except AgentError:
            continue
    return prompt_commands(servers, prompts_of, clashes)


def parse_arguments(command: str, text: str) -> dict[str, str]:
    """`name=value` words (shell quoting) -> arguments; AgentError says what is wrong."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise AgentError(f"/{command}: {error} (close the quote)") from None
    arguments: dict[str, str] = {}
    for word in words:
        name, equals, value = word.partition("=")
        if not equals or not name:
            raise AgentError(
                f"/{command}: {word!r} is not name=value (quote values with spaces: "
                f'name="two words")'
            )
        if name in arguments:
            raise AgentError(f"/{command}: the argument {name!r} is given twice")
        arguments[name] = value
    return arguments


def missing_required(prompt: PromptInfo, arguments: dict[str, str]) -> list[str]:
    """The required arguments not given yet, in the prompt's order."""
    return [name for name in prompt.required if name not in arguments]


def prompt_turn(server: str, result: PromptResult, limit_chars: int) -> Attached:
    """The prompt's messages as the parts of the person's turn, in order (with notes about
    anything cut)."""
    attached = Attached()
    for message in result.messages:
        _add_message(attached, server, message, limit_chars)
    return attached


def _add_message(attached: Attached, server: str, message: PromptMessage, limit: int) -> None:
    from agent.mcp.catalog.contents import PromptLink, PromptMedia, PromptResource, PromptText

    content = message.content
    said = "" if message.role == "user" else "[the prompt's assistant message]\n"
    if isinstance(content, PromptText):
        attached.parts.append(TextPart(said + content.text))
    elif isinstance(content, PromptResource):
        attach(attached, server, content.part.uri, [content.part], limit)
    elif isinstance(content, PromptMedia):
        attached.parts.append(_media(server, content, attached))
    elif isinstance(content, PromptLink):
        attached.parts.append(TextPart(f"{said}[resource link: {content.uri} ({content.name})]"))


def _media(server: str, media: object, attached: Attached) -> Part:
    from agent.mcp.catalog.contents import PromptMedia

    assert isinstance(media, PromptMedia)
    if media.image_type is None:
        return TextPart(
            f"[{media.kind}: {media.mime_type}, {plural(len(media.data), 'byte')}; not shown]"
        )
    count = sum(isinstance(part, ImagePart) for part in attached.parts)
    data = base64.b64encode(media.data).decode()
    image = checked_image(media.image_type, data, f"prompt of {server}", count)
    return image if isinstance(image, ImagePart) else TextPart(image)
