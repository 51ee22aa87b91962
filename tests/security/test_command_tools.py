"""Attacks on command tools (issue 13) by a hostile model answer: arguments chosen to run
something else than the definition says. Every call goes through the real `agent mcp call`
and the real in-process commands server, which runs real programs (a probe that records
the arguments it got)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from agent.processes.runner import OUTPUT_CAP_BYTES, run_command
from tests.fixtures.mcp_fixtures import pid_alive
from tests.security.command_tools_helpers import (
    agent,
    call,
    make_project,
    probe_tool,
    save_commands_server,
    structured,
)

STRING = {"type": "string"}


def test_a_value_starting_with_a_dash_is_refused_and_nothing_runs(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    save_commands_server(
        agent_home, project, {"show": probe_tool("{rev}", properties={"rev": STRING})}
    )

    result = call(project, "show", {"rev": "--output=/tmp/owned"})

    assert result.returncode == 1
    assert "argument 'rev' starts with '-'" in result.stderr
    assert '"allow_dash": ["rev"]' in result.stderr
    assert not (project / "argv.json").exists()  # the program never ran


def test_a_list_item_starting_with_a_dash_is_refused_too(tmp_path: Path, agent_home: Path) -> None:
    project = make_project(tmp_path)
    files = {"type": "array", "items": STRING}
    save_commands_server(
        agent_home, project, {"cat": probe_tool("{files}", properties={"files": files})}
    )

    result = call(project, "cat", {"files": ["a.txt", "-rf"]})

    assert result.returncode == 1
    assert "argument 'files' starts with '-'" in result.stderr
    assert not (project / "argv.json").exists()


def test_allow_dash_lets_one_named_argument_start_with_a_dash(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    tool = probe_tool("{pattern}", properties={"pattern": STRING}, allow_dash=["pattern"])
    save_commands_server(agent_home, project, {"grep": tool})

    result = call(project, "grep", {"pattern": "-v"})

    assert result.returncode == 0, result.stderr
    assert json.loads((project / "argv.json").read_text()) == ["-v"]


def test_shell_metacharacters_reach_the_program_verbatim_as_one_argument(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    tool = probe_tool("--message={text}", "{text}", properties={"text": STRING})
    save_commands_server(agent_home, project, {"say": tool})
    hostile = "x; touch PWNED && $(touch PWNED2) `touch PWNED3` | tee PWNED4 > PWNED5 * ~ \n'\""

    result = call(project, "say", {"text": hostile})

    assert result.returncode == 0, result.stderr
    assert json.loads((project / "argv.json").read_text()) == [f"--message={hostile}", hostile]
    assert sorted(path.name for path in project.iterdir()) == [".git", "argv.json", "probe.py"]


def test_the_program_cannot_be_a_placeholder_so_an_argument_never_chooses_it(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    document = {
        "mcpServers": {
            "cmd": {
                "type": "commands",
                "tools": {
                    "run": {
                        "command": ["{program}", "--version"],
                        "input_schema": {"type": "object", "properties": {"program": STRING}},
                    },
                    "tool": {
                        "command": ["git-{sub}"],
                        "input_schema": {"type": "object", "properties": {"sub": STRING}},
                    },
                },
            }
        }
    }
    path = tmp_path / "servers.json"
    path.write_text(json.dumps(document))

    result = agent("mcp", "import", str(path), cwd=project)

    assert result.returncode != 0
    assert "mcpServers.cmd.tools.run.command[0]: the program must be a literal" in result.stderr
    assert "mcpServers.cmd.tools.tool.command[0]: the program must be a literal" in result.stderr
    assert not (agent_home / "mcp-servers.json").exists()  # all or nothing: nothing saved


def test_an_argument_naming_a_program_is_only_ever_an_argument(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    save_commands_server(
        agent_home, project, {"run": probe_tool("{what}", properties={"what": STRING})}
    )

    result = call(project, "run", {"what": "/bin/sh"})

    assert result.returncode == 0, result.stderr
    assert json.loads((project / "argv.json").read_text()) == ["/bin/sh"]
    assert structured(result.stdout)["stdout"] == "probe ran\n"


def test_stdin_is_empty_so_a_program_reading_it_ends_at_once(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    reader = "import sys; data = sys.stdin.read(); print(len(data))"
    tool = {"command": [sys.executable, "-c", reader], "input_schema": {"type": "object"}}
    save_commands_server(agent_home, project, {"read": tool})

    result = call(project, "read", {})

    assert result.returncode == 0, result.stderr
    assert structured(result.stdout)["stdout"] == "0\n"


def test_a_non_zero_exit_is_an_error_with_its_code_and_output(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    failing = "import sys; print('out'); print('bad thing', file=sys.stderr); sys.exit(3)"
    tool = {"command": [sys.executable, "-c", failing], "input_schema": {"type": "object"}}
    save_commands_server(agent_home, project, {"fail": tool})

    result = call(project, "fail", {})

    assert result.returncode == 1
    assert f"{sys.executable} exited with code 3" in result.stderr
    assert structured(result.stderr) == {
        "exit_code": 3,
        "stdout": "out\n",
        "stderr": "bad thing\n",
        "truncated": False,
        "timed_out": False,
    }


GRANDPARENT = """\
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open("grandchild.pid", "w") as handle:
    handle.write(str(child.pid))
