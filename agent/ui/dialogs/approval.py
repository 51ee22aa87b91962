"""The tool approval dialog: one key decides. y approves once; n, Esc or Ctrl-C deny; r denies
with a reason for the model. There is no "always" for MCP tools: every call asks."""

from __future__ import annotations

from prompt_toolkit.shortcuts import PromptSession

from agent.chat.approval import ApprovalRequest, Decision
from agent.text import sanitize, sanitize_line
from agent.ui.dialogs.frame import ask_with_pages
from agent.ui.dialogs.fresh_keys import ask_line
from agent.ui.render import pretty_arguments
from agent.ui.style import styled

RESOURCE_TOOLS = "MCP resources"  # the source of agent/mcp/resource_tools.py (not imported: mcp)
_HINTS = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")
_HINT_WORDS = {
    "read_only_hint": ("read-only", "may change things"),
    "destructive_hint": ("destructive", "not destructive"),
    "idempotent_hint": ("idempotent", "not idempotent"),
    "open_world_hint": ("reaches the outside world", "closed world"),
}


def describe_request(request: ApprovalRequest) -> list[str]:
    """The lines shown above the question: names, hints and the complete arguments.

    Names come from servers and are one line each: a line break in one shows as `\\n`, so it
    cannot push the arguments down or draw lines that look like ours.
    """
    spec = request.spec
    lines = [styled("Allow this tool call?", "bold")]
    lines.append(f"  tool:   {sanitize_line(spec.name)}")
    if spec.server is not None:
        lines.append(f"  server: {sanitize_line(spec.server)}")
        lines.append(f"  server's tool: {sanitize_line(spec.original_name or '')}")
    elif spec.source == RESOURCE_TOOLS:  # the server and URI the model chose, exactly
        for label, key in (("server", "server"), ("resource", "uri")):
            if isinstance(request.arguments.get(key), str):
                lines.append(f"  {label}: {sanitize_line(request.arguments[key])}")
    hints = _annotation_words(spec.annotations or {})
    if hints:
        lines.append(f"  server says: {', '.join(hints)}  (hints from the server, not guarantees)")
    if request.preview:  # what the tool will do, as it worked it out, instead of its arguments
        lines.extend("  " + sanitize_line(line) for line in request.preview)
        return lines
    lines.append("  arguments:")
    lines.extend(
        "    " + line for line in sanitize(pretty_arguments(request.arguments)).splitlines()
    )
    return lines


def _annotation_words(annotations: dict[str, object]) -> list[str]:
    words = []
    for key in _HINTS:
        camel = "".join(part.title() if i else part for i, part in enumerate(key.split("_")))
        value = annotations.get(key, annotations.get(camel))
        if isinstance(value, bool):
            words.append(_HINT_WORDS[key][0 if value else 1])
    return words


class ChatApprover:
    """Asks in the terminal, one call at a time."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        choice = await ask_with_pages(
            ["", *describe_request(request)],
            "Approve? [y] yes once  [n] no  [r] no, with a reason for the model ",
            {"y": "y", "n": "n", "r": "r"},
        )
        if choice == "y":
            return Decision(True)
        if choice == "r":
            try:
                reason = await ask_line(PromptSession[str](), "Reason for the model: ")
            except (KeyboardInterrupt, EOFError):
                reason = ""
            return Decision(False, reason.strip() or None)
        return Decision(False)
