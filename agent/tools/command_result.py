"""What the model is told of a command's run: how it ended, then what it printed, and what
was left out (never silently)."""

from __future__ import annotations

import signal

from agent.messages import ToolResult
from agent.processes.runner import CommandOutcome
from agent.text import plural


def result_text(outcome: CommandOutcome, timeout: float) -> ToolResult:
    """The tool result of one run; an error result when it timed out."""
    parts = [_ending(outcome, timeout)]
    for name, text, dropped in (
        ("stdout", outcome.stdout, outcome.stdout_dropped),
        ("stderr", outcome.stderr, outcome.stderr_dropped),
    ):
        if not text and not dropped:
            continue
        parts.append(f"{name}:\n{text}" + ("" if text.endswith("\n") or not text else "\n"))
        if dropped:
            parts.append(f"[{plural(dropped, 'more byte')} of {name} were read and dropped]\n")
    if len(parts) == 1:
        parts.append("(no output)\n")
    if outcome.output_held:
        parts.append(
            "[something the command started kept its output open after it exited; reading "
            "stopped there and it was stopped]\n"
        )
    return ToolResult("".join(parts).rstrip("\n"), is_error=outcome.timed_out)


def _ending(outcome: CommandOutcome, timeout: float) -> str:
    if outcome.timed_out or outcome.exit_code is None:
        return (
            f"timed out after {timeout:g} s: the command and everything it started were stopped\n"
        )
    code = outcome.exit_code
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}\n"
    return f"exit code {code}\n"
