"""`agent mcp send NAME JSON`: one hand-written JSON-RPC message to a server, after the
handshake, the way a protocol debugging console pokes at a server.

A request without an id gets one; its answer is printed (exit 1 when it is an error), up to
ANSWER_CAP characters. A notification (a method under notifications/) prints nothing.
--trace shows the whole wire.

A request goes out under an id of our own, never the person's: the session numbers its own
requests 0, 1, 2... and the SDK coerces ids (even `true` answers a waiter for 1), so a
hand-written id could take or give away another request's answer. The answer is printed
with the person's id, and a note says so.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from agent.commands.mcp_console import parse_json_object, run_with_runtime
from agent.commands.output import say, warn
from agent.errors import AgentError
from agent.mcp.store import McpStore
from agent.text import escape_json_text, plural

if TYPE_CHECKING:
    from agent.mcp.runtime import McpRuntime

# A string, so it never collides with the integer ids the client session numbers its own
# requests with.
DEFAULT_ID = "agent-send-1"
ANSWER_CAP = 256 * 1024  # characters of an answer printed; --trace shows the rest


def parse_message(text: str) -> dict[str, Any]:
    """The hand-written message as a JSON-RPC object; anything else is an error naming JSON."""
    value = parse_json_object(text, "JSON", 'an object such as {"method": "tools/list"}')
    method = value.get("method")
    if not isinstance(method, str) or not method:
        raise AgentError(
            'JSON: expected a "method" (a request such as "tools/list", or a notification '
            'such as "notifications/roots/list_changed")'
        )
    if value.setdefault("jsonrpc", "2.0") != "2.0":
        raise AgentError('JSON: "jsonrpc" must be "2.0" (or left out)')
    if "id" in value and (isinstance(value["id"], bool) or not isinstance(value["id"], str | int)):
        raise AgentError('JSON: "id" must be a string or an integer')
    if "id" not in value and not method.startswith("notifications/"):
        value["id"] = DEFAULT_ID
    return value


def send_command(store: McpStore, name: str, message: str, trace: bool) -> int:
    """Send one message after the handshake; print a request's answer."""
    payload = parse_message(message)  # a typo is reported before anything starts

    own_id = payload.get("id")
    if own_id is not None and own_id != DEFAULT_ID:
        payload["id"] = f"agent-send-{os.urandom(8).hex()}"

    async def body(runtime: McpRuntime) -> int:
        definition = store.load().find(name)
        connection = await runtime.start(definition.name, ask_trust=True)
        timeout = runtime.limits.tool_timeout_seconds
        answer = await connection.send_message(payload, timeout)
        if "id" not in payload:
            return 0
        if answer is None:
            raise AgentError(
                f"MCP server {definition.name!r} did not answer request {own_id!r} "
                f"within {timeout:g} s"
            )
        if own_id != payload["id"]:
            warn(
                f"note: sent as id {payload['id']!r}, not {own_id!r}, so it cannot be taken for "
                "one of the session's own requests; the answer is shown with your id"
            )
            answer["id"] = own_id
        text = _bounded(escape_json_text(json.dumps(answer, indent=2, ensure_ascii=False)))
        if "error" in answer:
            warn(text)
            return 1
        say(text)
        return 0

    return run_with_runtime(store, body, trace)


def _bounded(text: str) -> str:
    """At most ANSWER_CAP characters of an answer, saying when and where it was cut."""
    if len(text) <= ANSWER_CAP:
        return text
    return text[:ANSWER_CAP] + (
        f"\n[answer cut at {ANSWER_CAP} of {plural(len(text), 'character')}; --trace shows it all]"
    )
