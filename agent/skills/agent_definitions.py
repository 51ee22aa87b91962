"""Subagent definitions: one Markdown file each, YAML frontmatter (name, description, tools,
model) and a body that is the subagent's instructions (its system prompt).

The shape is Claude Code's `.claude/agents/*.md`, which are read too, so its spellings are
understood: `tools` is a comma-separated string or a YAML list (absent: all the parent's
tools), Claude's tool names map to ours (CLAUDE_TOOLS), `mcp__server__tool` names pass
unchanged, any other name is dropped with a note; `model` absent or `inherit` is the parent's,
and Claude's aliases (sonnet, opus, haiku) name no model we can route, so they are the
parent's too, with a note. `disallowedTools` is honoured (mapped the same way): ignoring it
would give a subagent tools its author meant to withhold.

No I/O here: agent_discovery.py reads each file once and hands its bytes to
`parse_definition`; the definition keeps those bytes' digest and text, which are what trust
decides on and what the subagent is given, never the file read again by name.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent.skills.model import Diagnostic
from agent.skills.names import name_problems, skill_key
from agent.skills.parse import describe_value, not_utf8, read_frontmatter

DefinitionScope = Literal["user", "project"]
# The kinds the engine has built in: a definition cannot take their names (the model would
# get another's instructions under a name the person knows as read-only).
BUILTIN_KINDS = ("explore", "general")
# Claude Code's tool names and ours. Task (Agent in newer versions) and TodoWrite are the
# tools the subagents and task list add.
CLAUDE_TOOLS = {
    "Read": "read_file",
    "Grep": "search_files",
    "Glob": "list_files",
    "LS": "list_files",
    "Bash": "run_command",
    "Edit": "edit_file",
    "MultiEdit": "edit_file",
    "Write": "write_file",
    "Task": "delegate",
    "Agent": "delegate",
    "TodoWrite": "update_todos",
}
OUR_TOOLS = frozenset(
    {
        "read_file",
        "list_files",
        "search_files",
        "search_tools",
        "write_file",
        "edit_file",
        "run_command",
        "activate_skill",
        "read_skill_resource",
        "delegate",
        "update_todos",
    }
)
MCP_PREFIX = "mcp__"
CLAUDE_MODEL_ALIASES = frozenset({"sonnet", "opus", "haiku"})
# Fields Claude Code knows that we do not use: ignored without a note (each would only make a
# subagent stricter or is about Claude's own screen).
CLAUDE_ONLY_KEYS = frozenset({"color", "permissionMode", "skills", "hooks", "mcpServers", "memory"})
KNOWN_KEYS = ("name", "description", "tools", "disallowedTools", "model")
# One entry of a tools list: a name, with Claude's `(pattern)` when it has one.
_TOOL_ENTRY = re.compile(r"[^,\s()]+(?:\([^)]*\))?")

_Warn = Callable[[str], None]


@dataclass(frozen=True)
class SubagentDefinition:
    """One usable definition, as read once from its file.

    `tools`: our tool names the subagent may use (None: all of its parent's); the engine offers
    only those its parent has. `denied_tools`: never offered, whatever `tools` says. `model`:
    a model name (None: the parent's). `instructions`: the body, the subagent's system prompt.
    `sha256` is of the bytes read, which are the bytes `instructions` came from: trust binds
    them. `label` says where it is as the person reads it (`./.agents/agents/x.md`,
    `~/.claude/agents/x.md`); for a project definition it is also what trust is recorded by.
    """

    name: str
    description: str
    tools: tuple[str, ...] | None
    model: str | None
    instructions: str
    scope: DefinitionScope
    label: str
    path: Path
    sha256: str
    denied_tools: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()  # warnings only: it is used anyway
    shadows: tuple[str, ...] = ()  # labels of the definitions of its name it hides

    @property
    def key(self) -> str:
        """The name as names are compared (NFKC, case-folded)."""
        return skill_key(self.name)

    def allows(self, tool: str) -> bool:
        """Whether the subagent may be offered `tool` (one of its parent's tools)."""
        if tool in self.denied_tools:
            return False
        return self.tools is None or tool in self.tools


@dataclass(frozen=True)
class SkippedDefinition:
    """A definition file (or folder) that is not used, and why (errors, and warnings seen)."""

    path: Path
    scope: DefinitionScope
    label: str
    diagnostics: tuple[Diagnostic, ...]

    def note(self) -> str:
        reasons = "; ".join(d.message for d in self.diagnostics if d.level == "error")
        return f"subagent definition {self.label} skipped: {reasons}"


@dataclass
class _Fields:
    """What the checks make of the frontmatter, before the definition is built."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def warn(self, message: str) -> None:
        self.diagnostics.append(Diagnostic("warning", message))

    def error(self, message: str) -> None:
        self.diagnostics.append(Diagnostic("error", message))


def parse_definition(
    data: bytes, path: Path, label: str, scope: DefinitionScope
) -> SubagentDefinition | SkippedDefinition:
    """Check the bytes read from the definition file at `path`."""
    checks = _Fields()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        checks.error(not_utf8(data, error))
        return SkippedDefinition(path, scope, label, tuple(checks.diagnostics))
    split = read_frontmatter(text, checks.diagnostics)
    if isinstance(split, Diagnostic):
        return SkippedDefinition(path, scope, label, (*checks.diagnostics, split))
    frontmatter, body = split
    name = _name(frontmatter, path, checks)
    description = _description(frontmatter, checks)
    tools = _tools(frontmatter, "tools", checks.warn)
    denied = _tools(frontmatter, "disallowedTools", checks.warn) or ()
    model = _model(frontmatter, checks.warn)
    for key in frontmatter:
        if key not in KNOWN_KEYS and key not in CLAUDE_ONLY_KEYS:
            checks.warn(f"unknown field {key!r}; ignored (fields: {', '.join(KNOWN_KEYS)})")
    if not body.strip():
        checks.warn("the body is empty: after the frontmatter, write the subagent's instructions")
    if any(d.level == "error" for d in checks.diagnostics):
        return SkippedDefinition(path, scope, label, tuple(checks.diagnostics))
    return SubagentDefinition(
        name=name,
        description=description,
        tools=tools,
        model=model,
        instructions=body,
        scope=scope,
        label=label,
        path=path,
        sha256=hashlib.sha256(data).hexdigest(),
        denied_tools=denied,
        diagnostics=tuple(checks.diagnostics),
    )


def _name(frontmatter: dict[str, Any], path: Path, checks: _Fields) -> str:
    """The `name` field (else the file's name without .md, with a warning), checked as skill
    names are; a built-in kind's name is refused."""
    stem = unicodedata.normalize("NFKC", path.stem)
    value = frontmatter.get("name")
    if isinstance(value, str) and value.strip():
        name = unicodedata.normalize("NFKC", value.strip())
    else:
        what = "is missing" if value is None else f"must be text, not {describe_value(value)}"
        if isinstance(value, str):
            what = "is empty"
        checks.warn(f"name {what}; using the file's name {stem!r}: add name: {stem}")
        name = stem
    for problem in name_problems(name):
        checks.error(f"name {name!r}: {problem}: rename it")
    if skill_key(name) in BUILTIN_KINDS:
        checks.error(
            f"name {name!r} is a built-in kind of subagent and cannot be redefined: "
            "give the definition another name"
        )
    return name


def _description(frontmatter: dict[str, Any], checks: _Fields) -> str:
    value = frontmatter.get("description")
    advice = "say what the subagent does and when to hand it a task"
    if value is None:
        missing = "empty" if "description" in frontmatter else "missing"
        checks.error(f"description is {missing}: {advice}")
    elif not isinstance(value, str):
        checks.error(f"description must be text, not {describe_value(value)}: {advice}")
    elif not value.strip():
        checks.error(f"description is empty: {advice}")
    else:
        return value.strip()
    return ""


def _tools(frontmatter: dict[str, Any], key: str, warn: _Warn) -> tuple[str, ...] | None:
    """Our names for the tools the field lists (None: absent or null; an empty line or list
    is no tools)."""
    value = frontmatter.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        entries = _TOOL_ENTRY.findall(value)
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        entries = [entry for item in value for entry in _TOOL_ENTRY.findall(item)]
    else:
        warn(
            f"{key} must be a comma-separated line or a list of tool names, not "
            f"{describe_value(value)}; ignored"
        )
        return None
    mapped: list[str] = []
    for entry in entries:
        ours = map_tool_name(entry)
        if isinstance(ours, str):
            if ours not in mapped:
                mapped.append(ours)
        else:
            warn(f"{key}: {entry!r} dropped: {ours[0]}")
    return tuple(mapped)


def map_tool_name(name: str) -> str | tuple[str]:
    """Our name for a tool a definition lists, or (why it is dropped,)."""
    if name.startswith(MCP_PREFIX):
        return name
    if name in OUR_TOOLS:
        return name
    if name in CLAUDE_TOOLS:
        return CLAUDE_TOOLS[name]
    base = name.split("(", 1)[0]
    if base != name and (base in CLAUDE_TOOLS or base in OUR_TOOLS):
        return (
            "a tool with a pattern in parentheses is not supported here (its calls are asked "
            f"like any other); list {base} to give the subagent the whole tool",
        )
    return (f"no tool of that name here (tools: {', '.join(sorted(OUR_TOOLS))}, mcp__*)",)


def _model(frontmatter: dict[str, Any], warn: _Warn) -> str | None:
    value = frontmatter.get("model")
    if value is None:
        return None
    if not isinstance(value, str):
        warn(f"model must be a model name, not {describe_value(value)}; the parent's is used")
        return None
    name = value.strip()
    if not name or name == "inherit":
        return None
    if name in CLAUDE_MODEL_ALIASES:
        warn(
            f"model {name!r} is Claude Code's alias, which names no model here; the parent's "
            "model is used (name a model such as anthropic/claude-sonnet-4-5 to choose one)"
        )
        return None
    return name
