"""Checking a model's tool arguments against the tool's JSON Schema before anyone is asked."""

from __future__ import annotations

from typing import Any


def argument_problems(schema: dict[str, Any], arguments: object) -> list[str]:
    """Every way `arguments` break `schema`, as short sentences the model can act on."""
    if not isinstance(arguments, dict):
        return ["arguments must be a JSON object"]
    import jsonschema  # ~40 ms: loaded at the first tool call, not at start-up
    import jsonschema.validators

    try:
        validator_class = jsonschema.validators.validator_for(
            schema, default=jsonschema.Draft202012Validator
        )
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as schema_error:
        return [
            f"the tool's own input schema is invalid ({schema_error.message}); "
            "the call cannot be checked"
        ]
    validator = validator_class(schema)
    problems = []
    for issue in sorted(
        validator.iter_errors(arguments), key=lambda e: [str(part) for part in e.absolute_path]
    ):
        where = "/".join(str(part) for part in issue.absolute_path) or "(arguments)"
        problems.append(f"{where}: {issue.message}")
    return problems
