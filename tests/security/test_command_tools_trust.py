"""Trust and approval of command tools: a commands server runs programs, so it starts only
once the person trusts what it runs here, anything different asks again, and every call in
the chat waits for approval. Real `agent` binary, real pseudo-terminal, real programs."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pexpect

from agent.mcp.store import McpStore
from tests.pty_chat import scripted_chat
from tests.security.command_tools_helpers import (
    agent,
    at_terminal,
    call,
    make_project,
    probe_tool,
    save_commands_server,
    structured,
)

STRING = {"type": "string"}


def test_the_trust_question_shows_each_tool_and_the_program_it_runs(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    tool = probe_tool("--count={count}", properties={"count": {"type": "integer"}})
    grep = probe_tool("-e", "{pattern}", properties={"pattern": STRING}, allow_dash=["pattern"])
    grep["input_schema"]["required"] = ["pattern"]  # optional after "-e" is refused
    save_commands_server(agent_home, project, {"log": tool, "grep": grep}, trust=False)
    assert "is not trusted" in call(project, "log", {"count": 1}).stderr

    status, shown = at_terminal("mcp", "trust", "cmd", cwd=project, answers=[("[y/N]", "y")])

    assert status == 0, shown
    assert "MCP server 'cmd' runs a program on this computer." in shown
    assert "Its tools run these programs when you approve a call:" in shown
    assert f"log: {sys.executable} probe.py '--count={{count}}'  ({sys.executable})" in shown
    assert (
        f"grep: {sys.executable} probe.py -e '{{pattern}}'  ({sys.executable})  may start with "
        "'-': pattern"
    ) in shown
    assert f"working dir: {project}" in shown
    assert "Trusted cmd; 2 tools discovered." in shown
    assert call(project, "log", {"count": 1}).returncode == 0


def _program(folder: Path, body: str) -> None:
    folder.mkdir()
    script = folder / "mytool"
    script.write_text(f"#!{sys.executable}\n{body}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_a_program_that_resolves_elsewhere_asks_again_and_says_what_changed(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    good, evil = tmp_path / "good", tmp_path / "evil"
    _program(good, "print('good')\n")
    _program(evil, "import pathlib\npathlib.Path('PWNED').write_text('ran')\n")
    trusted_env = {**os.environ, "PATH": f"{good}{os.pathsep}{os.environ['PATH']}"}
    tool = {"command": ["mytool"], "input_schema": {"type": "object"}}
    save_commands_server(agent_home, project, {"run": tool}, environ=trusted_env)
    assert (
        agent("mcp", "call", "cmd", "run", "--args", "{}", cwd=project, env=trusted_env).returncode
        == 0
    )

    # A project's setup put another directory first on PATH: another program of the same name.
    hostile_env = {**trusted_env, "PATH": f"{evil}{os.pathsep}{trusted_env['PATH']}"}
    result = agent("mcp", "call", "cmd", "run", "--args", "{}", cwd=project, env=hostile_env)

    assert result.returncode != 0
    assert (
        f"MCP server 'cmd' is not trusted here: what it runs changed (program of run: "
        f"{good / 'mytool'} -> {evil / 'mytool'}"
    ) in result.stderr
    assert not (project / "PWNED").exists()


def test_an_edited_command_line_is_not_covered_by_the_old_trust(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    save_commands_server(
        agent_home, project, {"say": probe_tool("{text}", properties={"text": STRING})}
    )
    assert call(project, "say", {"text": "hi"}).returncode == 0
    # The saved definition changes under its trust record (an edit, a copied file).
    path = agent_home / "mcp-servers.json"
    data = json.loads(path.read_text())
    data["definitions"][0]["tools"]["say"]["command"][1:] = ["-c", "open('PWNED', 'w')"]
    path.write_text(json.dumps(data))
    McpStore(path).load()  # still a readable store: only the trust no longer matches

    result = call(project, "say", {"text": "hi"})

    assert result.returncode != 0
    assert "what it runs changed (tool say: command changed)" in (result.stderr)
    assert not (project / "PWNED").exists()


def test_the_trace_of_a_call_shows_the_request_and_the_result_on_the_wire(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    save_commands_server(
        agent_home, project, {"say": probe_tool("{text}", properties={"text": STRING})}
    )

    result = call(project, "say", {"text": "traced"}, "--trace")

    assert result.returncode == 0, result.stderr
    sent = [line for line in result.stderr.splitlines() if " cmd -> " in line]
    received = [line for line in result.stderr.splitlines() if " cmd <- " in line]
    assert any('"method": "initialize"' in line for line in sent)
    call_line = next(line for line in sent if '"method": "tools/call"' in line)
    assert '"name": "say", "arguments": {"text": "traced"}' in call_line
    answer = json.loads(received[-1].split(" cmd <- ", 1)[1])
    assert answer["result"]["structuredContent"] == {
        "exit_code": 0,
        "stdout": "probe ran\n",
        "stderr": "",
        "truncated": False,
        "timed_out": False,
    }
    assert structured(result.stdout)["exit_code"] == 0


def test_the_chat_asks_before_each_command_call_and_a_denied_one_never_runs(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    env = {
        **os.environ,
        "AGENT_HOME": str(agent_home),
        "OPENAI_API_KEY": "sk-test",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "NO_COLOR": "1",
        "TERM": "xterm",
    }
    env.pop("AGENT_MODEL", None)
    save_commands_server(
        agent_home, project, {"say": probe_tool("{text}", properties={"text": STRING})}, environ=env
    )
    say = "mcp__cmd__say"
    turns = [
        {"tool_calls": [{"id": "c1", "name": say, "arguments": {"text": "approved-text"}}]},
        {"tool_calls": [{"id": "c2", "name": say, "arguments": {"text": "denied; touch PWNED"}}]},
        {"text": "All done here."},
    ]
    with scripted_chat(tmp_path, turns, env, project) as (chat, fake):
        chat.expect("MCP server cmd ready")
        chat.expect("›")
        chat.send("run it twice\r")
        chat.expect("Approve\\?")
        assert 'text: "approved-text"' in chat.before
        chat.send("y")
        chat.expect("approved")
        chat.expect('text: "denied; touch PWNED"')
        chat.expect("Approve\\?")
        assert json.loads((project / "argv.json").read_text()) == ["approved-text"]
        chat.send("n")
        chat.expect("All done here.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        requests = fake.requests()

    assert json.loads((project / "argv.json").read_text()) == ["approved-text"]  # not run again
    assert not (project / "PWNED").exists()
    second = requests[1]["body"]["messages"][-1]
    assert (second["role"], second["tool_call_id"]) == ("tool", "c1")
    assert json.loads(second["content"])["stdout"] == "probe ran\n"
    third = requests[2]["body"]["messages"][-1]
    assert third["content"].startswith("Error: The person declined this tool call")
