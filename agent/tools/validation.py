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

The pattern is not the only cost a server controls (second review, G1): a `$ref` chain that
doubles at each level (1.9 kB, 2**30 visits), `uniqueItems` over 8000 objects (jsonschema's
O(n**2) fallback) and the `format: regex` compile of `check_schema` (the standard `re`, seconds
on a 32 kB pattern). So within the budget every keyword call checks the deadline, `uniqueItems`
is a linear check, and `format: regex` compiles with `regex`, all before the deadline.
"""

from __future__ import annotations

import contextvars
import importlib
import json
import re
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
# check_schema walks the schema against its meta-schema: linear in the schema's size, but an
# ordinary 300-property schema already takes 0.13 s (measured), and the listing gate allows
# 64 KiB. So it gets its own budget, apart from checking the value.
SCHEMA_CHECK_SECONDS = 0.5
SLOW_SCHEMA = "the schema takes too long to check{where}; the value cannot be checked"


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

    def check(self) -> None:
        """Raise SlowSchema once the deadline has passed."""
        if self.remaining() <= 0:
            raise SlowSchema()


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
# `format: regex` (check_schema's meta-schema) compiles with `re.compile` here.
JSONSCHEMA_COMPILE_MODULE = "jsonschema._format"


class SlowSchema(RuntimeError):  # the SDK's refusals of an answer are RuntimeErrors too
    """A schema could not be checked within the time limit (or `regex` cannot read a pattern)."""

    def __init__(self, pattern: str | None = None) -> None:
        where = ""
        if pattern is not None:
            shown = pattern if len(pattern) <= 80 else pattern[:80] + "..."
            where = f" (at its pattern {shown!r})"
        super().__init__(SLOW_SCHEMA.format(where=where))


SlowPattern = SlowSchema  # the name of the first fix, kept for its callers


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


def _bounded_compile(pattern: Any, flags: int = 0) -> Any:
    budget = _budget.get()
    if budget is None:
        return re.compile(pattern, flags)
    import regex

    budget.check()
    from agent.tools.schema_limits import regex_only_syntax

    # Only what `re` reads is a pattern, as before: its parser is fast (13 ms for 32 kB), its
    # compiler is the slow part. Syntax `re` reads as literal text but `regex` gives a meaning
    # (fuzzy `{e<=3}`) is refused too. jsonschema's format check catches re.error: the schema
    # is invalid, not slow.
    re_parser: Any = importlib.import_module("re._parser")  # no stubs; in the standard library
    re_parser.parse(pattern, flags)
    if isinstance(pattern, str) and regex_only_syntax(pattern):
        raise re.error(f"uses syntax only the regex module reads ({regex_only_syntax(pattern)})")
    try:
        compiled = regex.compile(pattern, flags)
    except regex.error as error:
        raise re.error(str(error)) from error
    budget.check()
    return compiled


def _bounded_re() -> types.ModuleType:
    """A stand-in for `re` whose `search` and `compile` are bounded (the rest is `re`'s own)."""
    stand_in = types.ModuleType("re", "re with a bounded search (agent/tools/validation.py)")
    stand_in.__dict__.update({k: v for k, v in vars(re).items() if not k.startswith("__")})
    stand_in.search = _bounded_search  # type: ignore[attr-defined]
    stand_in.compile = _bounded_compile  # type: ignore[attr-defined]
    return stand_in


def _canonical(value: Any) -> Any:
    # jsonschema's equality: 1 == 1.0, but true != 1 (bool is checked before int).
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {str(key): _canonical(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    return value


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's uniqueItems in linear time: each item's canonical JSON goes into a set."""
    if not unique or not validator.is_type(instance, "array"):
        return
    from jsonschema.exceptions import ValidationError

    budget = _budget.get()
    seen: set[str] = set()
    for index, item in enumerate(instance):
        if budget is not None and index % 256 == 0:
            budget.check()
        key = json.dumps(_canonical(item), sort_keys=True, default=repr)
        if key in seen:
            yield ValidationError(f"{instance!r} has non-unique elements")
            return
        seen.add(key)


def _bounded_keyword(keyword: Any) -> Any:
    """`keyword` checking the deadline first, while a budget is set (plain otherwise)."""

    def bounded(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        budget = _budget.get()
        if budget is None:
            return keyword(validator, value, instance, schema)
        budget.check()
        return keyword(validator, value, instance, schema)

    bounded.agent_bounded = True  # type: ignore[attr-defined]
    return bounded


def _bound_validator_class(validator_class: Any) -> None:
    """Wrap every keyword of `validator_class` (once): each call checks the budget's deadline."""
    table = validator_class.VALIDATORS
    for name, keyword in list(table.items()):
        if getattr(keyword, "agent_bounded", False):
            continue
        table[name] = _bounded_keyword(_unique_items if name == "uniqueItems" else keyword)


def _bound_jsonschema_patterns() -> None:
    import jsonschema

    stand_in: types.ModuleType | None = None
    for name in (*JSONSCHEMA_PATTERN_MODULES, JSONSCHEMA_COMPILE_MODULE):
        # import_module, never sys.modules: a module another thread is still importing is
        # waited for, so its `re` is there to be replaced (a half-imported one has none yet).
        module = importlib.import_module(name)
        if getattr(module, "re", None) is re:
            stand_in = stand_in or _bounded_re()
            module.re = stand_in  # type: ignore[attr-defined]
    # The SDK checks a result with jsonschema.validate, which picks one of these classes.
    for validator_class in (
        jsonschema.Draft3Validator,
        jsonschema.Draft4Validator,
        jsonschema.Draft6Validator,
        jsonschema.Draft7Validator,
        jsonschema.Draft201909Validator,
        jsonschema.Draft202012Validator,
    ):
        _bound_validator_class(validator_class)


@contextmanager
def bounded_patterns(seconds: float = VALIDATION_SECONDS) -> Iterator[None]:
    """Within this block jsonschema's checks (ours, and the mcp SDK's check of a result against
    its output schema) share a budget of `seconds`: every keyword, pattern and `format: regex`
    compile, raising SlowSchema when it runs out or one search takes longer than PATTERN_SECONDS."""
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
    _bound_validator_class(validator_class)
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
        with bounded_patterns(SCHEMA_CHECK_SECONDS):  # `format: regex` compiles in it too
            validator = schema_validator(schema)
        with bounded_patterns():
            issues = sorted(
                validator.iter_errors(arguments),
                key=lambda e: [str(part) for part in e.absolute_path],
            )
    except jsonschema.SchemaError as schema_error:
        return [
            f"the tool's own input schema is invalid ({schema_error.message}); "
            "the call cannot be checked"
        ]
    except SlowSchema as slow:
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
