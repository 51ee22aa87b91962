"""`delegate`: the model hands a task to a subagent (agent.chat.subagents) and receives its
answer as the result. It needs no approval (it only asks the model): every call a subagent
makes asks the person like the chat's own. The calls of one answer to it run at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from agent.chat.subagent_kinds import EXPLORE, SubagentKind
from agent.messages import ToolResult
from agent.tools.base import Tool, ToolSpec


class Delegator(Protocol):
    """What runs the subagents (agent.chat.subagents.Subagents)."""

    def kinds(self) -> dict[str, SubagentKind]: ...

    async def run(
        self, kind_name: str, task: str, servers: frozenset[str], depth: int, parent: Any
    ) -> ToolResult: ...


DELEGATE = "delegate"
MAX_TASK_CHARS = 20_000


@dataclass(frozen=True)
class DelegateTool:
    """Start a subagent at `depth` (1: the chat's own), started by `parent` (None: the chat)."""

    subagents: Delegator
    depth: int
    parent: Any = None  # the SubagentRun that started it
    # Plan mode's form (tools/base.PlanModeTool): only read-only `explore` subagents, so it
    # vouches that it changes nothing, and refuses any other kind even if asked.
    explore_only: bool = False

    @property
    def runs_alongside(self) -> bool:
        return True  # several subagents of one answer run at once (tools/base.ConcurrentTool)

    def in_plan_mode(self) -> DelegateTool:
        return replace(self, explore_only=True)

    @property
    def spec(self) -> ToolSpec:
        kinds = self.subagents.kinds()
        if self.explore_only:
            kinds = {EXPLORE: kinds[EXPLORE]}
        listed = "\n".join(f"- {name}: {kind.description}" for name, kind in kinds.items())
        return ToolSpec(
            name=DELEGATE,
            description=(
                "Hand a task to a subagent: a conversation of its own with a fresh context "
                "and its own tools, whose final answer is this tool's result (you never see "
                "what it read). Give it everything it needs in `task`: it does not see this "
                "conversation. Several calls in one answer run at once. Kinds:\n" + listed
            ),
            parameters={
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": list(kinds)},
                    "task": {
                        "type": "string",
                        "description": "the whole task, as its first message",
                        "maxLength": MAX_TASK_CHARS,
                    },
                    "servers": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "for explore: the MCP servers whose tools it may call",
                    },
                },
                "required": ["kind", "task"],
                "additionalProperties": False,
            },
            requires_approval=False,
            source="built-in",
            changes_nothing=self.explore_only,
        )

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        if self.explore_only and arguments.get("kind") != EXPLORE:
            return ToolResult("in plan mode only explore subagents can be started", True)
        servers = frozenset(str(name) for name in arguments.get("servers") or ())
        return await self.subagents.run(
            str(arguments["kind"]), str(arguments["task"]), servers, self.depth, self.parent
        )


@dataclass(frozen=True)
class DelegateToolset:
    """Offers `delegate` (the chat's, or a subagent's whose kind and depth allow it)."""

    subagents: Delegator
    depth: int
    parent: Any = None

    def tools(self) -> Sequence[Tool]:
        return [DelegateTool(self.subagents, self.depth, self.parent)]
