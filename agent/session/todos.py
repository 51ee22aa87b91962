"""The task list's items and the one check of a list, shared by the tool that takes it from
the model (agent/chat/todos.py) and the session file that keeps it (the `todos` event).

The bounds keep a hostile or confused model from filling the screen and every later request
with its list: a list over them is refused whole, with an error the model can act on that
never quotes what it sent (a step may be 200,000 characters)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.text import plural

STATUSES = ("pending", "in_progress", "done")
MAX_TODOS = 50
MAX_TEXT_CHARS = 500
_SAID = 5  # problems named in one error: enough to fix the list, never a flood


@dataclass(frozen=True)
class TodoItem:
    """One step of the list: what to do, and where it stands."""

    text: str
    status: str  # one of STATUSES

    def to_json(self) -> dict[str, str]:
        return {"text": self.text, "status": self.status}


def parse_todos(raw: object) -> tuple[TodoItem, ...]:
    """The list `raw` holds (a JSON array of {text, status}); ValueError naming every problem
    (the first few) when it cannot be kept as it is. Steps are numbered from 1, as a person
    counts them."""
    if not isinstance(raw, list):
        raise ValueError("the list must be an array of steps, each {text, status}")
    if len(raw) > MAX_TODOS:
        raise ValueError(
            f"at most {MAX_TODOS} steps; this list has {len(raw)}: merge small steps or drop "
            "finished ones"
        )
    problems: list[str] = []
    items = []
    for number, entry in enumerate(raw, start=1):
        item = _item(number, entry, problems)
        if item is not None:
            items.append(item)
    current = [n for n, item in enumerate(items, start=1) if item.status == "in_progress"]
    if not problems and len(current) > 1:
        numbers = ", ".join(str(n) for n in current[:-1]) + f" and {current[-1]}"
        problems.append(
            f"at most one step may be in_progress; steps {numbers} are: mark the others "
            "pending or done"
        )
    if problems:
        shown = problems[:_SAID]
        more = len(problems) - len(shown)
        raise ValueError("; ".join(shown) + (f"; and {more} more" if more else ""))
    return tuple(items)


def _item(number: int, entry: Any, problems: list[str]) -> TodoItem | None:
    if not isinstance(entry, dict):
        problems.append(f"step {number} must be an object {{text, status}}")
        return None
    text, status = entry.get("text"), entry.get("status")
    before = len(problems)
    if not isinstance(text, str):
        problems.append(f"step {number}'s text must be a string")
    elif not text.strip():
        problems.append(f"step {number}'s text is empty")
    elif len(text) > MAX_TEXT_CHARS:
        problems.append(
            f"step {number}'s text is {plural(len(text), 'character')}; at most "
            f"{MAX_TEXT_CHARS}: say it shorter"
        )
    if status not in STATUSES:
        problems.append(f"step {number}'s status must be one of {', '.join(STATUSES)}")
    if len(problems) > before:
        return None
    assert isinstance(text, str) and isinstance(status, str)
    return TodoItem(text.strip(), status)
