"""Checking a model's tool arguments against the tool's JSON Schema before anyone is asked.

A schema comes from a server (or a project's document), so checking it must never reach out:
jsonschema's default registry fetches a remote `$ref` with urlopen (no timeout) and reads
`file://` refs, which lets a schema make us GET any URL, hang the event loop, or show a local
file's content to the model. Our registry refuses every retrieval; `#/...` refs and `$defs`
inside the schema keep working because they resolve within the schema itself.
"""

from __future__ import annotations

from typing import Any

UNRESOLVABLE_REF = (
    "the tool's input schema has a $ref it cannot resolve within itself ({ref}); nothing "
    "outside a schema is ever fetched, so the call cannot be checked"
)


class RefusedRetrieval(Exception):
    """A schema asked for a document outside itself; we never fetch one."""


def _refuse(uri: str) -> Any:
    raise RefusedRetrieval(uri)


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
        issues = sorted(
            validator.iter_errors(arguments), key=lambda e: [str(part) for part in e.absolute_path]
        )
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
