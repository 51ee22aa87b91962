"""The kinds of subagent the model can start with `delegate`: the two built in (`explore`,
read-only; `general`, the chat's tools) and those the person's trusted definition files add
(agent.skills.agent_definitions), and which of the chat's tools each may use.

Which tools a read-only kind gets is decided by mechanism: a built-in tool that vouches it
changes nothing (`ToolSpec.changes_nothing`), and the MCP tools of the servers the task names,
each call still asked. Never by a list of names that a new tool would slip past.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from agent.tools.base import Tool, Toolset

EXPLORE = "explore"
GENERAL = "general"
# The chat is depth 0, its subagents 1, theirs 2; a subagent at the deepest level has no
# `delegate` tool, so it cannot start another.
MAX_DEPTH = 2


class AgentDefinition(Protocol):
    """What a definition file gives (agent.skills.agent_definitions), as the engine reads it."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def tools(self) -> tuple[str, ...] | None: ...  # our tool names; None: the chat's tools
    @property
    def denied_tools(self) -> tuple[str, ...]: ...  # never offered, whatever `tools` says
    @property
    def model(self) -> str | None: ...  # None: the chat's model
    @property
    def instructions(self) -> str: ...


@dataclass(frozen=True)
class SubagentKind:
    """One kind the model may choose: its description in `delegate`'s schema, the tools its
    subagents may use, its model and the instructions it adds to their system prompt."""

    name: str
    description: str
    read_only: bool = False  # only tools that change nothing, and the named servers' tools
    tools: frozenset[str] | None = None  # the only tool names allowed; None: every one
    denied: frozenset[str] = frozenset()  # never allowed (a definition's disallowedTools)
    model: str | None = None
    instructions: str = ""
    source: str = "built-in"

    def allows(self, tool: Tool, servers: frozenset[str]) -> bool:
        """Whether a subagent of this kind may use `tool`, given the servers its task named."""
        spec = tool.spec
        if self.read_only:
            return spec.changes_nothing or (spec.server is not None and spec.server in servers)
        if spec.name in self.denied:
            return False
        return self.tools is None or spec.name in self.tools

    def may_delegate(self, depth: int) -> bool:
        """Whether a subagent of this kind at `depth` gets a `delegate` tool of its own."""
        if self.read_only or depth >= MAX_DEPTH or "delegate" in self.denied:
            return False
        return self.tools is None or "delegate" in self.tools


BUILT_IN = (
    SubagentKind(
        EXPLORE,
        "read-only research: reads, lists and searches the project's files (and the MCP "
        "servers the task names, each call asked); answers with what it found. Use it to look "
        "through many files without filling your own context.",
        read_only=True,
    ),
    SubagentKind(
        GENERAL,
        "a task with your tools (every change and command still asks the person); answers "
        "with a summary of what it did.",
    ),
)


def kinds_from(definitions: Sequence[AgentDefinition]) -> dict[str, SubagentKind]:
    """The built-in kinds, then the definitions' (a definition cannot take a built-in
    kind's name: the definitions' discovery leaves such a file out, saying so)."""
    kinds = {kind.name: kind for kind in BUILT_IN}
    for definition in definitions:
        if definition.name in kinds:
            continue
        kinds[definition.name] = SubagentKind(
            definition.name,
            definition.description,
            tools=None if definition.tools is None else frozenset(definition.tools),
            denied=frozenset(definition.denied_tools),
            model=definition.model,
            instructions=definition.instructions,
            source="definition",
        )
    return kinds


@dataclass(frozen=True)
class AllowedTools:
    """A toolset seen through a subagent kind: only the tools its subagents may use."""

    inner: Toolset
    allows: Callable[[Tool], bool]

    def tools(self) -> Sequence[Tool]:
        return [tool for tool in self.inner.tools() if self.allows(tool)]
