"""run_command as a person meets it: the real `agent` in a pseudo-terminal, the scripted model
asking to run programs, the approval showing the exact command line, the folder and the fence,
y / n / r; `agent -p` with and without a terminal; a machine without bubblewrap; and a skill
written the way the public collections write them (SKILL.md saying "run python3 scripts/...",
with references and assets) used end to end."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pexpect

from agent.tools.command_tool import RAN_WITHOUT_NETWORK
from agent.ui.oneshot import NO_TERMINAL_REASON
from tests.fake_openai import FakeOpenAI
from tests.pty_chat import finish, oneshot_in_terminal, oneshot_without_terminal, scripted_chat
from tests.security.run_command_helpers import PYTHON, require_sandbox

DECLINED = "Error: The person declined this tool call."


def run_call(call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "run_command", "arguments": arguments}]}


def tool_result(request: dict[str, Any]) -> str:
    return str(request["body"]["messages"][-1]["content"])


def test_approved_commands_run_fenced_and_declined_ones_do_not_run(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    require_sandbox()
    turns = [
        run_call("c1", argv=["sh", "-c", "echo made > made.txt; echo done"]),
        run_call("c2", argv=["touch", "declined.txt"]),
        run_call("c3", argv=["touch", "reasoned.txt"], network=True),
        {"text": "Ran one of three."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("build it\r")
        chat.expect("command: sh -c 'echo made > made.txt; echo done'")
        chat.expect("Approve\\?")
        shown = chat.before
        assert f"in: {tmp_path}" in shown
        assert "sandbox: bubblewrap: writes only in the project and a private /tmp" in shown
        assert "network: off (unix sockets too)" in shown
        chat.send("y")
        chat.expect("command: touch declined.txt")
        chat.expect("Approve\\?")
        chat.send("n")
        chat.expect("command: touch reasoned.txt")
        chat.expect("network: ON for this call \\(the model asked for it\\)")
        chat.expect("Approve\\?")
        chat.send("r")
        chat.expect("Reason for the model:")
        chat.send("no network for this\r")
        chat.expect("Ran one of three.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert tool_result(requests[1]) == "exit code 0\nstdout:\ndone"
    assert tool_result(requests[2]) == DECLINED
    assert tool_result(requests[3]) == f"{DECLINED} Their reason: no network for this"
    assert (tmp_path / "made.txt").read_text() == "made\n"
    assert not (tmp_path / "declined.txt").exists() and not (tmp_path / "reasoned.txt").exists()


def test_a_command_that_cannot_run_is_refused_without_asking(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [run_call("c1", argv=["ls"], cwd="../.."), {"text": "Refused."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("look around\r")
        chat.expect("Refused.")
        assert "Approve?" not in chat.before
        chat.expect("›")
        finish(chat)
        requests = fake.requests()
    assert "'../..' is outside the project directory" in tool_result(requests[1])


def test_one_shot_asks_on_the_terminal_and_without_one_denies(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    require_sandbox()
    turns = [run_call("c1", argv=["sh", "-c", "echo hi > hi.txt"]), {"text": "Ran."}]
    with FakeOpenAI(turns) as fake:
        agent = oneshot_in_terminal(fake.base_url, "run it", chat_env, tmp_path)
        agent.expect("Approve\\?")
        assert "command: sh -c 'echo hi > hi.txt'" in agent.before
        agent.send("y")
        agent.expect("Ran.")
        agent.expect(pexpect.EOF)
        agent.close()
    assert agent.exitstatus == 0
    assert (tmp_path / "hi.txt").read_text() == "hi\n"

    turns = [run_call("c1", argv=["touch", "nobody.txt"]), {"text": "Not run."}]
    with FakeOpenAI(turns) as fake:
        done = oneshot_without_terminal(fake.base_url, "run it", chat_env, tmp_path)
        requests = fake.requests
    assert done.returncode == 3, done.stderr
    assert tool_result(requests[1]) == f"{DECLINED} Their reason: {NO_TERMINAL_REASON}"
    assert not (tmp_path / "nobody.txt").exists()


def test_without_bubblewrap_the_approval_says_the_command_is_unsandboxed(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    bin_dir = tmp_path / "bin-without-bwrap"  # a PATH with a python and nothing else
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    env = dict(chat_env, PATH=str(bin_dir))
    turns = [run_call("c1", argv=["python3", "-c", "print('unfenced')"]), {"text": "Ran it."}]
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.expect("›")
        chat.send("run it\r")
        chat.expect("sandbox: NONE: bubblewrap is not installed \\(apt install bubblewrap\\)")
        chat.expect("this command runs with all of your access")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Ran it.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()
    assert tool_result(requests[1]) == "exit code 0\nstdout:\nunfenced"

    # commands.unsandboxed: deny refuses before asking.
    settings = Path(chat_env["AGENT_HOME"]) / "settings.yaml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("commands:\n  unsandboxed: deny\n")
    turns = [run_call("c1", argv=["python3", "-c", "print('x')"]), {"text": "Denied."}]
    (tmp_path / "second").mkdir()
    with scripted_chat(tmp_path / "second", turns, env, cwd=tmp_path) as (chat, fake):
        chat.expect("›")
        chat.send("run it\r")
        chat.expect("Denied.")
        assert "Approve?" not in chat.before
        chat.expect("›")
        finish(chat)
        requests = fake.requests()
    assert "commands.unsandboxed: deny" in tool_result(requests[1])


SKILL_MD = """---
name: csv-report
description: Turn a CSV file into a short Markdown report. Use when the user asks for a report, a
  summary or totals of a CSV file.
license: Apache-2.0
allowed-tools: Bash(python3:*) Read
---

# CSV report

Make a report of a CSV file with the bundled script. Run it from this skill's folder:

