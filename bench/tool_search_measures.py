"""The measures bench/tool_search.py prints, over the listed tools of real servers."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from _common import LIMITS, REPO, median_ms, trusted_store

from agent.chat.approval import DenyAll
from agent.chat.conversation import Conversation
from agent.mcp.config.definitions import fingerprint
from agent.mcp.runtime import McpRuntime
from agent.mcp.store import CachedTool, McpStore
from agent.mcp.toolset import McpToolset
from agent.messages import Completion, Usage
from agent.model import LOADER, table_window
from agent.tools.base import Tool
from agent.tools.builtin import BuiltinToolset
from agent.tools.combined import combine
from agent.tools.deferral import DEFAULT_SHARE, UNKNOWN_WINDOW_TOKENS, ToolDeferral
from agent.tools.search_index import ToolIndex
from tests.fixtures.tool_queries import QUERIES
from tests.fixtures.tool_queries_held_out import HELD_OUT

MODEL = "gpt-4o"
TOKEN_GOAL, ACCURACY_GOAL, TURN_GOAL_MS, SEARCH_GOAL_MS = 0.85, 0.90, 5.0, 20.0
THOUSAND = 1000


def tool_tokens(tools: list[Tool]) -> int:
    """The tokens a request's tool definitions add, by litellm's counter for MODEL."""
    litellm = LOADER.get()
    litellm.disable_token_counter = False
    try:
        messages = [{"role": "user", "content": "hello"}]
        specs = [tool.spec.to_openai() for tool in tools]
        bare = litellm.token_counter(model=MODEL, messages=messages)
        return int(litellm.token_counter(model=MODEL, messages=messages, tools=specs) - bare)
    finally:
        litellm.disable_token_counter = True


def tokens_report(store: McpStore, home: Path) -> dict[str, Tool]:
    """Tool tokens per request with every tool sent and with deferral; returns the deferred."""
    runtime = McpRuntime(store, LIMITS, logs_dir=home, project_dir=REPO)
    every = combine([BuiltinToolset(REPO), McpToolset(runtime)])
    window = table_window(LOADER.get(), MODEL)
    print(f"\n1. tool tokens per request (threshold {DEFAULT_SHARE:.0%} of the window)")
    full = tool_tokens(list(every.values()))
    for label, known in ((MODEL, window), ("a model of unknown window", None)):
        deferral = ToolDeferral(lambda known=known: known, lambda: {})
        plan = deferral.plan(every)
        sent = tool_tokens(list(plan.offered.values()))
        saved = 1 - sent / full
        verdict = "meets" if saved >= TOKEN_GOAL else "MISSES"
        shown = known or UNKNOWN_WINDOW_TOKENS
        print(
            f"  {label} ({shown:,}): all {len(every)} tools {full:,} tokens; deferred "
            f"{len(plan.deferred)}, sent {len(plan.offered)} tools {sent:,} tokens: "
            f"{saved:.1%} fewer ({verdict} the {TOKEN_GOAL:.0%} goal)"
        )
    deferral = ToolDeferral(lambda: window, lambda: {})
    return deferral.plan(every).deferred


def accuracy_report(deferred: dict[str, Tool]) -> None:
    """Top-5 accuracy over the deferred tools: the query set, and the held-out set written
    before the matcher's last tuning (a gain that is only fitting shows as none there)."""
    index = ToolIndex([tool.spec for tool in deferred.values()])
    for label, queries in (("query set", QUERIES), ("held-out set", HELD_OUT)):
        hits, misses = 0, []
        for query, wanted in queries:
            got = [f"{s.server}:{s.original_name}" for s in index.search(query, 5)]
            if set(wanted.split("|")) & set(got):
                hits += 1
            else:
                missed = ", ".join(got) or "nothing"
                misses.append(f"    {query!r}: wanted {wanted}, got {missed}")
        share = hits / len(queries)
        verdict = "meets" if share >= ACCURACY_GOAL else "MISSES"
        print(f"\n2. {label}: {hits}/{len(queries)} with the right tool in the top 5: {share:.1%}")
        print(f"  ({verdict} the {ACCURACY_GOAL:.0%} goal); missed:")
        print("\n".join(misses) or "    none")


