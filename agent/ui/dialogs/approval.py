"""The tool approval dialog: one key decides. y approves once; n declines and the turn goes
on; r declines with a reason for the model; Esc or Ctrl-C decline and stop the whole turn.
A call that asks for the network and could run without it (run_command, fenced) has o too:
yes once, offline. There is no "always" for MCP tools: every call asks.

What is asked about reads at a glance: who is called on one line (`server · tool`), what the
server claims about its tool in words a person knows (coloured when it may destroy or reaches
outside; calm when it only reads), and the arguments with multi-line text shown as its lines.
"""

from __future__ import annotations

from prompt_toolkit.shortcuts import PromptSession

from agent.chat.approval import WITHOUT_NETWORK, ApprovalRequest, Decision
from agent.text import sanitize_line
from agent.ui.dialogs.call_arguments import argument_lines
from agent.ui.dialogs.frame import ask_with_pages, terminal_size, wrap
from agent.ui.dialogs.fresh_keys import ask_line
from agent.ui.style import color_enabled, painted

RESOURCE_TOOLS = "MCP resources"  # the source of agent/mcp/resource_tools.py (not imported: mcp)
QUESTION = (
    "Approve? [y] yes once  [n] no  [r] no, with a reason for the model  "
    "[Esc] no, and stop the turn "
)
# A call that asks for the network and can run without it (run_command, fenced).
NETWORK_QUESTION = (
    "Approve? [y] yes once, with network  [o] yes once, offline (no network)  [n] no  "
    "[r] no, with a reason for the model  [Esc] no, and stop the turn "
)
STOP = "stop"
CLAIM_NOTE = "(hints are the server's own claims, not guarantees: agent asks about every call)"


def describe_request(request: ApprovalRequest, width: int = 80, colour: bool = False) -> list[str]:
    """The rows shown above the question, each fitting `width` columns: who is called, what
    the server claims about the tool, and the complete arguments (or the tool's preview).

    Names come from servers and are one line each: a line break in one shows as `\\n`, so it
    cannot push the arguments down or draw lines that look like ours.
    """
    hints = _hint_lines(request.spec.annotations or {}, colour)
    title = "Allow this tool call?"
    if request.of > 1:
        title += f"  (call {request.number} of {request.of} in this answer)"
    rows = [painted(title, "bold", colour=colour)]
    rows.extend(wrap("  " + painted(_who(request), "bold", colour=colour), width, "      "))
    for line in hints:
        rows.extend(wrap("  " + line, width, "      "))
    if request.preview:  # what the tool will do, as it worked it out, instead of its arguments
        for line in request.preview:
            rows.extend(wrap("  " + sanitize_line(line), width, "      "))
        return rows
    rows.append("  arguments:" if request.arguments else "  arguments: none")
    for text, continuation in argument_lines(request.arguments, "    "):
        rows.extend(wrap(text, width, continuation))
    return rows


def _who(request: ApprovalRequest) -> str:
    """`server · tool`; a resource read names the server and the resource the model chose."""
    spec = request.spec
    if spec.server is not None:
        return f"{sanitize_line(spec.server)} · {sanitize_line(spec.original_name or '')}"
    if spec.source == RESOURCE_TOOLS:
        server, uri = request.arguments.get("server"), request.arguments.get("uri")
        if isinstance(server, str) and isinstance(uri, str):
            return f"{sanitize_line(server)} · resource: {sanitize_line(uri)}"
    return f"{sanitize_line(spec.name)} (built into agent)"


def _hint(annotations: dict[str, object], name: str) -> bool | None:
    """One MCP tool hint as the server declared it (camelCase on the wire), or None."""
    snake = "".join(f"_{char.lower()}" if char.isupper() else char for char in name)
    value = annotations.get(name, annotations.get(snake))
    return value if isinstance(value, bool) else None


def _hint_lines(annotations: dict[str, object], colour: bool) -> list[str]:
    """What the server claims, worst first. A warning wins over a calm word: a server that
    says both read-only and destructive is shown as destructive too, and no hint ever skips
    the question."""
    lines = []
    if _hint(annotations, "destructiveHint") is True:
        words = "⚠ may delete or overwrite things (the server says so)"
        lines.append(painted(words, "bold", "red", colour=colour))
    if _hint(annotations, "openWorldHint") is True:
        words = (
            "⚠ reaches outside this machine: the internet or other services (the server says so)"
        )
        lines.append(painted(words, "bold", "yellow", colour=colour))
    if _hint(annotations, "readOnlyHint") is True:
        lines.append(
            painted("only reads, changes nothing (the server says so)", "green", colour=colour)
        )
    elif _hint(annotations, "destructiveHint") is False:
        lines.append(
            painted("adds or changes, deletes nothing (the server says so)", colour=colour)
        )
    if lines:
        lines.append(painted(CLAIM_NOTE, "dim", colour=colour))
    return lines


class ChatApprover:
    """Asks in the terminal the dialog runs on, one call at a time. `colour`: None follows
    stdout (the chat); the one-shot approver says whether /dev/tty gets colours."""

    def __init__(self, colour: bool | None = None) -> None:
        self.colour = colour

    async def decide(self, request: ApprovalRequest) -> Decision:
        colour = color_enabled() if self.colour is None else self.colour
        rows = describe_request(request, terminal_size().columns, colour)
        keys = {"y": "y", "n": "n", "r": "r"}
        question = QUESTION
        if request.network_choice:
            keys["o"] = "o"
            question = NETWORK_QUESTION
        choice = await ask_with_pages(
            ["", *rows], question, keys, cancel=STOP, cancel_words=", Esc stops the turn"
        )
        if choice == "y":
            return Decision(True)
        if choice == "o":
            return Decision(True, WITHOUT_NETWORK, without_network=True)
        if choice == STOP:
            return Decision(False, stop_turn=True)
        if choice == "r":
            try:
                reason = await ask_line(PromptSession[str](), "Reason for the model: ")
            except (KeyboardInterrupt, EOFError):
                reason = ""
            return Decision(False, reason.strip() or None)
        return Decision(False)
