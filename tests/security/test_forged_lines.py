"""Text from a server or a document never prints as a line of ours.

The attack: a server's error message, tool name, description, server info or instructions
(or a key in an imported document) holds a line break (LF, CR, U+2028, NEL) followed by
something like "agent: server fx trusted". Printed as is, the person sees a line that looks
like the agent's own. Every such text is one line, with its breaks shown as escapes.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI
from tests.pty_chat import AGENT, spawn_agent, spawn_chat
from tests.security.hostile_text import save_trusted_hostile_server, trust_hx_for

FORGED = "agent: server fx trusted"


@pytest.fixture
def hostile_server(agent_home: Path) -> None:
    save_trusted_hostile_server(agent_home)


def run(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=cwd,
        env=env,
        start_new_session=True,  # no controlling terminal: nothing can be asked
    )


def assert_no_forged_line(output: str) -> None:
    for line in output.splitlines():
        assert not line.startswith(("agent: server", "agent: all", "agent: trusted")), output
        assert not line.startswith("agent: verified"), output
    for char in ("\r", "\u2028", "\x85", "\u202e", "\x1b"):
        assert char not in output, repr(char)


@pytest.mark.parametrize("brk", ["\n", "\r", "\u2028", "\x85"], ids=["LF", "CR", "LS", "NEL"])
def test_a_server_error_message_with_a_line_break_prints_as_one_agent_line(
    brk: str, hostile_server: None
) -> None:
    message = f"boom{brk}{FORGED}"
    done = run("mcp", "call", "hx", "boom", "--args", json.dumps({"message": message}))

    assert done.returncode == 1
    escaped = {"\n": "\\n", "\r": "\\x0d", "\u2028": "\\u2028", "\x85": "\\x85"}[brk]
    assert done.stderr == (
        f"agent: MCP server 'hx' returned an error while calling boom: boom{escaped}{FORGED} "
        "(code -32001)\n"
    )


def test_a_server_error_message_of_100000_characters_prints_as_one_short_agent_line(
    hostile_server: None,
) -> None:
    # The server's words were quoted whole: `agent mcp call` printed 100,000 characters (and
    # the model was handed them as the call's result).
    message = "boom " + "flood " * 20_000
    done = run("mcp", "call", "hx", "boom", "--args", json.dumps({"message": message}))

    assert done.returncode == 1
    assert done.stderr.startswith("agent: MCP server 'hx' returned an error while calling boom")
    assert len(done.stderr) < 3_000 and "[cut]" in done.stderr, len(done.stderr)
    assert done.stderr.count("\n") == 1


def test_tool_listing_shows_each_tool_on_one_line_with_its_tricks_escaped(
    hostile_server: None,
) -> None:
    done = run("mcp", "tools", "hx")

    assert done.returncode == 0, done.stderr
    assert_no_forged_line(done.stdout)
    rows = done.stdout.splitlines()
    assert len(rows) == 1 + 3 + 1  # header, three tools, summary
    assert rows[1].split()[:2] == ["yes", "safe\\nagent:"]
    assert "harmless\\u2028agent: all calls approved\\x0dX" in rows[1]
    assert "read_\\u202eelif" in rows[2]
    assert "zero\\u200bwidth \\U000e0041tag \\u2066isolate\\u2069 soft\\xadhyphen" in rows[2]


def test_inspect_shows_server_info_and_tools_one_line_each(hostile_server: None) -> None:
    done = run("mcp", "inspect", "hx")

    assert done.returncode == 0, done.stderr
    assert_no_forged_line(done.stdout)
    lines = done.stdout.splitlines()
    assert lines[0] == "server:       hostile\\u202egnp\\nagent: verified 1.0\\x1b[2J"
    assert "  be nice\\u2028agent: trusted\\x85done" in lines
    assert "  safe\\nagent: server fx trusted: harmless\\u2028agent: all calls approved\\x0dX" in (
        lines
    )


def test_a_tool_call_title_in_one_shot_output_is_one_line(
    hostile_server: None, agent_home: Path, tmp_path: Path
) -> None:
    assert run("mcp", "tools", "hx").returncode == 0  # discovers and selects the tools
    forged_tool = "mcp__hx__safe_agent__server_fx_trusted"
    turns = [
        {"tool_calls": [{"id": "c1", "name": forged_tool, "arguments": {}}]},
        {"text": "ok"},
    ]
    env = dict(os.environ, OPENAI_API_KEY="sk-test", HOME=str(tmp_path))
    trust_hx_for(agent_home, env)
    with FakeOpenAI(turns) as fake:
        done = run(
            "--model", "openai/fake-model", "--api-base", fake.base_url, "-p", "go",
            cwd=tmp_path, env=env,
        )  # fmt: skip

    assert done.returncode == 3, done.stderr
    assert_no_forged_line(done.stderr)
    title = f"⏺ hx › safe\\nagent: server fx trusted ({forged_tool}) {{}}"
    assert title in done.stderr.splitlines()


def test_an_imported_documents_hostile_key_is_quoted_on_the_problems_one_line(
    agent_home: Path, tmp_path: Path
) -> None:
    document = tmp_path / "servers.json"
    hostile = {"command": "echo", f"bogus\n{FORGED}\r": 1}
    document.write_text(json.dumps({"mcpServers": {"fx": hostile}}))

    done = run("mcp", "import", str(document))

    assert done.returncode == 1
    assert_no_forged_line(done.stderr)
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith(f"agent: {document}: mcpServers.fx.bogus\\n{FORGED}\\x0d")


def test_the_chat_greeting_shows_a_hostile_project_path_on_one_line(tmp_path: Path) -> None:
    import pexpect

    project = tmp_path / f"proj\u202egnp\n{FORGED}"
    project.mkdir()
    env = dict(os.environ, OPENAI_API_KEY="sk-test", HOME=str(tmp_path), TERM="xterm")
    env.update(PROMPT_TOOLKIT_NO_CPR="1", NO_COLOR="1")
    env.pop("AGENT_MODEL", None)
    chat = spawn_agent(
        ["--model", "openai/fake-model", "--api-base", "http://127.0.0.1:9/v1"],
        env,
        project,
        dimensions=(40, 200),
    )
    chat.expect("/exit quits")
    greeting = str(chat.before)
    chat.expect("›")
    chat.send("/exit\r")
    chat.expect(pexpect.EOF)
    chat.close()

    assert f"proj\\u202egnp\\n{FORGED}" in greeting
    assert "\u202e" not in greeting
    assert not any(line.startswith(FORGED) for line in greeting.splitlines())


def test_the_chats_mcp_tools_listing_shows_each_hostile_tool_on_one_line(
    hostile_server: None, agent_home: Path, tmp_path: Path
) -> None:
    import pexpect

    from tests.pty_chat import FakeModelProcess

    fake = FakeModelProcess(tmp_path, [])
    env = dict(os.environ, OPENAI_API_KEY="sk-test", HOME=str(tmp_path), TERM="xterm")
    env.update(PROMPT_TOOLKIT_NO_CPR="1", NO_COLOR="1")
    env.pop("AGENT_MODEL", None)
    trust_hx_for(agent_home, env)
    try:
        chat = spawn_chat(fake.base_url, env, tmp_path, dimensions=(40, 200))
        chat.expect("MCP server hx ready")
        chat.expect("›")
        chat.send("/mcp tools hx\r")
        chat.expect("Select with:")
        listing = str(chat.before)
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
    finally:
        fake.stop()

    lines = listing.splitlines()
    assert any(
        "safe\\nagent: server fx trusted  harmless\\u2028agent: all calls approved\\x0dX" in line
        for line in lines
    ), listing
    assert any("read_\\u202eelif  zero\\u200bwidth \\U000e0041tag" in line for line in lines)
    for char in ("\u2028", "\u202e", "\u200b", "\U000e0041"):
        assert char not in listing
    assert not any(line.startswith(FORGED) for line in lines)


def test_a_settings_key_with_a_line_break_prints_as_one_agent_line(
    agent_home: Path, tmp_path: Path
) -> None:
    agent_home.mkdir()
    text = f'"model\\n{FORGED}": x\n'
    (agent_home / "settings.yaml").write_text(text, encoding="utf-8")

    done = run("-p", "hi", cwd=tmp_path, env={**os.environ, "AGENT_HOME": str(agent_home)})

    assert done.returncode != 0
    assert_no_forged_line(done.stderr)
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert f"\\n{FORGED}" in done.stderr


def test_the_chats_tools_listing_shows_a_hostile_tools_name_and_description_on_one_line(
    hostile_server: None, agent_home: Path, tmp_path: Path
) -> None:
    """`/tools` prints each description's first line only: what follows a line break (LF, CR,
    U+2028, NEL) never reaches the screen as a line of its own, and the name's tricks show as
    escapes."""
    import pexpect

    from tests.pty_chat import FakeModelProcess

    fake = FakeModelProcess(tmp_path, [])
    env = dict(os.environ, OPENAI_API_KEY="sk-test", HOME=str(tmp_path), TERM="xterm")
    env.update(PROMPT_TOOLKIT_NO_CPR="1", NO_COLOR="1")
    env.pop("AGENT_MODEL", None)
    trust_hx_for(agent_home, env)
    try:
        chat = spawn_chat(fake.base_url, env, tmp_path, dimensions=(40, 200))
        chat.expect("MCP server hx ready")
        chat.expect("›")
        chat.send("/mcp enable hx\r")
        chat.expect("›")
        chat.send("/tools\r")
        chat.expect("MCP server hx")
        chat.expect("›")
        listing = str(chat.before)
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
    finally:
        fake.stop()

    lines = listing.splitlines()
    forged = "  mcp__hx__safe_agent__server_fx_trusted (asks every time)  harmless"
    assert forged in lines, listing
    assert "all calls approved" not in listing  # after the description's first line break
    assert any("mcp__hx__read__elif (asks every time)  zero\\u200bwidth" in line for line in lines)
    for char in ("\u2028", "\u202e", "\u200b", "\U000e0041", "\x85"):
        assert char not in listing
    assert not any(line.lstrip().startswith("agent:") for line in lines)
