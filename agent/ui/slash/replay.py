"""A resumed session on screen as it was: the last turns, drawn as the chat drew them.

The person's messages after `›`, what they attached by name, the answers rendered as Markdown
by the same streaming renderer the chat uses, and each tool call as its one-line title with
the size of its result (the result itself stays in the file: `agent sessions show ID`).
Everything comes from the session file, which anyone could have written: every piece is
sanitized before it is drawn, and our own colours are added only around sanitized text.
"""

from __future__ import annotations

from agent.mcp.config.names import TOOL_NAME_PREFIX
from agent.session.replay import ReplayedCall, ReplayedTurn
from agent.text import plural, sanitize, sanitize_line
from agent.ui.fit import fit
from agent.ui.style import color_enabled, styled
from agent.ui.tool_calls import RESULT_LEAD, cut, more_lines, short_arguments

REPLAY_TURNS = 10  # the last turns a resume shows; the rest is a line saying how many
MESSAGE_LINES = 12  # of a long message (a paste), as many lines; the rest is counted
ERROR_CHARS = 120  # an error result's first line, cut to this


def replay_text(turns: list[ReplayedTurn], session_id: str, last: int = REPLAY_TURNS) -> str:
    """The last `last` turns as the chat shows them, led by a line counting those left out."""
    shown = turns[-last:] if last > 0 else []
    lines: list[str] = []
    left_out = len(turns) - len(shown)
    if left_out:
        lines.append(
            styled(
                f"… {plural(left_out, 'earlier turn')} not shown "
                f"(agent sessions show {sanitize_line(session_id)} prints the whole session)",
                "dim",
            )
        )
    for turn in shown:
        lines.extend(_turn(turn))
    return "\n".join(lines)


def _turn(turn: ReplayedTurn) -> list[str]:
    message = sanitize(turn.message).splitlines() or [""]
    lines = ["› " + message[0], *("  " + line for line in message[1:MESSAGE_LINES])]
    if len(message) > MESSAGE_LINES:
        lines.append(styled(more_lines(len(message) - MESSAGE_LINES), "dim"))
    for name in turn.attachments:
        lines.append(styled(f"{RESULT_LEAD}attached {sanitize_line(name)}", "dim"))
    for step in turn.steps:
        if isinstance(step, ReplayedCall):
            lines.extend(_call(step))
        else:
            lines.append(_answer(step))
    return lines


def _answer(text: str) -> str:
    """Model text rendered as the chat renders it (Markdown, block by block)."""
    from agent.ui.markdown import MarkdownStream, make_console

    stream = MarkdownStream(make_console(color=color_enabled()))
    return (stream.feed(text) + stream.flush()).rstrip("\n")


def _call(call: ReplayedCall) -> list[str]:
    # One line, as the live chat's title: cut at the terminal's width, never wrapped.
    title = fit(f"⏺ {call_title(call.name, call.arguments)}")
    lines = [styled("⏺ ", "cyan") + title[2:]]
    if call.declined:
        reason = f": {sanitize_line(call.reason)}" if call.reason else ""
        lines.append(styled(f"  ✗ declined{reason}", "red"))
    elif call.result is None:
        lines.append(styled(f"{RESULT_LEAD}no result (interrupted)", "yellow"))
    elif call.is_error:
        first = sanitize_line(call.result.splitlines()[0] if call.result else "")
        lines.append(styled(f"{RESULT_LEAD}{cut(first, ERROR_CHARS)}", "red"))
    else:
        lines.append(styled(RESULT_LEAD + result_size(call.result), "dim"))
    return lines


def call_title(name: str, arguments: str) -> str:
    """The title the chat gave the call: `server › tool (mcp__server__tool)` for an MCP tool
    (whose arguments the chat left to the approval dialog), else the name and its arguments.
    The server is read from the model-facing name (its normalised form; a name with no `__`
    after the server is shown as it is)."""
    prefix = f"{TOOL_NAME_PREFIX}__"
    server, separator, tool = name.removeprefix(prefix).partition("__")
    if name.startswith(prefix) and separator and server and tool:
        return f"{sanitize_line(server)} › {sanitize_line(tool)} ({sanitize_line(name)})"
    return f"{sanitize_line(name)} {short_arguments(arguments)}".rstrip()


def result_size(text: str) -> str:
    """`12 lines, 1,234 characters`; `empty`; one line says only its characters."""
    if not text:
        return "empty"
    count = len(text.splitlines())
    characters = plural(len(text), "character")
    return characters if count == 1 else f"{plural(count, 'line')}, {characters}"
