"""`agent mcp send NAME JSON`: one hand-written JSON-RPC message to a server, after the
handshake, the way a protocol debugging console pokes at a server.

A request without an id gets one; its answer is printed (exit 1 when it is an error). A
notification (a method under notifications/) prints nothing. --trace shows the whole wire.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agent.commands.mcp_console import run_with_runtime
from agent.commands.output import say, warn
from agent.errors import AgentError
from agent.mcp.store import McpStore
from agent.text import escape_json_text

if TYPE_CHECKING:
    from agent.mcp.runtime import McpRuntime

# A string, so it never collides with the integer ids the client session numbers its own
# requests with.
DEFAULT_ID = "agent-send-1"


def parse_message(text: str) -> dict[str, Any]:
    """The hand-written message as a JSON-RPC object; anything else is an error naming JSON."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise AgentError(f"JSON: not valid JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise AgentError("JSON: nested too deeply") from None
    if not isinstance(value, dict):
        raise AgentError('JSON: expected an object such as {"method": "tools/list"}')
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

    async def body(runtime: McpRuntime) -> int:
        definition = store.load().find(name)
        connection = await runtime.start(definition.name, ask_trust=True)
        timeout = runtime.limits.tool_timeout_seconds
        answer = await connection.send_message(payload, timeout)
        if "id" not in payload:
            return 0
        if answer is None:
            raise AgentError(
                f"MCP server {definition.name!r} did not answer request {payload['id']!r} "
                f"within {timeout:g} s"
            )
        text = escape_json_text(json.dumps(answer, indent=2, ensure_ascii=False))
        if "error" in answer:
            warn(text)
            return 1
        say(text)
        return 0

    return run_with_runtime(store, body, trace)
