"""Checking a model's tool arguments against the tool's JSON Schema before anyone is asked.

A schema comes from a server (or a project's document), so checking it must never reach out:
jsonschema's default registry fetches a remote `$ref` with urlopen (no timeout) and reads
`file://` refs, which lets a schema make us GET any URL, hang the event loop, or show a local
file's content to the model. Our registry refuses every retrieval; `#/...` refs and `$defs`
inside the schema keep working because they resolve within the schema itself.

A schema's `pattern` is a regular expression from the server, and the value it is checked
against may come from the server too (a `default`) or from the model: with the standard `re`
engine (no time limit, holds the GIL) one value of 35 characters froze the whole event loop for
minutes. So every pattern check of ours runs with the `regex` engine under a time limit and one
budget per validation; a pattern that cannot be checked in time is a problem, not a hang.
"""

from __future__ import annotations

import contextvars
import re
import sys
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

UNRESOLVABLE_REF = (
    "the tool's input schema has a $ref it cannot resolve within itself ({ref}); nothing "
    "outside a schema is ever fetched, so the call cannot be checked"
)


class RefusedRetrieval(Exception):
    """A schema asked for a document outside itself; we never fetch one."""


def _refuse(uri: str) -> Any:
    raise RefusedRetrieval(uri)


# One validation may check many patterns (an array of 10,000 patterned items): each check gets
# at most PATTERN_SECONDS and all of them together VALIDATION_SECONDS, so no schema holds the
# event loop longer than that.
PATTERN_SECONDS = 0.05
VALIDATION_SECONDS = 0.25
SLOW_PATTERN = "the schema's pattern {pattern} takes too long to check; the value cannot be checked"


@dataclass
class _Budget:
    """The time one validation may spend on patterns; the clock starts at its first check
    (a tool call's result is checked only when it comes, maybe minutes into the call)."""

    seconds: float
    deadline: float | None = None

    def remaining(self) -> float:
        now = time.monotonic()
        if self.deadline is None:
            self.deadline = now + self.seconds
        return self.deadline - now


_budget: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar(
    "pattern_budget", default=None
)
# jsonschema calls `re.search` in pattern, patternProperties and the helpers behind
# additionalProperties and unevaluatedProperties (all drafts). Rather than copy those keywords,
# those modules' `re` becomes a stand-in whose `search` is bounded within `bounded_patterns()`,
# and is plain `re.search` otherwise.
# tests/security/test_schema_pattern_bounds.py checks that no other jsonschema module calls
# `re.search` (or another matcher), so an upgrade cannot slip past the bound.
JSONSCHEMA_PATTERN_MODULES = (
    "jsonschema._keywords",
    "jsonschema._utils",
    "jsonschema._legacy_keywords",
)


class SlowPattern(RuntimeError):  # the SDK's refusals of an answer are RuntimeErrors too
    """A schema's pattern could not be checked within the time limit (or `regex` cannot read it)."""

    def __init__(self, pattern: str) -> None:
        shown = pattern if len(pattern) <= 80 else pattern[:80] + "..."
        super().__init__(SLOW_PATTERN.format(pattern=repr(shown)))


def _bounded_search(pattern: Any, string: Any, flags: int = 0) -> Any:
    budget = _budget.get()
    if budget is None:
        return re.search(pattern, string, flags)
    import regex  # type: ignore[import-untyped]  # has a timeout (and guards re lacks)

    remaining = budget.remaining()
    if remaining <= 0:
        raise SlowPattern(str(pattern))
    try:
        return regex.search(pattern, string, flags, timeout=min(PATTERN_SECONDS, remaining))
    except (TimeoutError, regex.error) as error:
        raise SlowPattern(str(pattern)) from error


def _bounded_re() -> types.ModuleType:
    """A stand-in for `re` whose `search` is bounded (everything else is `re`'s own)."""
    stand_in = types.ModuleType("re", "re with a bounded search (agent/tools/validation.py)")
    stand_in.__dict__.update({k: v for k, v in vars(re).items() if not k.startswith("__")})
    stand_in.search = _bounded_search  # type: ignore[attr-defined]
    return stand_in


def _bound_jsonschema_patterns() -> None:
    import importlib

    stand_in: types.ModuleType | None = None
    for name in JSONSCHEMA_PATTERN_MODULES:
        module = sys.modules.get(name) or importlib.import_module(name)
        if getattr(module, "re", None) is re:
            stand_in = stand_in or _bounded_re()
            module.re = stand_in  # type: ignore[attr-defined]


@contextmanager
def bounded_patterns(seconds: float = VALIDATION_SECONDS) -> Iterator[None]:
    """Within this block jsonschema's pattern checks (ours, and the mcp SDK's check of a
    result against its output schema) share a budget of `seconds`, raising SlowPattern when it
    runs out or one check takes longer than PATTERN_SECONDS."""
    _bound_jsonschema_patterns()
    token = _budget.set(_Budget(seconds))
    try:
        yield
    finally:
        _budget.reset(token)


def schema_validator(schema: dict[str, Any]) -> Any:
    """A validator for `schema` whose references can never leave the schema.

    Raises jsonschema.SchemaError when the schema itself is invalid."""
    import jsonschema  # ~40 ms: loaded at the first tool call, not at start-up
    import jsonschema.validators
    import referencing

    validator_class = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )
    validator_class.check_schema(schema)
    registry: Any = referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg]
    return validator_class(schema, registry=registry)


def schema_problem(schema: dict[str, Any]) -> tuple[list[str | int], str] | None:
    """Where and why `schema` is not valid JSON Schema (None when it is)."""
    import jsonschema

    try:
        schema_validator(schema)
    except jsonschema.SchemaError as error:
        return list(error.absolute_path), error.message
    return None


def argument_problems(schema: dict[str, Any], arguments: object) -> list[str]:
    """Every way `arguments` break `schema`, as short sentences the model can act on."""
    if not isinstance(arguments, dict):
        return ["arguments must be a JSON object"]
    import jsonschema
    import referencing.exceptions

    try:
        validator = schema_validator(schema)
    except jsonschema.SchemaError as schema_error:
        return [
            f"the tool's own input schema is invalid ({schema_error.message}); "
            "the call cannot be checked"
        ]
    try:
        with bounded_patterns():
            issues = sorted(
                validator.iter_errors(arguments),
                key=lambda e: [str(part) for part in e.absolute_path],
            )
    except SlowPattern as slow:
        return [str(slow)]
    except referencing.exceptions.Unresolvable as unresolvable:
        ref = getattr(unresolvable, "ref", None) or str(unresolvable)
        return [UNRESOLVABLE_REF.format(ref=str(ref)[:200])]
    except RecursionError:  # {"$ref": "#"} refers to itself without end
        return ["the tool's input schema refers to itself without end; the call cannot be checked"]
    problems = []
    for issue in issues:
        where = "/".join(str(part) for part in issue.absolute_path) or "(arguments)"
        problems.append(f"{where}: {issue.message}")
    return problems
