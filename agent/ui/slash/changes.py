"""/undo and /changes: the file changes of this session, and the way back (the work is done by
agent.chat.file_changes; this says it)."""

from __future__ import annotations

from agent.chat.file_changes import when
from agent.chat.state import ChatSession
from agent.text import plural, sanitize_line
from agent.ui.style import styled

UNDO_USAGE = "/undo [N]: N is a change's number as /changes lists it"


async def undo_command(chat: ChatSession, argument: str) -> None:
    log = chat.file_changes
    if log is None:
        print("This chat has no file tools, so nothing to undo.")
        return None
    number = None
    if argument:
        if not argument.isdigit():
            print(styled(sanitize_line(f"usage: {UNDO_USAGE}"), "yellow"))
            return None
        number = int(argument)
    outcome = log.undo(number)
    colour = "green" if outcome.done else "yellow"
    # Paths and diff lines come from the model and the files: one line each, escaped.
    first, *rest = [sanitize_line(line) for line in outcome.lines]
    print(styled(first, colour))
    for line in rest:
        print(line)
    return None


async def changes_command(chat: ChatSession, argument: str) -> None:
    log = chat.file_changes
    if log is None or not log.changes:
        print("No file changes in this session.")
        return None
    undone = sum(change.undone for change in log.changes)
    print(
        f"{plural(len(log.changes), 'file change')} in this session"
        + (f", {undone:,} undone" if undone else "")
        + " (/undo takes back the last one, /undo N a given one):"
    )
    for change in log.changes:
        event = change.event
        state = "  undone" if change.undone else ""
        if change.elsewhere is not None:
            state += f"  (made in {change.elsewhere})"
        line = (
            f"  {event.number:>3}  {when(change.at):<16}  {event.action:<9}  "
            f"{event.path}  ({event.tool}){state}"
        )
        print(sanitize_line(line))
    return None
