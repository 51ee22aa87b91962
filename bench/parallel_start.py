"""Starting 5 stdio servers together vs one by one, through McpRuntime.

Prints total(together) / sum(one by one). A Python server's start is mostly CPU (imports), so
on 2 cores the floor is near 0.5. Goal: <= 0.6.

    .venv/bin/python bench/parallel_start.py
"""

from __future__ import annotations

import time

import anyio
from _common import runtime, trusted_store

NAMES = [f"server-{i}" for i in range(5)]


async def main() -> None:
    store, home = trusted_store(NAMES)
    one_by_one = 0.0
    async with runtime(store, home) as rt:
        for name in NAMES:
            started = time.perf_counter()
            await rt.start(name, ask_trust=False)
            one_by_one += time.perf_counter() - started
    async with runtime(store, home) as rt:
        started = time.perf_counter()
        results = await rt.start_many(NAMES)
        together = time.perf_counter() - started
    failures = {name: str(error) for name, error in results.items() if error is not None}
    if failures:
        raise SystemExit(f"start failed: {failures}")
    print(f"starting {len(NAMES)} stdio servers")
    print(f"  one by one (sum): {one_by_one:.2f} s")
    print(f"  together:         {together:.2f} s")
    print(f"  ratio: {together / one_by_one:.2f} (goal <= 0.6)")


if __name__ == "__main__":
    anyio.run(main)
