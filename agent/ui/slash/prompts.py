"""Running `/mcp__<server>__<prompt> name=value ...` in the chat: missing required arguments
are asked in a small form, the prompt's messages are shown (server text, sanitized), and
they come back as the person's turn for the chat to send."""

from __future__ import annotations

from dataclasses import dataclass, field

from prompt_toolkit.shortcuts import PromptSession

from agent.chat.prompt_commands import (
    PromptCommand,
    listed_prompt_commands,
    missing_required,
    parse_arguments,
    prompt_turn,
)
from agent.chat.state import ChatSession
from agent.errors import AgentError
from agent.mcp.forms.elicitation import is_secret
from agent.messages import ImagePart, Part, TextPart
from agent.text import plural, sanitize, sanitize_line
from agent.ui.style import styled
from agent.ui.tool_calls import cut

SHOWN_LINES = 40  # of each message; the whole message is sent
SHOWN_LINE_CHARS = 400  # of each line shown: one line of a server's may be a megabyte


@dataclass(frozen=True)
class TurnToSend:
    """A slash command's answer that the chat sends as the person's turn."""

    text: str
    parts: list[Part] = field(default_factory=list)


async def run_prompt_command(chat: ChatSession, name: str, argument: str) -> TurnToSend | None:
    """The prompt's messages as a turn to send; None when there is nothing to send."""
    runtime = chat.host.runtime
    # Listing and getting are requests of their own (a remote server disconnects after each),
    # so no connection stays open while the person fills in missing arguments.
    async with chat.host.request_scope():
        command = (await listed_prompt_commands(runtime)).get(name)
    if command is None or runtime is None:
        raise AgentError(f"no MCP prompt /{name} (enabled servers' prompts are listed by /help)")
    arguments = parse_arguments(name, argument)
    missing = missing_required(command.prompt, arguments)
    if missing and not await _ask_missing(command, missing, arguments):
        print(styled("Cancelled; nothing was sent.", "yellow"))
        return None
    async with chat.host.request_scope():
        result = await runtime.get_prompt(command.server, command.prompt.name, arguments)
    attached = prompt_turn(command.server, result, runtime.limits.output_limit_chars)
    _show(command, attached.parts)
    for line in attached.notes:
        print(styled(sanitize_line(line), "yellow"))
    # The command line joins the conversation; a secret-named argument's value does not.
    given = " ".join(
        f"{key}={'(secret)' if is_secret(key, {}) else _quoted(value)}"
        for key, value in arguments.items()
    )
    return TurnToSend(f"/{name} {given}".rstrip(), attached.parts)


async def _ask_missing(
    command: PromptCommand, missing: list[str], arguments: dict[str, str]
) -> bool:
    from agent.mcp.forms.elicitation import FormField
    from agent.ui.dialogs.elicitation import ask_field

    prompt = command.prompt
    print(
        styled(
            f"Prompt {sanitize_line(prompt.name)} of MCP server {sanitize_line(command.server)} "
            "needs (Ctrl-C cancels):",
            "bold",
        )
    )
    session: PromptSession[str] = PromptSession()
    described = {argument.name: argument for argument in prompt.arguments}
    try:
        for name in missing:
            info = described[name]
            form = FormField(
                name=name, kind="string", title=info.title or name,
                description=info.description or "", required=True,
                secret=is_secret(name, {}),
            )  # fmt: skip
            arguments[name] = str(await ask_field(session, form))
    except (KeyboardInterrupt, EOFError):
        return False
    return True


def _show(command: PromptCommand, parts: list[Part]) -> None:
    title = f"⏺ prompt {command.prompt.name} of MCP server {command.server}"
    print(styled(sanitize_line(title), "cyan"))
    for part in parts:
        if isinstance(part, ImagePart):
            print(styled(f"  [image: {sanitize_line(part.mime_type)}, {part.size} bytes]", "dim"))
            continue
        assert isinstance(part, TextPart)
        lines = sanitize(part.text).splitlines() or [""]
        for line in lines[:SHOWN_LINES]:
            print(f"  {cut(line, SHOWN_LINE_CHARS)}")
        if len(lines) > SHOWN_LINES:
            print(styled(f"  … ({plural(len(lines) - SHOWN_LINES, 'more line')}, all sent)", "dim"))


def _quoted(value: str) -> str:
    import shlex

    return shlex.quote(value)
