"""Attacks by a hostile model answer on command lines whose shape lets it choose what an option
means: leaving out an optional argument so the option before it takes the next element as its
value, a value that turns `-{flag}` into a long option, and definitions the rules cannot check
(brace forms that are not placeholders). Real `agent` binary and real programs."""

from __future__ import annotations

import json
from pathlib import Path

from tests.security.command_tools_helpers import (
    agent,
    call,
    make_project,
    probe_tool,
    save_commands_server,
)

STRING = {"type": "string"}


def _import(tmp_path: Path, command: list[str], properties: dict[str, object]) -> str:
    project = make_project(tmp_path)
    schema = {"type": "object", "properties": properties}
    document = {
        "mcpServers": {
            "c": {"type": "commands", "tools": {"t": {"command": command, "input_schema": schema}}}
        }
    }
    path = tmp_path / "servers.json"
    path.write_text(json.dumps(document))
    result = agent("mcp", "import", str(path), cwd=project)
    assert result.returncode != 0
    return result.stderr


def test_an_optional_argument_after_a_literal_option_is_refused_at_validation(
    tmp_path: Path, agent_home: Path
) -> None:
    stderr = _import(tmp_path, ["sort", "-o", "{out}", "{file}"], {"out": STRING, "file": STRING})

    assert "mcpServers.c.tools.t.command[2]: {out} is optional and follows the option '-o'" in (
        stderr
    )
    assert "make 'out' required" in stderr
    assert not (agent_home / "mcp-servers.json").exists()


def test_an_optional_argument_after_a_literal_double_dash_is_accepted(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    tools = {"log": probe_tool("-n", "{count}", "--", "{paths}", properties={})}
    tools["log"]["input_schema"] = {
        "type": "object",
        "properties": {"count": {"type": "integer"}, "paths": {"type": "array", "items": STRING}},
        "required": ["count"],
    }
    save_commands_server(agent_home, project, tools)

    result = call(project, "log", {"count": 3, "paths": ["-weird-name"]})

    assert result.returncode == 0, result.stderr
    assert json.loads((project / "argv.json").read_text()) == ["-n", "3", "--", "-weird-name"]


def test_a_brace_form_that_is_not_a_placeholder_is_refused_at_validation(
    tmp_path: Path, agent_home: Path
) -> None:
    stderr = _import(tmp_path, ["echo", "{my arg}"], {"my arg": STRING})

    assert "mcpServers.c.tools.t.command[1]: '{my arg}' is not a placeholder" in stderr
    assert "write {{ and }} for literal braces" in stderr


def test_a_value_turning_a_dash_flag_into_a_long_option_is_refused_and_nothing_runs(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    save_commands_server(
        agent_home, project, {"flag": probe_tool("-{flag}", properties={"flag": STRING})}
    )

    result = call(project, "flag", {"flag": "-output=/tmp/owned"})

    assert result.returncode == 1
    assert "argument 'flag' starts with '-'" in result.stderr
    assert not (project / "argv.json").exists()


def test_the_refusal_names_the_argument_that_brought_the_dash(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    tool = probe_tool("{a}{b}", properties={"a": STRING, "b": STRING}, allow_dash=["a"])
    save_commands_server(agent_home, project, {"ab": tool})

    result = call(project, "ab", {"a": "", "b": "-rf"})

    assert result.returncode == 1
    assert "argument 'b' starts with '-'" in result.stderr
    assert '"allow_dash": ["b"]' in result.stderr
    assert not (project / "argv.json").exists()
