"""kill -9 while a session is being written: every file still loads and rebuilds a valid history."""

from __future__ import annotations

import json
import os
import random
import selectors
import signal
import subprocess
import sys
import time
from itertools import islice
from pathlib import Path

from agent.session.history import rebuild
from agent.session.store import load_session
from tests import deadlines
from tests.session.session_helpers import endless_events, history_problems, without_stamps

ROOT = Path(__file__).resolve().parents[2]
RUNS = 30
TORN_NOTE = "the last line was cut off (the app stopped mid-write); it was ignored"

# Writes the scripted turns for ever, as fast as it can, until it is killed.
CHILD = """
import sys
from pathlib import Path
from agent.session.events import event_from_json
from agent.session.store import SessionWriter
from tests.session.session_helpers import MODEL, PROJECT, endless_events

writer = SessionWriter.create(Path(PROJECT), MODEL, Path(sys.argv[1]))
print(writer.path, flush=True)
for event in endless_events():
    writer.record(event_from_json(event))
"""


def start_writer(folder: Path) -> tuple[subprocess.Popen[str], Path]:
    """A child process writing a session into `folder`, and the path of its file."""
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        ready = selector.select(timeout=deadlines.PROCESS)
    line = process.stdout.readline().strip() if ready else ""
    if not line:
        process.kill()
        _, stderr = process.communicate(timeout=deadlines.PROCESS)
        raise AssertionError(f"the writer did not start: {stderr}")
    return process, Path(line)


def kill_when_size_reaches(process: subprocess.Popen[str], path: Path, size: int) -> None:
    """SIGKILL the writer once its file has `size` bytes (or after 5 s), mid-stream."""
    deadline = time.monotonic() + 5
    while path.stat().st_size < size and time.monotonic() < deadline:
        assert process.poll() is None, f"the writer died on its own: {process.communicate()}"
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=deadlines.PROCESS)
    assert process.returncode == -signal.SIGKILL


def test_killing_the_writer_at_random_moments_loses_at_most_the_line_being_written(
    tmp_path: Path,
) -> None:
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)  # noqa: S311 (kill moments, not secrets)
    outcomes = []
    started = time.monotonic()
    for run in range(RUNS):
        process, path = start_writer(tmp_path / f"run-{run}")
        kill_when_size_reaches(process, path, rng.randrange(0, 3_000_000))

        raw = path.read_bytes()
        loaded = load_session(path)
        rebuilt = rebuild(loaded.events, loaded.header.model)

        complete, partial = raw.count(b"\n"), raw.rsplit(b"\n", 1)[1]
        expected_events = complete - 1 + (1 if _is_json(partial) else 0)
        expected_notes = [TORN_NOTE] if partial and not _is_json(partial) else []
        recorded = list(islice(endless_events(), len(loaded.events)))
        context = f"run {run} (seed {seed}): {len(raw)} bytes"
        assert (len(loaded.events), loaded.notes) == (expected_events, expected_notes), context
        assert [without_stamps(e) for e in loaded.events] == recorded, context
        assert history_problems(rebuilt.messages) == [], context
        outcomes.append("torn" if expected_notes else "whole")
    assert time.monotonic() - started < deadlines.PROCESS, f"{RUNS} runs took too long ({outcomes})"


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return bool(line)
