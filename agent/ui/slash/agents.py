"""/agents: this session's subagents (a resumed session's too, from its file), and `/agents N`:
one's transcript, its task, what it called and read, and the answer its parent received.
Everything in it is the model's or a tool's words: sanitised, a line each."""

from __future__ import annotations

from agent.chat.state import ChatSession
from agent.messages import Message
from agent.session.subagent_log import SubagentRecord
from agent.text import plural, sanitize, sanitize_line
from agent.ui.fit import glimpse
from agent.ui.style import styled
from agent.ui.tool_calls import more_lines, result_preview, short_arguments

USAGE = "/agents [N]: N is a subagent's number as /agents lists it"
RESULT_LINES = 3


def _tokens(record: SubagentRecord) -> str:
    return plural(record.usage.prompt_tokens + record.usage.completion_tokens, "token")


async def agents_command(chat: ChatSession, argument: str) -> None:
    records = chat.subagents.records() if chat.subagents is not None else []
    if argument:
        if not argument.isdigit():
            print(styled(USAGE, "yellow"))
            return None
        found = next((r for r in records if r.number == int(argument)), None)
        if found is None:
            print(
                styled(f"No subagent #{argument} in this session (/agents lists them).", "yellow")
            )
            return None
        for line in transcript(found):
            print(line)
        return None
    if not records:
        print("No subagents in this session yet (the model starts them with its delegate tool).")
        return None
    print(f"{plural(len(records), 'subagent')} in this session (/agents N shows one):")
    for record in records:
        status = sanitize_line(record.status) if record.status else "running"
        print(
            f"  #{record.number:<3} {sanitize_line(record.label)} · {status} · "
            f"{_tokens(record)} · {glimpse(record.task, 60)}"
        )
    return None


def transcript(record: SubagentRecord) -> list[str]:
    """The subagent's conversation as lines: header, task, each step, its answer."""
    lines = [
        styled(f"{sanitize_line(record.label)} · {sanitize_line(record.status)} · "
               f"{sanitize_line(record.model)} · {_tokens(record)}", "bold"),
        "task:",
        *(f"  {line}" for line in sanitize(record.task).splitlines()),
    ]  # fmt: skip
    for message in record.messages[1:]:  # the first is the task itself
        lines.extend(_step(message))
    if record.answer:
        lines.append("answer given to its parent:")
        lines.extend(f"  {line}" for line in sanitize(record.answer).splitlines())
    return lines


def _step(message: Message) -> list[str]:
    if message.role == "assistant":
        said = [f"  {line}" for line in sanitize(message.content or "").splitlines()]
        calls = [
            styled(f"⏺ {sanitize_line(call.name)} {short_arguments(call.arguments)}", "cyan")
            for call in message.tool_calls
        ]
        return [*said, *calls]
    if message.role == "tool":
        text = message.content or ""
        preview = result_preview(text, text.startswith("Error"), RESULT_LINES)
        shown = [styled(line, "dim") for line in preview.lines]
        if preview.hidden:
            shown.append(styled(more_lines(preview.hidden), "dim"))
        return shown
    return []
