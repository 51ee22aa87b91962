"""A deeply nested document gives a clear error naming the file, never a RecursionError
traceback, and changes nothing.

Attack: an MCP document to import (from a README, a colleague, a project), settings.yaml or a
SKILL.md frontmatter holding 100000 nested arrays.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.depth import too_deep
from agent.errors import DocumentError, SettingsError
from agent.mcp.config.document import parse_document
from agent.settings import load_settings
from tests.security.inputs_helpers import agent_env, one_shot, run_agent, tool_results

DEPTH = 100_000
NESTED = "[" * DEPTH + "]" * DEPTH


def test_importing_a_deeply_nested_mcp_document_is_a_clear_error_and_saves_nothing(
    tmp_path: Path,
) -> None:
    document = tmp_path / "servers.json"
    document.write_text('{"mcpServers": {"x": {"command": "a", "args": ' + NESTED + "}}}")
    agent_home = tmp_path / "agent-home"
    (tmp_path / "person").mkdir()
    env = agent_env(tmp_path / "person", agent_home)

    done = run_agent(["mcp", "import", str(document)], env, tmp_path)

    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"agent: {document}: nested too deeply to read (more than 100 levels); an MCP servers "
        "document needs only a few: check that this is the file you meant"
    ]
    assert not (agent_home / "mcp-servers.json").exists()


def test_a_deeply_nested_settings_file_is_a_clear_error_naming_it(tmp_path: Path) -> None:
    agent_home = tmp_path / "agent-home"
    agent_home.mkdir()
    settings = agent_home / "settings.yaml"
    settings.write_text(f"model: {NESTED}\n")
    (tmp_path / "person").mkdir()
    env = agent_env(tmp_path / "person", agent_home)

    done = run_agent(["-p", "hello"], env, tmp_path)

    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"agent: {settings}: nested too deeply to read (more than 100 levels); settings need "
        "only a few: check the file"
    ]


def test_a_deeply_nested_skill_frontmatter_skips_that_skill_with_a_reason(tmp_path: Path) -> None:
    project = tmp_path / "project"
    skill = project / ".agents" / "skills" / "deep"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: deep\ndescription: {NESTED}\n---\nbody\n")
    (tmp_path / "person").mkdir()
    env = agent_env(tmp_path / "person", tmp_path / "agent-home")

    done = run_agent(["skills", "validate", str(skill)], env, project)

    assert done.returncode != 0
    assert "Traceback" not in done.stdout + done.stderr
    assert "SKILL.md: error: the frontmatter is not valid YAML" in done.stdout + done.stderr


def test_nesting_the_decoders_accept_but_no_real_document_needs_is_refused_too(
    tmp_path: Path,
) -> None:
    # 150 levels decode without a RecursionError; code that walks the value later might not.
    moderate = "[" * 150 + "]" * 150
    with pytest.raises(DocumentError, match="nested too deeply to read"):
        parse_document('{"mcpServers": {"x": {"command": "a", "args": ' + moderate + "}}}", "doc")
    settings = tmp_path / "settings.yaml"
    settings.write_text(f"model: {moderate}\n")
    with pytest.raises(SettingsError, match="nested too deeply to read"):
        load_settings(settings)
    assert not too_deep([[1]] * 3, limit=2) and too_deep([[[1]]], limit=2)


@pytest.mark.parametrize("depth", [150, DEPTH], ids=["decodable", "beyond-the-decoder"])
def test_a_model_tool_call_with_deeply_nested_arguments_is_an_error_the_model_reads(
    depth: int, tmp_path: Path
) -> None:
    arguments = '{"path": ' + "[" * depth + "]" * depth + "}"
    turns = [
        {"tool_calls": [{"id": "c1", "name": "read_file", "arguments": arguments}]},
        {"text": "ok"},
    ]
    (tmp_path / "person").mkdir()
    env = agent_env(tmp_path / "person", tmp_path / "agent-home")

    done, requests = one_shot(turns, "read it", env, tmp_path)

    assert (done.returncode, done.stdout, "Traceback" in done.stderr) == (0, "ok\n", False)
    assert "arguments nest more than 100 levels deep" in tool_results(requests[1])["c1"]


def test_a_deeply_nested_store_file_is_a_clear_error_and_left_alone(tmp_path: Path) -> None:
    agent_home = tmp_path / "agent-home"
    agent_home.mkdir()
    store = agent_home / "mcp-servers.json"
    store.write_text('{"version": 3, "definitions": ' + NESTED + "}")
    (tmp_path / "person").mkdir()

    done = run_agent(["mcp", "list"], agent_env(tmp_path / "person", agent_home), tmp_path)

    assert done.returncode != 0
    assert done.stderr.splitlines() == [
        f"agent: {store}: nested too deeply to be ours; fix it by hand or move it away; agent "
        "will not overwrite it"
    ]
    assert store.read_text().startswith('{"version": 3, "definitions": [[[')
