"""The tool-call lines the chat and one-shot mode share: titles, decisions, result previews."""

from __future__ import annotations

from agent.chat.approval import Decision
from agent.messages import ToolCall
from agent.text import progress_text
from agent.tools.base import ToolSpec
from agent.ui.tool_calls import call_title, decision_line, more_lines, result_preview

ECHO = ToolSpec("mcp__fx__echo", "Echo.", {}, True, "MCP server fx", "fx", "echo")
READ = ToolSpec("read_file", "Read.", {}, False, "built-in")


def test_an_mcp_calls_arguments_are_in_its_title_only_when_asked_for() -> None:
    call = ToolCall("c1", "mcp__fx__echo", '{"text":\n"hi"}')

    assert call_title(call, ECHO, server_arguments=False).plain() == "fx › echo (mcp__fx__echo)"
    with_arguments = call_title(call, ECHO, server_arguments=True).plain()
    assert with_arguments == 'fx › echo (mcp__fx__echo) {"text": "hi"}'


def test_long_arguments_are_cut_and_unknown_tools_say_so() -> None:
    call = ToolCall("c1", "read_file", '{"path": "' + "a" * 200 + '"}')
    title = call_title(call, READ, server_arguments=False)

    assert title.tool == "read_file"
    assert title.details is not None and len(title.details) == 120
    assert title.details.endswith("...")
    assert call_title(call, None, server_arguments=True).plain() == "read_file (no such tool)"


def test_a_result_preview_leads_cuts_and_counts_what_it_left_out() -> None:
    text = "\n".join(["x" * 250, "two", "three", "four", "five"])
    preview = result_preview(text, is_error=True, limit=3)

    assert preview.lines == ["  ⎿ error: " + "x" * 197 + "...", "    two", "    three"]
    assert (preview.hidden, preview.cut) == (2, True)
    assert more_lines(preview.hidden) == "    … 2 more lines"
    assert result_preview("", is_error=False, limit=3).lines == ["  ⎿ (empty)"]


def test_a_hostile_result_or_reason_cannot_forge_lines() -> None:
    assert result_preview("a\x1b[2Jb", is_error=False, limit=3).lines == ["  ⎿ a\\x1b[2Jb"]
    assert decision_line(Decision(False, "no\x1b[31m")) == "  ✗ declined: no\\x1b[31m"
    assert decision_line(Decision(True, None)) == "  ✓ approved"


def test_progress_reads_done_of_total_then_the_message() -> None:
    assert progress_text(3, 10, "copying") == "3/10 copying"
    assert progress_text(0.5, None, None) == "0.5"
