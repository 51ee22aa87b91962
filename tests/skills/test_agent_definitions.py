"""Subagent definitions (issue 41): one Markdown file each, parsed from the bytes read.

Good frontmatter in our spelling and Claude Code's; each bad input skipped or noted with the
file and the field named; Claude's tool names mapped to ours, MCP names kept, others dropped
with a note; Claude's model aliases and `inherit` are the parent's model."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from agent.skills.agent_definitions import (
    SkippedDefinition,
    SubagentDefinition,
    map_tool_name,
    parse_definition,
)
from agent.skills.agent_discovery import discover_definitions

PATH = Path("/p/.agents/agents/reviewer.md")
LABEL = "./.agents/agents/reviewer.md"


def parsed(text: str, path: Path = PATH) -> SubagentDefinition | SkippedDefinition:
    return parse_definition(text.encode(), path, LABEL, "project")


def definition(text: str, path: Path = PATH) -> SubagentDefinition:
    result = parsed(text, path)
    assert isinstance(result, SubagentDefinition), result
    return result


def skipped(text: str) -> str:
    result = parsed(text)
    assert isinstance(result, SkippedDefinition), result
    assert result.label == LABEL
    return result.note()


def warnings(found: SubagentDefinition) -> list[str]:
    return [d.message for d in found.diagnostics]


def test_a_definition_in_our_spelling_keeps_its_fields_and_the_bytes_digest() -> None:
    text = (
        "---\nname: reviewer\ndescription: Reviews a diff for bugs.\n"
        "tools: read_file, search_files\nmodel: openai/gpt-4o-mini\n---\n\n"
        "You review diffs.\nBe brief.\n"
    )
    found = definition(text)
    assert found.name == "reviewer"
    assert found.description == "Reviews a diff for bugs."
    assert found.tools == ("read_file", "search_files")
    assert found.model == "openai/gpt-4o-mini"
    assert found.instructions == "You review diffs.\nBe brief."
    assert found.scope == "project" and found.label == LABEL and found.path == PATH
    assert found.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert found.diagnostics == ()
    assert found.allows("read_file") and not found.allows("run_command")


def test_claude_codes_shape_maps_its_tool_names_and_inherits_the_model() -> None:
    text = (
        "---\nname: code-reviewer\ndescription: Expert reviewer.\n"
        "tools: Read, Grep, Glob, LS, Bash, Edit, MultiEdit, Write, mcp__db__query\n"
        "model: inherit\ncolor: blue\n---\nReview.\n"
    )
    found = definition(text)
    assert found.tools == (
        "read_file",
        "search_files",
        "list_files",
        "run_command",
        "edit_file",
        "write_file",
        "mcp__db__query",
    )
    assert found.model is None
    assert warnings(found) == []  # color is Claude's own: ignored without a note


def test_tools_as_a_yaml_list_and_absent_tools_mean_all_of_the_parents() -> None:
    listed = definition("---\nname: a\ndescription: d\ntools:\n  - Read\n  - Grep\n---\nx\n")
    assert listed.tools == ("read_file", "search_files")
    absent = definition("---\nname: a\ndescription: d\n---\nx\n")
    assert absent.tools is None and absent.allows("run_command")
    empty = definition("---\nname: a\ndescription: d\ntools: []\n---\nx\n")
    assert empty.tools == () and not empty.allows("read_file")


def test_unknown_tool_names_are_dropped_with_a_note_naming_the_field() -> None:
    found = definition(
        "---\nname: a\ndescription: d\ntools: Read, WebFetch, Bash(git diff:*)\n---\nx\n"
    )
    assert found.tools == ("read_file",)
    notes = warnings(found)
    assert any(n.startswith("tools: 'WebFetch' dropped: no tool of that name here") for n in notes)
    assert any("'Bash(git diff:*)' dropped" in n and "list Bash" in n for n in notes)
    assert "run_command" not in found.tools  # a narrowed Bash never becomes the whole tool


def test_the_chats_note_names_the_file_with_what_was_dropped(tmp_path: Path) -> None:
    folder = tmp_path / "proj" / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("---\nname: a\ndescription: d\ntools: Read, WebFetch\n---\nx\n")
    found = discover_definitions(tmp_path / "proj", home=tmp_path / "home")
    [note] = found.notes()
    assert note.startswith("subagent definition ./.claude/agents/a.md: tools: 'WebFetch' dropped")


def test_disallowed_tools_are_never_offered() -> None:
    found = definition("---\nname: a\ndescription: d\ndisallowedTools: Write, Edit\n---\nx\n")
    assert found.tools is None
    assert found.denied_tools == ("write_file", "edit_file")
    assert found.allows("read_file") and not found.allows("write_file")


@pytest.mark.parametrize("alias", ["sonnet", "opus", "haiku"])
def test_claudes_model_aliases_are_the_parents_model_with_a_note(alias: str) -> None:
    found = definition(f"---\nname: a\ndescription: d\nmodel: {alias}\n---\nx\n")
    assert found.model is None
    assert any(f"model {alias!r} is Claude Code's alias" in n for n in warnings(found))


def test_a_missing_name_falls_back_to_the_files_name_with_a_note() -> None:
    found = definition("---\ndescription: d\n---\nx\n")
    assert found.name == "reviewer"
    assert warnings(found) == [
        "name is missing; using the file's name 'reviewer': add name: reviewer"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no frontmatter\n", "has no frontmatter"),
        ("---\nname: a\ndescription: d\n", "is never closed"),
        ("---\nname: [a\n---\nx\n", "the frontmatter is not valid YAML (line 3"),
        ("---\n- a\n- b\n---\nx\n", "the frontmatter is a list, not fields"),
        ("---\nname: a\n---\nx\n", "description is missing"),
        ("---\nname: a\ndescription: [1, 2]\n---\nx\n", "description must be text, not a list"),
        ("---\nname: a\ndescription: '  '\n---\nx\n", "description is empty"),
        ("---\nname: Bad Name\ndescription: d\n---\nx\n", "name 'Bad Name': the name may hold"),
        ("---\nname: explore\ndescription: d\n---\nx\n", "name 'explore' is a built-in kind"),
        ("---\nname: General\ndescription: d\n---\nx\n", "is a built-in kind"),
    ],
)
def test_bad_frontmatter_is_skipped_with_the_file_and_field_named(text: str, expected: str) -> None:
    note = skipped(text)
    assert note.startswith(f"subagent definition {LABEL} skipped: ")
    assert expected in note


def test_a_file_that_is_not_utf8_is_skipped_naming_the_byte_and_line() -> None:
    result = parse_definition(b"---\nname: a\n\xff\n---\n", PATH, LABEL, "user")
    assert isinstance(result, SkippedDefinition)
    assert "is not UTF-8 text (byte 0xff on line 3)" in result.note()


def test_bad_optional_fields_are_noted_and_the_definition_is_used() -> None:
    found = definition("---\nname: a\ndescription: d\ntools: {x: 1}\nmodel: [a]\nmodle: x\n---\n\n")
    notes = warnings(found)
    assert found.tools is None and found.model is None
    assert any(n.startswith("tools must be a comma-separated line or a list") for n in notes)
    assert any(n.startswith("model must be a model name, not a list") for n in notes)
    assert any(n.startswith("unknown field 'modle'") for n in notes)
    assert any(n.startswith("the body is empty") for n in notes)


def test_tool_names_map_one_by_one() -> None:
    assert map_tool_name("Read") == "read_file"
    assert map_tool_name("Glob") == "list_files"
    assert map_tool_name("LS") == "list_files"
    assert map_tool_name("MultiEdit") == "edit_file"
    assert map_tool_name("write_file") == "write_file"
    assert map_tool_name("mcp__server__tool") == "mcp__server__tool"
    assert isinstance(map_tool_name("read"), tuple)  # names are exact
    assert isinstance(map_tool_name("NotebookEdit"), tuple)
