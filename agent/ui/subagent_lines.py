"""The subagents of a turn on the terminal: a line when each starts and when it ends (how, what
it cost, the start of its answer), and while they run, one line each under the spinner: who,
its task, its current tool and its tokens. Everything quoted is the model's words, sanitised
and cut to a glimpse."""

from __future__ import annotations

from agent.chat.subagents import SubagentRun
from agent.text import plural, sanitize_line
from agent.ui.fit import glimpse
from agent.ui.render import EventRenderer
from agent.ui.style import styled

TASK_SHOWN = 48  # characters of a task on its running line
ANSWER_SHOWN = 80  # characters of an answer on its end line
MARKS = {"answered": ("✓", "green"), "interrupted": ("✗", "yellow")}


def tokens(run: SubagentRun) -> str:
    return plural(run.usage.prompt_tokens + run.usage.completion_tokens, "token")


def running_line(run: SubagentRun) -> str:
    """`explore #2 · find the parser… · read_file · 1,234 tokens`"""
    doing = sanitize_line(run.current_tool or "thinking")
    task = glimpse(run.task, TASK_SHOWN)
    return f"  {sanitize_line(run.label)} · {task} · {doing} · {tokens(run)}"


def started_line(run: SubagentRun) -> str:
    """`explore #2 started: find the parser…`"""
    return f"{sanitize_line(run.label)} started: {glimpse(run.task, TASK_SHOWN)}"


def ended_line(run: SubagentRun) -> str:
    """`✓ explore #2 answered · 1,234 tokens · The parser lives in…`"""
    mark, _ = MARKS.get(run.status, ("✗", "red"))
    first = next((line for line in run.answer.splitlines() if line.strip()), "")
    said = f" · {glimpse(first, ANSWER_SHOWN)}" if first else ""
    return f"{mark} {sanitize_line(run.label)} {run.status} · {tokens(run)}{said}"


class SubagentLines:
    """A SubagentListener drawing on the chat's renderer."""

    def __init__(self, renderer: EventRenderer) -> None:
        self.renderer = renderer
        self.running: dict[int, SubagentRun] = {}

    def started(self, run: SubagentRun) -> None:
        self.running[run.number] = run
        self.renderer.subagent_line(styled(f"⏺ {started_line(run)}", "cyan"))
        self._rows()

    def updated(self, run: SubagentRun) -> None:
        self._rows()

    def ended(self, run: SubagentRun) -> None:
        self.running.pop(run.number, None)
        _, colour = MARKS.get(run.status, ("✗", "red"))
        self.renderer.subagent_line(styled(ended_line(run), colour), run.usage, run.requests)
        self._rows()

    def _rows(self) -> None:
        self.renderer.subagent_rows([running_line(run) for run in self.running.values()])
