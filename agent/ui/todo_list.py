"""The model's task list as the chat draws it: a line per step, a mark per status, the current
step standing out. In the transcript when the model updates it, and by /todos.

Step text is model text: each step is one line, sanitised (an escape sequence or a line break
in it is shown, never acted on); the list's size is bounded where it is kept
(agent/session/todos.py)."""

from __future__ import annotations

from collections.abc import Sequence

from agent.session.todos import TodoItem
from agent.text import sanitize_line
from agent.ui.style import styled

MARKS = {"done": "✓", "in_progress": "▸", "pending": "○"}
_STYLES = {"done": ("dim",), "in_progress": ("bold", "cyan"), "pending": ()}


def todo_lines(items: Sequence[TodoItem]) -> list[str]:
    """A line per step, indented under what came before it."""
    return [
        "  " + styled(f"{MARKS[item.status]} {sanitize_line(item.text)}", *_STYLES[item.status])
        for item in items
    ]


def step_label(item: TodoItem) -> str:
    """The current step as the spinner's label (which cuts it to the terminal's width)."""
    return sanitize_line(item.text)
