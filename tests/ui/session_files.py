"""Session files written by hand, as the chat writes them, for tests that resume or list them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MODEL = "openai/fake-model"


def write_session(
    agent_home: Path,
    session_id: str,
    project: Path,
    events: list[dict[str, Any]],
    *,
    one_shot: bool = False,
    header: dict[str, Any] | None = None,
) -> Path:
    """`AGENT_HOME/sessions/ID.jsonl` (0600): a header, then `events` stamped as the writer
    stamps them (a time, and a running number on each message). `header` overrides fields."""
    first = {
        "type": "header",
        "version": 1,
        "id": session_id,
        "started_at": "2026-11-29T14:35:01.000+00:00",
        "project": str(project),
        "model": MODEL,
        "app_version": "0.1.0",
        **({"one_shot": True} if one_shot else {}),
        **(header or {}),
    }
    lines, count = [first], 0
    for second, event in enumerate(events, start=1):
        stamped = {"at": f"2026-11-29T14:36:{second % 60:02d}.000+00:00", **event}
        if event["type"] in ("user", "assistant", "tool_result"):
            count += 1
            stamped["n"] = count
        lines.append(stamped)
    folder = agent_home / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    path.chmod(0o600)
    return path


def turn(question: str, answer: str) -> list[dict[str, Any]]:
    """One plain turn: the person's question and the model's answer."""
    return [
        {"type": "user", "content": question},
        {"type": "assistant", "content": answer},
    ]


def tool_turn(
    question: str, call_id: str, name: str, arguments: str, result: str, answer: str
) -> list[dict[str, Any]]:
    """A turn whose answer called one tool (approved) before its text."""
    return [
        {"type": "user", "content": question},
        {
            "type": "assistant",
            "content": None,
            "tool_calls": [{"id": call_id, "name": name, "arguments": arguments}],
        },
        {"type": "tool_result", "tool_call_id": call_id, "content": result},
        {"type": "assistant", "content": answer},
    ]
