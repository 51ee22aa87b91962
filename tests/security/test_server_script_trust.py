"""A trusted stdio server's script is part of what was trusted (issue 39, finding 5).

A stdio server launched as `python3 server.py`, `python -m fx_server` or `node build/index.js`
runs a file of the project, and a sandboxed command (or a `git pull`) may rewrite it. Trust
covers that file's content: after a line that writes outside the project is added to it, the
next `agent -p hi` must not start the server (the canary stays unwritten) and must say that the
script it runs changed; `agent mcp trust` shows the change, and a yes starts it again. An
unchanged script keeps starting without a question, and a record made before trust covered
the script asks again, saying so. Real `agent`, scripted model, real interpreters.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pexpect
import pytest

from agent.home import mcp_store_path
from tests.pty_chat import pty_env, scripted_chat
from tests.security.test_trust_binds_launch import (
    TOOLS_SERVER,
    agent,
    at_terminal,
    import_servers,
    say_hi,
)

NODE = shutil.which("node")
# A script that runs the real fixture server: what the person reviewed and trusted.
PYTHON_SERVER = f"import runpy\nrunpy.run_path({TOOLS_SERVER!r}, run_name='__main__')\n"
NODE_SERVER = (
    "const { spawnSync } = require('child_process');\n"
    f"spawnSync({json.dumps(sys.executable)}, [{json.dumps(TOOLS_SERVER)}], "
    "{ stdio: 'inherit' });\n"
)


def _project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / ".git").mkdir(parents=True)
    return folder


def _layout(project: Path, how: str) -> tuple[dict[str, object], Path, str]:
    """The server's definition, the script it runs and the line that plants the canary."""
    canary = project.parent / "CANARY"  # outside the project
    if how == "node":
        assert NODE is not None
        script = project / "build" / "index.js"
        script.parent.mkdir()
        script.write_text(NODE_SERVER, encoding="utf-8")
        line = f"require('fs').writeFileSync({json.dumps(str(canary))}, 'ran');\n"
        return {"command": NODE, "args": ["build/index.js"]}, script, line
    line = f"open({str(canary)!r}, 'w').write('ran')\n"
    if how == "module":
        script = project / "fx_server.py"
        script.write_text(PYTHON_SERVER, encoding="utf-8")
        return {"command": sys.executable, "args": ["-u", "-m", "fx_server"]}, script, line
    script = project / "server.py"
    script.write_text(PYTHON_SERVER, encoding="utf-8")
    return {"command": sys.executable, "args": ["server.py"]}, script, line


def _add_server(project: Path, definition: dict[str, object]) -> None:
    """Saved, trusted at a terminal, and on: the chat starts it."""
    import_servers({"fx": definition}, project)
    _trust(project)
    assert agent("mcp", "enable", "fx", cwd=project).returncode == 0


def _offered(requests: list[dict[str, object]]) -> list[str]:
    body = requests[0]["body"]
    assert isinstance(body, dict)
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def _trust(project: Path) -> str:
    status, shown = at_terminal("mcp", "trust", "fx", cwd=project, answers=[("[y/N] ", "y")])
    assert status == 0, shown
    return shown


def _starts(project: Path) -> None:
    done, requests = say_hi(project)
    assert done.returncode == 0, done.stderr
    assert "mcp__fx__echo" in _offered(requests), done.stderr
    assert "not trusted" not in done.stderr, done.stderr


def _modes() -> list[object]:
    node = pytest.mark.skipif(NODE is None, reason="node is not installed")
    return ["script", "module", pytest.param("node", marks=node)]


@pytest.mark.parametrize("how", _modes())
def test_a_changed_server_script_is_not_run_until_trusted_again(
    tmp_path: Path, agent_home: Path, how: str
) -> None:
    project = _project(tmp_path)
    definition, script, line = _layout(project, how)
    _add_server(project, definition)
    _starts(project)

    # What a sandboxed command (or a pull) does: the project's script now plants a file.
    script.write_text(line + script.read_text(encoding="utf-8"), encoding="utf-8")
    done, requests = say_hi(project)

    assert done.returncode == 0, done.stderr
    assert not (project.parent / "CANARY").exists()
    assert not [name for name in _offered(requests) if name.startswith("mcp__fx__")]
    assert "MCP server fx is not trusted here: what it runs changed" in done.stderr
    assert f"the script it runs changed ({script})" in done.stderr

    shown = _trust(project)
    assert f"the script it runs changed ({script})" in shown
    assert f"script:      {script}" in shown
    _starts(project)
    assert (project.parent / "CANARY").exists()  # the person trusted the new script


def test_an_unchanged_script_keeps_starting_without_a_question(
    tmp_path: Path, agent_home: Path
) -> None:
    project = _project(tmp_path)
    definition, _script, _line = _layout(project, "script")
    _add_server(project, definition)

    _starts(project)
    _starts(project)


def test_a_record_made_before_trust_covered_the_script_asks_again(
    tmp_path: Path, agent_home: Path
) -> None:
    project = _project(tmp_path)
    definition, script, _line = _layout(project, "script")
    _add_server(project, definition)
    # The record as an older agent wrote it: the interpreter's content, nothing of the script.
    store = mcp_store_path()
    data = json.loads(store.read_text(encoding="utf-8"))
    for record in data["runtime"]["fx"]["trusted_launches"]:
        record["program"] = record["program"].split(" script ")[0]
    store.write_text(json.dumps(data), encoding="utf-8")

    done, requests = say_hi(project)

    assert not [name for name in _offered(requests) if name.startswith("mcp__fx__")]
    assert f"trust now covers the script it runs ({script})" in done.stderr, done.stderr


def test_a_missing_script_is_a_clear_message_naming_the_server_and_the_file(
    tmp_path: Path, agent_home: Path
) -> None:
    project = _project(tmp_path)
    definition, script, _line = _layout(project, "script")
    _add_server(project, definition)
    script.unlink()

    done, _requests = say_hi(project)

    assert done.returncode == 0, done.stderr
    assert f"MCP server fx cannot start: MCP server 'fx': its script {script} is missing" in (
        done.stderr
    ), done.stderr


def test_the_chat_asks_about_a_changed_script_and_a_no_leaves_it_unrun(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    project = _project(tmp_path)
    definition, script, line = _layout(project, "script")
    import_servers({"fx": definition}, project)
    status, shown = at_terminal(
        "mcp", "trust", "fx", cwd=project, env=env, answers=[("[y/N] ", "y")]
    )
    assert status == 0, shown
    assert agent("mcp", "enable", "fx", cwd=project, env=env).returncode == 0
    script.write_text(line + script.read_text(encoding="utf-8"), encoding="utf-8")

    with scripted_chat(tmp_path, [{"text": "ok"}], env, project) as (chat, _):
        chat.expect_exact("you are asked before your next message")
        chat.send("hi\r")
        chat.expect_exact("the script it runs changed")  # the path follows, wrapped
        chat.expect_exact(f"script:      {script}")
        chat.expect_exact("[y] yes  [n] no")
        chat.send("n")
        chat.expect_exact("Left off: server fx")
        chat.expect_exact("ok")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)

    assert not (project.parent / "CANARY").exists()
