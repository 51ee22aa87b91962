"""`/context`: what the next request holds and its size in tokens, part by part."""

from __future__ import annotations

import anyio.to_thread

from agent.chat.context import ContextPart, ContextReport, measure_context
from agent.chat.state import ChatSession
from agent.text import sanitize_line
from agent.ui.style import styled

_WIDTH = 24


def _row(name: str, tokens: int, detail: str = "", indent: int = 2) -> str:
    label = sanitize_line(name)
    pad = max(1, _WIDTH - indent - len(label))
    line = f"{' ' * indent}{label}{' ' * pad}{tokens:>9,} tokens"
    return f"{line}  {sanitize_line(detail)}" if detail else line


def context_lines(report: ContextReport) -> list[str]:
    """The report as lines: system prompt parts, tools by source, history, total and share."""
    lines = [
        f"The next request to {sanitize_line(report.model)} ({report.counted}):",
        _row("system prompt", report.system_tokens),
    ]
    lines.extend(_row(part.name, part.tokens, part.detail, indent=4) for part in report.system)
    count = sum(part.count for part in report.tools)
    lines.append(_row("tools", report.tools_tokens, f"{count} in all"))
    lines.extend(_row(_source(part), part.tokens, part.detail, indent=4) for part in report.tools)
    if report.deferred is not None:  # not part of the request: what deferral saves
        part = report.deferred
        lines.append(_row(part.name, part.tokens, part.detail, indent=4))
    lines.append(_row(report.history.name, report.history.tokens, report.history.detail))
    lines.append(
        _row("total", report.total, f"{report.share:.1%} of the context window "
             f"({report.window:,} tokens)")
    )  # fmt: skip
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
