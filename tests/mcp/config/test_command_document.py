"""`"type": "commands"` servers in MCP documents: validated all or nothing with field paths,
exported back as written (real document and store modules, real files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.errors import DocumentError
from agent.mcp.config.command_definitions import CommandsDefinition, CommandTool
from agent.mcp.config.document import parse_document, parse_document_data, serialize_document
from agent.mcp.store import McpStore

COUNT = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
GIT = {
    "type": "commands",
    "cwd": "${workspaceFolder}",
    "env": {"GIT_PAGER": "cat"},
    "tools": {
        "log": {
            "description": "Recent commits",
            "command": ["git", "log", "--oneline", "-n", "{count}"],
            "input_schema": COUNT,
            "timeout": 10,
        }
    },
}


def problems(server: dict[str, Any]) -> list[str]:
    with pytest.raises(DocumentError) as raised:
        parse_document_data({"mcpServers": {"git": server}}, "servers.json")
    return [str(problem) for problem in raised.value.problems]


def test_a_commands_server_parses_to_its_tools_and_exports_as_written(tmp_path: Path) -> None:
    document = parse_document(json.dumps({"mcpServers": {"git": GIT}}), "servers.json")

    assert document.definitions == (
        CommandsDefinition(
            name="git",
            tools=(
                CommandTool(
                    name="log",
                    command=("git", "log", "--oneline", "-n", "{count}"),
                    input_schema=COUNT,
                    description="Recent commits",
                    timeout=10.0,
                ),
            ),
            cwd="${workspaceFolder}",
            env={"GIT_PAGER": "cat"},
        ),
    )
    assert json.loads(serialize_document(document.definitions)) == {"mcpServers": {"git": GIT}}
    store = McpStore(tmp_path / "mcp-servers.json")
    store.replace_definitions(document.definitions)
    assert McpStore(tmp_path / "mcp-servers.json").load().definitions == document.definitions


def test_every_problem_is_reported_with_its_field_path() -> None:
    server = {
        "type": "commands",
        "shell": True,
        "env": {"A": "${input:x}"},
        "tools": {
            "log": {
                "command": ["git", "{nope}", "${HOME}", "--files={files}"],
                "input_schema": {
                    "type": "object",
                    "properties": {"files": {"type": "array"}},
                    "required": ["missing"],
                },
                "timeout": 0,
                "allow_dash": ["other"],
                "stdin": "x",
            },
            "bad name": {"command": []},
        },
    }

    found = problems(server)

    assert [line.split(": ", 1)[0] for line in found] == [
        "mcpServers.git.shell",
        "mcpServers.git.env.A",
        "mcpServers.git.tools.log.stdin",
        "mcpServers.git.tools.log.input_schema.required[0]",
        "mcpServers.git.tools.log.command[1]",
        "mcpServers.git.tools.log.command[2]",
        "mcpServers.git.tools.log.command[3]",
        "mcpServers.git.tools.log.allow_dash[0]",
        "mcpServers.git.tools.log.timeout",
        'mcpServers.git.tools["bad name"]',
        'mcpServers.git.tools["bad name"].command',
    ]
    assert any(
        "{nope} names no property of input_schema (its properties: files)" in p for p in found
    )
    assert "{files} is a list, so it must be a whole element" in found[6]


def test_a_commands_server_needs_tools() -> None:
    assert problems({"type": "commands"}) == [
        'mcpServers.git.tools: required for a commands server: {"NAME": {"command": [...]}}'
    ]
