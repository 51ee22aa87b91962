"""Masking a server's secrets in everything it says, once, where its answers enter our code.

The connection passes every answer (lists, results, reads, prompts, completions), its
handshake and each form through here, so the model's request, mcp-servers.json, the CLI, the
terminal and the console all get the same masked text. Text is masked wherever the server
wrote it; protocol fields (`type`, base64 `data` and `blob`, the protocol version, the
cursors we send back) stay as they are, so a secret cannot change what a message is. A media
type (`mimeType`) that carries a secret becomes application/octet-stream, a well-known one
(text/plain, image/png...) is kept whatever the secrets: the notes quote it, never a secret.

A name we must send back as it was cannot be masked: a tool's name or its schema's property
names (a masked one would call nothing), a form's field names (the answer would name another
field), or a schema's structure (a `pattern` or `$ref` that masking would change). Such a tool
is withheld and such a form declined, with a sentence saying why. Only a schema's words for
people and its example data (title, description, default, examples, enum, const) are masked.
The rules on plain JSON are client/json_redaction.py's; this module applies them to the SDK's types.

The raw traffic a person debugging sees (`--trace`, the console's log, `agent mcp send`) is
masked by the same rule, on each message's JSON text, so it shows nothing this does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import mcp_types as types

from agent.mcp.client.json_redaction import (
    FORM_PROBLEM,
    INPUT_PROBLEM,
    NAME_PROBLEM,
    OUTPUT_PROBLEM,
    URL_PROBLEM,
    UnmaskableError,
    checked_schema,
    redact_json,
)
from agent.mcp.client.result_redaction import redact_result
from agent.redaction import Redactor

T = TypeVar("T")


@dataclass(frozen=True)
class WithheldTool:
    """A listed tool that is not offered: its name (masked) and why."""

    name: str
    problem: str


def redact_answer(answer: T, redactor: Redactor) -> T:
    """`answer` (any result the SDK gave us) with every secret masked where text is.

    A tools/list answer goes through `redact_tools` instead (it may withhold tools). Raises
    ValueError when the masked answer is no longer valid MCP (the caller drops it)."""
    if not redactor or not isinstance(answer, types.Result):
        return answer
    if isinstance(answer, types.CallToolResult):
        return redact_result(answer, redactor)  # type: ignore[return-value]
    if isinstance(answer, types.ListToolsResult):
        masked, _withheld = redact_tools(answer, redactor)
        return masked  # type: ignore[return-value]
    data = answer.model_dump(mode="json", by_alias=True, exclude_unset=True)
    masked_data = redact_json(data, redactor)
    if masked_data == data:
        return answer
    return type(answer).model_validate(masked_data)


def redact_tools(
    listed: types.ListToolsResult, redactor: Redactor
) -> tuple[types.ListToolsResult, list[WithheldTool]]:
    """The listed tools masked, and the tools withheld because a name or schema structure
    carries a secret."""
    if not redactor:
        return listed, []
    kept: list[types.Tool] = []
    withheld: list[WithheldTool] = []
    for tool in listed.tools:
        try:
            kept.append(_redact_tool(tool, redactor))
        except UnmaskableError as error:
            withheld.append(WithheldTool(redactor.redact(tool.name), str(error)))
    rest = listed.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude={"tools"})
    masked = types.ListToolsResult.model_validate({**redact_json(rest, redactor), "tools": []})
    return masked.model_copy(update={"tools": kept}), withheld


def redact_form(
    params: types.ElicitRequestFormParams, redactor: Redactor
) -> types.ElicitRequestFormParams:
    """A form's message and words masked; UnmaskableError when its field names or schema
    structure carry a secret."""
    if not redactor:
        return params
    data = params.model_dump(mode="json", by_alias=True, exclude_unset=True)
    schema = data.pop("requestedSchema", None)
    masked = redact_json(data, redactor)
    if schema is not None:
        masked["requestedSchema"] = checked_schema(schema, redactor, FORM_PROBLEM)
    return types.ElicitRequestFormParams.model_validate(masked)


def redact_url_elicitation(
    params: types.ElicitRequestURLParams, redactor: Redactor
) -> types.ElicitRequestURLParams:
    """A web page request's message masked; UnmaskableError when its URL (or id) carries a
    secret, since a masked URL leads somewhere else."""
    if not redactor:
        return params
    if redactor.redact(params.url) != params.url:
        raise UnmaskableError(URL_PROBLEM)
    if params.elicitation_id is not None and redactor.redact(params.elicitation_id) != (
        params.elicitation_id
    ):
        raise UnmaskableError(URL_PROBLEM)
    return params.model_copy(update={"message": redactor.redact(params.message)})


def _redact_tool(tool: types.Tool, redactor: Redactor) -> types.Tool:
    if redactor.redact(tool.name) != tool.name:
        raise UnmaskableError(NAME_PROBLEM)
    data = tool.model_dump(mode="json", by_alias=True, exclude_unset=True)
    schemas = {"inputSchema": INPUT_PROBLEM, "outputSchema": OUTPUT_PROBLEM}
    plain = {key: value for key, value in data.items() if key not in schemas and key != "name"}
    masked = redact_json(plain, redactor)
    masked["name"] = tool.name
    for key, problem in schemas.items():
        if key in data:
            masked[key] = checked_schema(data[key], redactor, problem)
    if masked == data:
        return tool
    return types.Tool.model_validate(masked)
