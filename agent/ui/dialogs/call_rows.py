"""A tool call as its approval shows it: who is called on one line (`server · tool`), what
the server claims about its tool in words a person knows (coloured when it may destroy or
reaches outside; calm when it only reads), and the arguments with multi-line text shown as
its lines (or what the tool says it will do, its preview). One call's dialog
(agent.ui.dialogs.approval) and the dialog for several calls of one answer
(agent.ui.dialogs.call_batch) both show calls so.
"""

from __future__ import annotations

from agent.chat.approval import ApprovalRequest
from agent.text import sanitize_line
from agent.ui.dialogs.call_arguments import argument_lines
from agent.ui.dialogs.frame import wrap
from agent.ui.style import painted

RESOURCE_TOOLS = "MCP resources"  # the source of agent/mcp/resource_tools.py (not imported: mcp)
STOP = "stop"  # what Esc and Ctrl-C answer at an approval: no, and stop the turn
CLAIM_NOTE = "(hints are the server's own claims, not guarantees: agent asks about every call)"


def describe_request(request: ApprovalRequest, width: int = 80, colour: bool = False) -> list[str]:
    """The rows shown above the question, each fitting `width` columns: who is called, what
    the server claims about the tool, and the complete arguments (or the tool's preview).

    Names come from servers and are one line each: a line break in one shows as `\\n`, so it
    cannot push the arguments down or draw lines that look like ours.
    """
    title = "Allow this tool call?"
    if request.asker:
        title = f"Allow this tool call of subagent {sanitize_line(request.asker)}?"
    if request.of > 1:
        title += f"  (call {request.number} of {request.of} in this answer)"
    return [painted(title, "bold", colour=colour), *call_rows(request, width, colour)]


def call_rows(request: ApprovalRequest, width: int = 80, colour: bool = False) -> list[str]:
    """One call as the approval shows it, under its title: who is called, what the server
    claims, why this question is special (its note), and the complete arguments or the
    tool's preview."""
    hints = _hint_lines(request.spec.annotations or {}, colour)
    rows = wrap("  " + painted(who(request), "bold", colour=colour), width, "      ")
    if request.note:
        rows.extend(wrap("  " + painted(f"⚠ {request.note}", "yellow", colour=colour), width))
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


def who(request: ApprovalRequest) -> str:
    """`server · tool`; a resource read names the server and the resource the model chose;
    first, the subagent that asks, when one does (`explore #2 · server · tool`)."""
    called = _called(request)
    return f"{sanitize_line(request.asker)} · {called}" if request.asker else called


def _called(request: ApprovalRequest) -> str:
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
