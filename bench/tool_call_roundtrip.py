"""Median round trip of one tool call: through McpRuntime vs a bare ClientSession.

Both talk to the same kind of server (tests/fixtures/servers/tools_server.py over stdio), in
the same run, alternating rounds so machine noise hits both alike. Goal: ratio <= 1.10.

    .venv/bin/python bench/tool_call_roundtrip.py [calls]
"""

from __future__ import annotations

import sys
import time

import anyio
from _common import TOOLS_SERVER, median_ms, runtime, trusted_store
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
ROUNDS = 4


async def bare_samples(session: ClientSession, count: int) -> list[float]:
    samples = []
    for i in range(count):
        started = time.perf_counter()
        await session.call_tool("echo", {"text": f"ping {i}"})
        samples.append(time.perf_counter() - started)
    return samples


async def main() -> None:
    store, home = trusted_store(["bench"])
    ours: list[float] = []
    bare: list[float] = []
    params = StdioServerParameters(command=TOOLS_SERVER[0], args=TOOLS_SERVER[1:])
    with open(home / "bare.log", "w") as errlog:
        async with (
            runtime(store, home) as rt,
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()  # so call_tool does not list first
            await rt.start("bench", ask_trust=False)
            await rt.list_tools("bench")
            for _ in range(ROUNDS):
                bare.extend(await bare_samples(session, CALLS // ROUNDS))
                for i in range(CALLS // ROUNDS):
                    started = time.perf_counter()
                    await rt.call_tool("bench", "echo", {"text": f"ping {i}"})
                    ours.append(time.perf_counter() - started)
    ratio = median_ms(ours) / median_ms(bare)
    print(f"tool call round trip, median of {len(ours)} calls each")
    print(f"  bare ClientSession: {median_ms(bare):.3f} ms")
    print(f"  McpRuntime:         {median_ms(ours):.3f} ms")
    print(f"  ratio: {ratio:.2f} (goal <= 1.10)")


if __name__ == "__main__":
    anyio.run(main)
