"""Session files: appending stays as cheap in a long session as in a new one, and resuming a
long session is quick.

Prints the median cost of appending one event to a session of 10 events and to one of
10 000 (the ratio should stay near 1: appends never read the file), and the time to load and
rebuild a 10 000-event session (goal < 0.3 s) against reading the same file's bytes.

    .venv/bin/python bench/session_store.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from _common import REPO  # noqa: F401  (puts the repo on sys.path)

from agent.session.history import rebuild
from agent.session.store import SessionWriter, load_session

EVENTS = 10_000


def fill(writer: SessionWriter, count: int) -> None:
    for i in range(count // 4):
        writer.record({"type": "user", "content": f"question {i} " * 10})
        call = {"id": f"c{i}", "name": "mcp__fx__echo", "arguments": '{"text": "x"}'}
        writer.record({"type": "assistant", "content": None, "tool_calls": [call]})
        writer.record({"type": "tool_result", "tool_call_id": f"c{i}", "content": "ok " * 50})
        writer.record({"type": "assistant", "content": f"answer {i} " * 20})


def append_cost(writer: SessionWriter, rounds: int = 500) -> float:
    samples = []
    for i in range(rounds):
        started = time.perf_counter()
        writer.record({"type": "user", "content": f"one more {i}"})
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="agent-bench-sessions-"))
    short = SessionWriter.create(folder, "m", folder)
    fill(short, 10)
    long = SessionWriter.create(folder, "m", folder)
    fill(long, EVENTS)
    short_us, long_us = append_cost(short), append_cost(long)
    short.close()
    long.close()

    read_times, resume_times = [], []
    for _ in range(5):
        started = time.perf_counter()
        long.path.read_bytes()
        read_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        rebuild(load_session(long.path).events)
        resume_times.append(time.perf_counter() - started)
    read_ms = statistics.median(read_times) * 1000
    resume_ms = statistics.median(resume_times) * 1000
    print("appending one event (median of 500)")
    print(f"  to a session of 10 events:     {short_us:.1f} µs")
    print(f"  to a session of {EVENTS} events: {long_us:.1f} µs  (ratio {long_us / short_us:.2f})")
    print(f"resuming a session of {EVENTS} events (median of 5)")
    print(f"  reading its bytes: {read_ms:.1f} ms")
    ratio = resume_ms / read_ms
    print(f"  load + rebuild:    {resume_ms:.1f} ms (goal < 300 ms; ratio {ratio:.0f})")


if __name__ == "__main__":
    main()
