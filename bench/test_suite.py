"""The test suite serially vs in parallel, as the README's `.venv/bin/pytest` runs it.

Runs one pytest selection twice in the same run: serially (`-n 0`) and with pyproject's addopts
(pytest-xdist, -n auto: two workers more than the cores; `--workers N` to try another count).
Prints parallel / serial wall time.
Goal (issue 24): <= 0.5. The whole suite (the default) takes about 42 minutes serially on two
cores (0.48 measured on 2026-12-04), so pass a smaller selection to try an idea; both runs must
pass or the ratio means nothing.

    .venv/bin/python bench/test_suite.py [--workers N] [PYTEST ARGS...]
    .venv/bin/python bench/test_suite.py --workers 4 tests/mcp tests/security
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOAL = 0.5


def timed_pytest(args: list[str], log: Path) -> tuple[float, int, str]:
    """Wall seconds, exit status and last output line of one pytest run in the repo; its whole
    output (with the slowest tests, which bound what more workers can gain) goes to `log`."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--durations=30", *args]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    log.write_text(done.stdout + done.stderr)
    lines = done.stdout.strip().splitlines() or [done.stderr.strip()]
    return took, done.returncode, lines[-1] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", help="pytest -n for the parallel run (default: addopts')")
    known, selection = parser.parse_known_args()
    parallel_args = ["-n", known.workers] if known.workers else []
    logs = Path(tempfile.mkdtemp(prefix="agent-bench-suite-"))
    runs = {
        "serial": timed_pytest(["-n", "0", *selection], logs / "serial.log"),
        "parallel": timed_pytest([*parallel_args, *selection], logs / "parallel.log"),
    }
    print(f"pytest {' '.join(selection) or '(whole suite)'} (outputs in {logs})")
    for name, (took, status, summary) in runs.items():
        print(f"  {name + ':':<10} {took:7.1f} s  (exit {status}: {summary})")
    failed = [name for name, (_, status, _) in runs.items() if status != 0]
    if failed:
        raise SystemExit(f"{' and '.join(failed)} run failed: the ratio would mean nothing")
    ratio = runs["parallel"][0] / runs["serial"][0]
    print(f"  ratio: {ratio:.2f} (goal <= {GOAL}) {'ok' if ratio <= GOAL else 'MISSED'}")


if __name__ == "__main__":
    main()
