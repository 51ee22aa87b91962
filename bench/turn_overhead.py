"""The engine's own time per turn (everything but model and tool time) with 1 000 MCP tools
and 200 skills in the request.

The model is an instant scripted ChatModel (our seam), so what is measured is composing the
request: loading the MCP configuration, building 1 000 tool specs, the skills catalog (over
its budget, so it is shortened), combining toolsets, the system prompt, the history.
Baseline in the same run: the same turn with no tools and no skills. Goal: under 5 ms.

    .venv/bin/python bench/turn_overhead.py [turns]
"""

from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import replace
from pathlib import Path

import anyio
from _common import LIMITS, REPO, median_ms, trusted_store

from agent.chat.approval import DenyAll
from agent.chat.conversation import Conversation
from agent.chat.prompt import SystemPrompt
from agent.mcp.config.definitions import fingerprint
from agent.mcp.runtime import McpRuntime
from agent.mcp.store import CachedTool
from agent.mcp.toolset import McpToolset
from agent.messages import Completion, Usage
from agent.skills.model import Skill
from agent.skills.tools import SkillSession
from agent.tools.builtin import BuiltinToolset

TURNS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
SERVERS, TOOLS_PER_SERVER = 10, 100


class InstantModel:
    """Answers at once, without tools, so only the engine's work is timed."""

    name = "instant"

    async def stream(self, messages, tools):  # type: ignore[no-untyped-def]
        self.tool_count = len(tools)
        yield Completion("ok", (), Usage(10, 1))


def make_skills(root: Path) -> list[Skill]:
    """200 skills on disk, as discovery would find them."""
    skills = []
    for i in range(200):
        folder = root / f"skill-{i:03d}"
        folder.mkdir(parents=True)
        text = f"---\nname: skill-{i:03d}\ndescription: {'Does a useful thing. ' * 6}\n---\nBody.\n"
        (folder / "SKILL.md").write_text(text)
        skills.append(
            Skill(
                name=f"skill-{i:03d}",
                description="Does a useful thing. " * 6,
                scope="user",
                path=folder / "SKILL.md",
                body="Body.\n",
                content_sha256=hashlib.sha256(text.encode()).hexdigest(),
            )
        )
    return skills


def schema(index: int) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": f"what to look for ({index})"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        },
        "required": ["query"],
    }


async def per_turn_ms(conversation: Conversation) -> list[float]:
    samples = []
    for i in range(TURNS):
        conversation.history.reset()  # every turn composes the same request size
        started = time.perf_counter()
        async for _ in conversation.turn(f"question {i}"):
            pass
        samples.append(time.perf_counter() - started)
    return samples


async def main() -> None:
    names = [f"server-{i}" for i in range(SERVERS)]
    store, home = trusted_store(names)
    for name in names:
        tools = tuple(
            CachedTool(f"tool_{j}", f"Tool {j} of {name}: does a thing.", schema(j))
            for j in range(TOOLS_PER_SERVER)
        )
        fp = fingerprint(store.load().find(name))
        store.update_state(
            name,
            fp,
            lambda s, tools=tools: replace(
                s, enabled=True, cached_tools=tools, enabled_tools=tuple(t.name for t in tools)
            ),
        )
    runtime = McpRuntime(store, LIMITS, logs_dir=home, project_dir=REPO)
    skills = SkillSession(make_skills(home / "skills"), catalog_budget=lambda: 20_000)
    prompt = SystemPrompt(REPO, sections=[skills.prompt_sections]).render
    model = InstantModel()
    with_tools = Conversation(
        model, [BuiltinToolset(REPO), skills, McpToolset(runtime)], DenyAll(), prompt
    )
    without = Conversation(InstantModel(), [], DenyAll(), prompt)
    await per_turn_ms(with_tools)  # warm-up: first store load, imports
    bare = median_ms(await per_turn_ms(without))
    full = median_ms(await per_turn_ms(with_tools))
    print(f"engine time per turn, median of {TURNS} turns")
    print(f"  no tools:                  {bare:.3f} ms")
    print(f"  {model.tool_count} tools (1 000 MCP), 200 skills: {full:.3f} ms (goal < 5 ms)")
    print(f"  ratio: {full / bare:.1f}")


if __name__ == "__main__":
    anyio.run(main)
