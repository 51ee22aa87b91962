"""How much of each request repeats the previous one byte for byte, over a scripted 20-turn
conversation with one skill activated and 50 MCP tools, through the real chat engine
(build_chat, McpHost, a tools_server over stdio, LiteLLMModel to the scripted fake server).

Prints, per request: its turn, the prompt tokens sent (litellm's token counter over the
messages and tools, as for gpt-4o), and the share of the request (tools, then messages, as
JSON) that repeats the previous request's prefix. Goal: at least 95% after the first turn.

    .venv/bin/python bench/prompt_prefix.py [turns]
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import anyio
from _common import REPO  # noqa: F401  (puts the repository on sys.path)

from tests.fake_openai import FakeOpenAI
from tests.prompt_prefix import converse, prefix_shares, prepare, script

TURNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
GOAL = 0.95


def prompt_tokens(body: dict[str, object]) -> int:
    """The request's prompt tokens by litellm's counter (switched on for this count only:
    the app keeps it off, see agent/model.py)."""
    from agent.model import LOADER

    litellm = LOADER.get()
    litellm.disable_token_counter = False
    try:
        return int(
            litellm.token_counter(model="gpt-4o", messages=body["messages"], tools=body["tools"])
        )
    finally:
        litellm.disable_token_counter = True


def turn_of_each_request(answers: list[dict[str, object]]) -> list[int]:
    """Which turn each scripted answer (one per request) belongs to."""
    turns, turn = [], 1
    for answer in answers:
        turns.append(turn)
        if "tool_calls" not in answer:
            turn += 1
    return turns


async def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="agent-bench-prefix-"))
    os.environ["AGENT_HOME"] = str(root / "agent-home")
    os.environ["HOME"] = str(root / "home")  # the user skill; set before the server's trust
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    places = await prepare(root, root / "agent-home")
    messages, answers = script(TURNS)
    with FakeOpenAI(answers) as fake:
        failures = await converse(places, fake.base_url, messages)
        bodies = [request["body"] for request in fake.requests]
    if failures:
        raise SystemExit(f"the conversation failed: {failures}")
    shares = prefix_shares(bodies)
    print(f"{len(bodies)} requests over {TURNS} turns; tools offered: {len(bodies[0]['tools'])}")
    print("request  turn  prompt tokens  repeats previous prefix")
    for number, (turn, body, share) in enumerate(
        zip(turn_of_each_request(answers), bodies, shares, strict=True), start=1
    ):
        shown = "-" if share is None else f"{share:6.1%}"
        print(f"{number:7}  {turn:4}  {prompt_tokens(body):13,}  {shown:>23}")
    later = [s for s, t in zip(shares, turn_of_each_request(answers), strict=True) if t > 1]
    worst = min(s for s in later if s is not None)
    mean = sum(s for s in later if s is not None) / len(later)
    verdict = "meets" if worst >= GOAL else "MISSES"
    print(
        f"after the first turn: lowest {worst:.1%}, mean {mean:.1%} ({verdict} the {GOAL:.0%} goal)"
    )


if __name__ == "__main__":
    anyio.run(main)
