"""Run the fake server as a process: for tests that start the real `agent` in a pty.

    python -m tests.fake_openai --script turns.json --requests-log requests.jsonl

Prints exactly one line, "PORT <n>", on stdout once listening (nothing else ever goes to
stdout), appends each request to the log as one JSON line as soon as it arrives, and
exits 0 on SIGTERM or SIGINT. The base URL is http://127.0.0.1:<n>/v1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from tests.fake_openai.server import FakeOpenAI, iter_turns


def main(argv: list[str] | None = None) -> int:
    """Serve the script until a signal asks us to stop."""
    parser = argparse.ArgumentParser(prog="python -m tests.fake_openai", description=__doc__)
    parser.add_argument("--script", required=True, help="JSON file: a list of turns")
    parser.add_argument("--requests-log", help="append each request here as a JSON line")
    args = parser.parse_args(argv)

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())

    with contextlib.ExitStack() as stack:
        log = None
        if args.requests_log:
            log = stack.enter_context(Path(args.requests_log).open("a", encoding="utf-8"))

        def append(request: dict[str, Any]) -> None:
            # Flushed per line: the test reads the log while the server is still running.
            if log is not None:
                log.write(json.dumps(request) + "\n")
                log.flush()

        fake = stack.enter_context(FakeOpenAI(iter_turns(args.script), on_request=append))
        print(f"PORT {fake.port}", flush=True)
        # Signal handlers run in the main thread between waits; the handler sets `stop`.
        while not stop.wait(0.5):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
