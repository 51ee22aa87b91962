"""How long the chat's first request waits for MCP tools, with the tools listed at every start
(this tree) against a start that uses the cached list, as every start did before fresh lists.

    .venv/bin/python bench/first_request_wait.py [--runs N]

For one and for three trusted stdio servers (tools_server.py, 16 tools each, enabled, their
tools cached), the chat's McpHost is served as the chat serves it: the clock runs from the
moment the prompt would be on screen (serve starts) until `wait_for_servers` returns, which is
when the first request is composed. The "cached" side marks the cache fresh (a cache hint of a
day, as a 2026-07-28 server may give), so the start skips the listing: exactly the old path.
The sides alternate round by round, so the shared machine's noise hits both alike; medians.
A ratio within 10% is unchanged within noise (bench/against_commit.py says why).
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from pathlib import Path

import anyio
from _common import runtime, trusted_store

from agent.mcp.config.definitions import fingerprint
from agent.mcp.host import McpHost
from agent.mcp.store import McpStore

NOISE = 0.10


def mark(store: McpStore, names: list[str], fresh: bool) -> None:
    """Make the cached list fresh for a day (the old path), or stale (listed at start)."""
    until = time.time() + 86_000 if fresh else None
    for name in names:
        fp = fingerprint(store.load().find(name))
        store.update_state(name, fp, lambda s: replace(s, enabled=True, tools_fresh_until=until))


async def first_request_wait(store: McpStore, home: Path, names: list[str]) -> float:
    """Seconds from serve's start until a request may be composed with every server's tools."""
    host = McpHost(lambda: runtime(store, home), report=lambda line: None, store_path=store.path)
    stop = anyio.Event()
    async with anyio.create_task_group() as group:
        started = time.perf_counter()
        group.start_soon(host.serve, stop)
        await host.wait_for_servers(lambda waiting: None)
        waited = time.perf_counter() - started
        offered = [tool for tool in host.tools() if tool.spec.name.startswith("mcp__")]
        assert len(offered) == 16 * len(names), len(offered)
        stop.set()
    return waited


async def main(runs: int) -> None:
    for count in (1, 3):
        names = [f"server-{i}" for i in range(count)]
        store, home = trusted_store(names)
        async with runtime(store, home) as rt:
            for name in names:
                await rt.discover(name)  # cached, every tool selected (as `agent mcp add` does)
        samples: dict[bool, list[float]] = {True: [], False: []}
        for round_ in range(runs + 1):
            for fresh in (True, False) if round_ % 2 else (False, True):
                mark(store, names, fresh)
                waited = await first_request_wait(store, home, names)
                if round_:  # the first round warms the disk cache and the bytecode
                    samples[fresh].append(waited)
        cached = statistics.median(samples[True])
        listed = statistics.median(samples[False])
        ratio = listed / cached
        verdict = "unchanged within noise" if abs(ratio - 1) <= NOISE else "changed"
        print(
            f"{count} server(s): cached list {cached * 1000:.0f} ms, listed at start "
            f"{listed * 1000:.0f} ms; ratio {ratio:.3f} ({verdict}, {runs} runs)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    anyio.run(main, parser.parse_args().runs)
