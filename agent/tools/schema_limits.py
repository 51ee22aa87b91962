"""How large a server's tool schema may be before the tool is offered at all.

A tool's schemas go to the model with every request, and litellm compiles every `pattern` of
them with the standard `re` on the event loop (a 32 kB pattern: 20 s a turn); checking a call
walks them too. A bound per validation (agent/tools/validation.py) stops a walk; this measure
keeps such schemas away from code we do not own, before anything runs: a tool over a limit is
withheld, with the reason. Limits are far above any ordinary tool's schema.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agent.text import plural

MAX_SCHEMA_BYTES = 64 * 1024
MAX_REFS = 64
MAX_DEPTH = 32
MAX_PATTERN_CHARS = 512

# Syntax the `regex` module reads but `re` and ECMA-262 (JSON Schema's dialect) read as literal
# text or refuse (second review, G3): fuzzy counts `{e<=3}` `{i}` `{d}` `{s}`, named lists
# `\L<name>`, and the flags V0/V1, r (reverse), p (POSIX), e (enhance), b (best match), f (full
# case folding), w (Unicode word breaks).
_REGEX_ONLY = re.compile(
    r"\{\s*[eids]\s*(?:[<>=]|\}|,)"  # fuzzy constraints
    r"|\\L<"  # named lists
    r"|\(\?[a-zA-Z]*(?:V[01]|[rpebfw])[a-zA-Z0-9]*[):]"  # flag groups with regex-only flags
)


def regex_only_syntax(pattern: str) -> str | None:
    """The first construct of `pattern` only the `regex` module reads, or None."""
    found = _REGEX_ONLY.search(pattern)
    return found.group(0) if found else None


def _walk(node: Any, depth: int, counts: dict[str, Any]) -> None:
    counts["depth"] = max(counts["depth"], depth)
    if depth > MAX_DEPTH:
        return  # measured enough: the tool is withheld anyway
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                counts["refs"] += 1
            if key == "pattern" and isinstance(value, str):
                counts["patterns"].append(value)
            if key == "patternProperties" and isinstance(value, dict):
                counts["patterns"].extend(str(k) for k in value)
            _walk(value, depth + 1, counts)
    elif isinstance(node, list):
        for item in node:
            _walk(item, depth + 1, counts)


def _pattern_problem(patterns: list[str]) -> str | None:
    for pattern in patterns:
        shown = pattern if len(pattern) <= 40 else pattern[:40] + "..."
        if len(pattern) > MAX_PATTERN_CHARS:
            return (
                f"its schema has a pattern of {plural(len(pattern), 'character')} "
                f"(at most {MAX_PATTERN_CHARS})"
            )
        construct = regex_only_syntax(pattern)
        if construct is not None:
            return (
                f"its schema's pattern {shown!r} uses {construct!r}, which JSON Schema's "
                "regular expressions do not have"
            )
    return None


def schema_limit_problem(*schemas: object) -> str | None:
    """Why a tool with these schemas (input, output; None skipped) cannot be offered, or None."""
    present = [schema for schema in schemas if schema is not None]
    size = len(json.dumps(present, ensure_ascii=False, default=str).encode())
    if size > MAX_SCHEMA_BYTES:
        return f"its schema is {size // 1024} KiB (at most {MAX_SCHEMA_BYTES // 1024} KiB)"
    counts: dict[str, Any] = {"refs": 0, "depth": 0, "patterns": []}
    for schema in present:
        _walk(schema, 0, counts)
    if counts["refs"] > MAX_REFS:
        return f"its schema has {counts['refs']} $refs (at most {MAX_REFS})"
    if counts["depth"] > MAX_DEPTH:
        return f"its schema is nested more than {MAX_DEPTH} deep"
    return _pattern_problem(counts["patterns"])


def withheld_reason(tool: str, server: str, problem: str) -> str:
    """The sentence said when tool `tool` of `server` is withheld for `problem`."""
    return f"tool {tool} of MCP server {server} cannot be offered: {problem}"
