"""Hand-written JSON-RPC messages from the page: checked, sent under an id of the bridge's
own, answered with the page's id restored.

Several tabs may use one server, and each numbers its messages as it likes: two tabs sending
id 1 at once must each get their own answer, and neither may take the answer of one of the
session's own requests (the SDK numbers those 0, 1, 2...). So every request leaves under a
fresh string id that nobody else uses, and its answer comes back under the page's id.
"""

from __future__ import annotations

import itertools
import secrets
from typing import Any

PageId = str | int


class BadMessageError(ValueError):
    """The page's message is not a JSON-RPC message we can send (the text names the field)."""


def checked_message(value: object) -> dict[str, Any]:
    """The page's message as a JSON-RPC object ("jsonrpc" filled in), or BadMessageError."""
    if not isinstance(value, dict):
        raise BadMessageError('message: expected a JSON-RPC object such as {"method": "ping"}')
    message = dict(value)
    method = message.get("method")
    if not isinstance(method, str) or not method:
        raise BadMessageError('message.method: expected a method name such as "tools/list"')
    if message.setdefault("jsonrpc", "2.0") != "2.0":
        raise BadMessageError('message.jsonrpc: must be "2.0" (or left out)')
    if "id" in message:
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, str | int):
            raise BadMessageError("message.id: must be a string or an integer")
    if "params" in message and not isinstance(message["params"], dict | list):
        raise BadMessageError("message.params: must be an object")
    return message


class RawIds:
    """Fresh ids for the page's requests, and their answers with the page's ids back."""

    def __init__(self) -> None:
        self._prefix = f"console-{secrets.token_hex(4)}-"
        self._counter = itertools.count(1)

    def outgoing(self, message: dict[str, Any]) -> tuple[dict[str, Any], PageId | None]:
        """The message to send (a request gets an id of ours) and the page's id, if any."""
        if "id" not in message:
            return message, None
        page_id: PageId = message["id"]
        return {**message, "id": f"{self._prefix}{next(self._counter)}"}, page_id

    @staticmethod
    def answer_for_page(answer: dict[str, Any], page_id: PageId) -> dict[str, Any]:
        """The server's answer as the page expects it: under the id it sent."""
        return {**answer, "id": page_id}