class InstantModel:
    """Answers at once, without tools, so only the engine's work is timed."""

    name = "instant"

    async def stream(self, messages: Any, tools: Any) -> Any:
        self.tool_count = len(tools)
        yield Completion("ok", (), Usage(10, 1))


def thousand_tools(found: dict[str, tuple[CachedTool, ...]]) -> tuple[McpStore, Path]:
    """The real tools repeated under more server names until there are 1 000, cached."""
    every = [(server, tool) for server, tools in found.items() for tool in tools]
    groups: dict[str, list[CachedTool]] = {}
    for number in range(THOUSAND):
        server, tool = every[number % len(every)]
        groups.setdefault(f"{server}-{number // len(every)}", []).append(tool)
    store, home = trusted_store(list(groups))
    for name, tools in groups.items():
        fp = fingerprint(store.load().find(name))
        store.update_state(
            name,
            fp,
            lambda s, t=tuple(tools): replace(
                s, enabled=True, cached_tools=t, enabled_tools=tuple(x.name for x in t)
            ),
        )
    return store, home


async def timing_report(found: dict[str, tuple[CachedTool, ...]], turns: int = 200) -> None:
    """Engine time per turn and search time, with 1 000 deferred tools."""
    store, home = thousand_tools(found)
    runtime = McpRuntime(store, LIMITS, logs_dir=home, project_dir=REPO)
    toolsets = [BuiltinToolset(REPO), McpToolset(runtime)]
    deferral = ToolDeferral(lambda: 128_000, lambda: {})
    model = InstantModel()
    deferring = Conversation(model, toolsets, DenyAll(), lambda: "", deferral=deferral)
    plain = Conversation(InstantModel(), toolsets, DenyAll(), lambda: "")
    print(f"\n3. with {THOUSAND} MCP tools (median of {turns} turns / searches)")
    for label, conversation in (("without deferral", plain), ("with deferral", deferring)):
        samples = []
        for number in range(turns + 5):
            conversation.history.reset()
            started = time.perf_counter()
            async for _ in conversation.turn(f"question {number}"):
                pass
            samples.append(time.perf_counter() - started)
        print(f"  engine time per turn {label}: {median_ms(samples[5:]):.3f} ms")
    print(f"  (the request with deferral carried {model.tool_count} tools; goal < 5 ms)")
    _search_times(deferral)


def _search_times(deferral: ToolDeferral) -> None:
    specs = [tool.spec for tool in deferral.plan_now.deferred.values()]
    started = time.perf_counter()
    ToolIndex(specs)  # what the worker thread does once per set of deferred tools
    cold = (time.perf_counter() - started) * 1000
    deferral.find("warm up", 5, 60_000)  # the index the turns above started in their thread
    samples = []
    for query, _wanted in QUERIES * 3:
        started = time.perf_counter()
        deferral.find(query, 5, 60_000)
        samples.append(time.perf_counter() - started)
    worst = max(samples) * 1000
    print(
        f"  search over {len(deferral.plan_now.deferred)} tools: median {median_ms(samples):.3f} "
        f"ms, slowest {worst:.3f} ms (goal < {SEARCH_GOAL_MS:.0f} ms); indexing them "
        f"{cold:.1f} ms, in a worker thread while the first deferring request is answered"
    )
    sizes = [len(json.dumps(t.spec.to_openai())) for t in deferral.plan_now.deferred.values()]
    print(f"  (tool definitions: median {statistics.median(sizes):,.0f} characters)")


def report(store: McpStore, home: Path, found: dict[str, tuple[CachedTool, ...]]) -> None:
    """Print the three measures."""
    import anyio

    deferred = tokens_report(store, home)
    accuracy_report(deferred)
    anyio.run(timing_report, found)