```bash
python3 scripts/report.py INPUT.csv OUTPUT.md
```

- INPUT.csv and OUTPUT.md are absolute paths in the user's project.
- What each column means is in [references/columns.md](references/columns.md); read it when a
  column is unclear.
- The report's layout is `assets/template.md`; the script fills it in.
"""

REPORT_PY = '''#!/usr/bin/env python3
"""Fill assets/template.md with the totals of a CSV file."""
import csv
import sys
import time
from pathlib import Path

source, target = Path(sys.argv[1]), Path(sys.argv[2])
rows = list(csv.DictReader(source.open()))
total = sum(int(row["amount"]) for row in rows)
template = Path("assets/template.md").read_text()
target.write_text(template.format(rows=len(rows), total=total))
print(f"wrote {target.name}: {len(rows)} rows, total {total}")
'''


def test_a_skill_with_scripts_runs_end_to_end_from_its_folder(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    require_sandbox()
    skill = Path(chat_env["HOME"]) / ".agents" / "skills" / "csv-report"
    (skill / "scripts").mkdir(parents=True)
    (skill / "references").mkdir()
    (skill / "assets").mkdir()
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "scripts" / "report.py").write_text(REPORT_PY)
    (skill / "references" / "columns.md").write_text("amount: euros, whole numbers\n")
    (skill / "assets" / "template.md").write_text("# Sales\n\n{rows} sales, {total} euros.\n")
    (tmp_path / "sales.csv").write_text("item,amount\ntea,3\ncake,4\nbread,5\n")
    argv = ["python3", "scripts/report.py", str(tmp_path / "sales.csv"), str(tmp_path / "r.md")]
    turns = [
        {"tool_calls": [{"id": "a1", "name": "activate_skill",
                         "arguments": {"name": "csv-report"}}]},
        {"tool_calls": [{"id": "a2", "name": "read_skill_resource",
                         "arguments": {"name": "csv-report", "path": "references/columns.md"}}]},
        run_call("a3", argv=argv, skill="csv-report"),
        {"text": "The report is in r.md."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("report on sales.csv\r")
        chat.expect(re.escape(f"in: {skill}"))
        chat.expect("skill: csv-report: runs in the skill's folder \\(read-only\\)")
        chat.expect("Approve\\?")
        shown = chat.before
        assert "allowed-tools): 'Bash(python3:*) Read'; that does not answer for you" in shown
        chat.send("y")
        chat.expect("The report is in r.md.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    system = requests[0]["body"]["messages"][0]["content"]
    assert "csv-report" in system  # offered in the catalog
    assert "call run_command with skill='csv-report'" in tool_result(requests[1])
    assert "python3 scripts/report.py" in requests[1]["body"]["messages"][0]["content"]
    assert tool_result(requests[2]) == "amount: euros, whole numbers\n"
    assert tool_result(requests[3]) == "exit code 0\nstdout:\nwrote r.md: 3 rows, total 12"
    assert (tmp_path / "r.md").read_text() == "# Sales\n\n3 sales, 12 euros.\n"
    assert os.listdir(skill / "scripts") == ["report.py"]  # no __pycache__ written there


def test_ctrl_c_while_a_command_runs_ends_it_and_all_it_started(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    require_sandbox()
    marker = f"marker-{os.getpid()}-{tmp_path.name}"
    sleeper = f"{PYTHON} -c 'import time; time.sleep(300)' {marker}"
    turns = [run_call("c1", argv=["sh", "-c", f"{sleeper} & {sleeper}"]), {"text": "unused"}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("wait\r")
        chat.expect("Approve\\?")
        chat.send("y")
        deadline = time.monotonic() + 20
        while not _running(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _running(marker), "the command never started"
        chat.send("\x03")
        chat.expect("›")
        deadline = time.monotonic() + 10
        while _running(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(marker), "the command outlived its Ctrl-C"
        finish(chat)


def _running(marker: str) -> bool:
    return bool(subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout)


CONNECT = (
    "import socket\n"
    "try:\n"
    "    socket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n"
    "    print('connected')\n"
    "except OSError as error:\n"
    "    print('no connection:', error.strerror or error)\n"
)


def _pending(listener: socket.socket) -> int:
    """Connections that reached the listener since the last look (taken off its queue)."""
    count = 0
    while True:
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            return count
        connection.close()
        count += 1


def test_a_call_asking_for_the_network_can_be_approved_without_it(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    require_sandbox()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    argv = [PYTHON, "-c", CONNECT.format(port=listener.getsockname()[1])]
    turns = [
        run_call("c1", argv=argv, network=True),
        run_call("c2", argv=argv, network=True),
        run_call("c3", argv=["true"]),
        {"text": "Tried twice."},
    ]
    with listener, scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("connect\r")
        chat.expect("network: ON for this call \\(the model asked for it\\)")
        chat.expect("Approve\\?")
        chat.expect("offline \\(no network\\)")
        chat.send("o")
        chat.expect("approved without the network")
        chat.expect("network: ON for this call")  # the second call: yes, with the network
        chat.expect("Approve\\?")
        offline_connections = _pending(listener)
        chat.send("y")
        chat.expect("command: true")  # a call without the network has no offline choice
        chat.expect("Approve\\?")
        chat.expect("and stop the turn")
        question = chat.before
        chat.send("y")
        chat.expect("Tried twice.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()
        online_connections = _pending(listener)

    offline = tool_result(requests[1])
    assert offline.startswith(RAN_WITHOUT_NETWORK + "exit code 0\nstdout:\nno connection:"), offline
    assert offline_connections == 0
    assert tool_result(requests[2]) == "exit code 0\nstdout:\nconnected"
    assert online_connections == 1
    assert "offline" not in question