print("started", flush=True)
time.sleep(600)
"""


def test_a_timeout_kills_the_program_and_the_grandchildren_it_started(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    (project / "spawner.py").write_text(GRANDPARENT)
    tool = {
        "command": [sys.executable, "spawner.py"],
        "input_schema": {"type": "object"},
        "timeout": 2,
    }
    save_commands_server(agent_home, project, {"spawn": tool})

    result = call(project, "spawn", {})

    assert result.returncode == 1
    assert "timed out after 2 s: the program's process group was killed" in result.stderr
    outcome = structured(result.stderr)
    assert (outcome["exit_code"], outcome["timed_out"], outcome["stdout"]) == (
        None,
        True,
        "started\n",
    )
    grandchild = int((project / "grandchild.pid").read_text())
    assert not pid_alive(grandchild)


HUGE = """\
import sys
block = b"x" * 65536
for _ in range(5 * 16):  # 5 MiB to each stream, interleaved: a full pipe would block
    sys.stdout.buffer.write(block)
    sys.stderr.buffer.write(block)
sys.stdout.flush()
"""


@pytest.mark.anyio
async def test_huge_output_is_capped_at_one_mebibyte_per_stream_without_blocking(
    tmp_path: Path,
) -> None:
    script = tmp_path / "huge.py"
    script.write_text(HUGE)

    with anyio.fail_after(20):
        outcome = await run_command(
            [sys.executable, str(script)], cwd=str(tmp_path), env={}, timeout=15
        )

    assert (outcome.exit_code, outcome.truncated, outcome.timed_out) == (0, True, False)
    assert len(outcome.stdout) == len(outcome.stderr) == OUTPUT_CAP_BYTES


def test_huge_output_reaches_the_caller_cut_and_saying_so(tmp_path: Path, agent_home: Path) -> None:
    project = make_project(tmp_path)
    (project / "huge.py").write_text(HUGE)
    tool = {"command": [sys.executable, "huge.py"], "input_schema": {"type": "object"}}
    save_commands_server(agent_home, project, {"huge": tool})

    result = call(project, "huge", {})

    assert result.returncode == 0, result.stderr[:300]
    assert result.stdout.startswith("output cut: stdout and stderr are each kept up to 1 MiB\n")


def test_a_tool_timeout_longer_than_the_client_limit_still_ends_with_its_own_result(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    agent_home.mkdir(exist_ok=True)
    (agent_home / "settings.yaml").write_text("mcp:\n  tool_timeout_seconds: 1\n")
    sleeper = "import time; time.sleep(600)"
    tool = {"command": [sys.executable, "-c", sleeper], "input_schema": {"type": "object"}}
    save_commands_server(agent_home, project, {"sleep": {**tool, "timeout": 2}})

    result = call(project, "sleep", {})

    assert result.returncode == 1
    assert "timed out after 2 s: the program's process group was killed" in result.stderr


def test_a_nul_character_in_an_argument_is_refused_plainly(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    save_commands_server(
        agent_home, project, {"say": probe_tool("{text}", properties={"text": STRING})}
    )

    result = call(project, "say", {"text": "a\u0000b"})

    assert result.returncode == 1
    assert "argument 'text' contains a NUL character; nothing was run" in result.stderr
