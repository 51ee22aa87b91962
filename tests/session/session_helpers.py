"""Events as the chat records them, and what a valid rebuilt history looks like.

Imported by the crash test's child process too, so it needs nothing beyond the app itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from agent.messages import Message

PROJECT = "/work/project"
MODEL = "openai/fake-model"


def snapshot(name: str, body: str) -> dict[str, str]:
    """A skill_activation snapshot as ActiveSkills makes it."""
    return {
        "name": name,
        "scope": "project",
        "path": f"/work/project/.agents/skills/{name}/SKILL.md",
        "body_sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
        "body": body,
    }


def assistant(content: str | None, *calls: tuple[str, str, str]) -> dict[str, Any]:
    """An assistant event; each call is (id, name, arguments JSON)."""
    event: dict[str, Any] = {"type": "assistant", "content": content}
    if calls:
        event["tool_calls"] = [{"id": i, "name": n, "arguments": a} for i, n, a in calls]
    return event


def result(call_id: str, content: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_call_id": call_id, "content": content}


def usage(prompt: int, completion: int, cost: float | None) -> dict[str, Any]:
    return {
        "type": "usage",
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cost_usd": cost,
    }


def approval(call_id: str, tool: str, approved: bool, reason: str | None) -> dict[str, Any]:
    return {
        "type": "approval",
        "tool_call_id": call_id,
        "tool": tool,
        "approved": approved,
        "reason": reason,
    }


def user(text: str) -> dict[str, Any]:
    return {"type": "user", "content": text}


def turn_events(i: int) -> list[dict[str, Any]]:
    """One whole turn (number i) of a chat with two approved MCP calls; sizes vary with i so
    some lines are long enough to be written in several pieces."""
    big = "x" * (1 << (i % 21))  # 1 byte to 1 MiB
    events = [
        user(f"question {i}"),
        assistant(
            None,
            (f"c{i}a", "mcp__fx__echo", f'{{"text": "{i}"}}'),
            (f"c{i}b", "mcp__fx__add", '{"a": 1, "b": 2}'),
        ),
        approval(f"c{i}a", "mcp__fx__echo", True, None),
        result(f"c{i}a", f"echo {i} {big}"),
        approval(f"c{i}b", "mcp__fx__add", False, "not now"),
        result(f"c{i}b", "Error: The person declined this tool call. Their reason: not now"),
        assistant(f"answer {i}"),
        usage(100 + i, 10, 0.001),
    ]
    if i % 5 == 4:
        events.append(snapshot_event(f"skill-{i % 3}", f"body {i}"))
    return events


def snapshot_event(name: str, body: str) -> dict[str, Any]:
    return {"type": "skill_activation", "snapshot": snapshot(name, body)}


def endless_events() -> Iterator[dict[str, Any]]:
    """What the crash test's child writes, in order, until it is killed."""
    i = 0
    while True:
        yield from turn_events(i)
        i += 1


def numbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events as the writer stamps them: message events carry their running number."""
    count, stamped = 0, []
    for event in events:
        if event["type"] in ("user", "assistant", "tool_result"):
            count += 1
            event = {**event, "n": count}
        stamped.append(event)
    return stamped


def without_stamps(event: dict[str, Any]) -> dict[str, Any]:
    """An event as it was recorded, before the writer added "at" and "n"."""
    return {k: v for k, v in event.items() if k not in ("at", "n")}


def history_problems(messages: list[Message]) -> list[str]:
    """Why a provider would reject this history (empty when it is valid): every assistant
    tool call answered right after it, every tool message answering such a call."""
    problems = []
    pending: list[str] = []
    for index, message in enumerate(messages):
        if message.role == "tool":
            if message.tool_call_id not in pending:
                problems.append(f"message {index}: orphan result for {message.tool_call_id}")
            else:
                pending.remove(message.tool_call_id)
            continue
        if pending:
            problems.append(f"message {index}: calls {pending} unanswered before it")
        pending = [call.id for call in message.tool_calls]
    if pending:
        problems.append(f"the history ends with calls {pending} unanswered")
    return problems
