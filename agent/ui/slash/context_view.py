"""`/context`: what the next request holds and its size in tokens, part by part."""

from __future__ import annotations

import anyio.to_thread

from agent.chat.context import ContextPart, ContextReport, measure_context
from agent.chat.state import ChatSession
from agent.text import noun_for, plural, sanitize_line
from agent.ui.style import styled

_WIDTH = 24


def _row(name: str, tokens: int, detail: str = "", indent: int = 2) -> str:
    label = sanitize_line(name)
    pad = max(1, _WIDTH - indent - len(label))
    line = f"{' ' * indent}{label}{' ' * pad}{tokens:>9,} {noun_for(tokens, 'token')}"
    return f"{line}  {sanitize_line(detail)}" if detail else line


def context_lines(report: ContextReport) -> list[str]:
    """The report as lines: the system prompt by part, the tools by source, the messages, the
    attachments, and their total (the rows sum to it), with the window's share when known."""
    lines = [
        f"The next request to {sanitize_line(report.model)} ({report.counted}):",
        _row("system prompt", report.system_tokens),
    ]
    lines.extend(_row(part.name, part.tokens, part.detail, indent=4) for part in report.system)
    count = sum(part.count for part in report.tools)
    lines.append(_row("tools", report.tools_tokens, plural(count, "tool")))
    lines.extend(_row(_source(part), part.tokens, part.detail, indent=4) for part in report.tools)
    if report.deferred is not None:  # not part of the request: what deferral saves
        part = report.deferred
        lines.append(_row(part.name, part.tokens, part.detail, indent=4))
    for part in (report.messages, report.attachments):
        lines.append(_row(part.name, part.tokens, part.detail))
    if report.share is None or report.window is None:
        window = "context window unknown"
    else:
        window = (
            f"{report.share:.1%} of the context window ({plural(report.window, 'token')}, "
            f"{report.window_source})"
        )
    lines.append(_row("total", report.total, window))
    return lines


def _source(part: ContextPart) -> str:
    return "skill tools" if part.name == "skills" else part.name


async def show_context(chat: ChatSession, argument: str) -> None:
    """Print the report of the next request, and the notes on instruction files."""
    # Counting a long history takes a while: in a worker thread the spinner, MCP I/O and
    # Ctrl-C go on (a cancelled count is abandoned; its thread ends on its own).
    report = await anyio.to_thread.run_sync(measure_context, chat, abandon_on_cancel=True)
    for line in context_lines(report):
        print(line)
    for note in report.notes:
        print(styled(sanitize_line(note), "yellow"))
    records = chat.subagents.records() if chat.subagents is not None else []
    if records:  # their contexts were their own: the request holds only their answers
        used = sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in records)
        print(
            styled(
                f"{plural(len(records), 'subagent')} of this session used "
                f"{plural(used, 'token')} in contexts of their own; this request holds only "
                "their answers (/agents lists them)",
                "dim",
            )
        )
