"""The chat as a person meets it: the real `agent` binary in a pseudo-terminal, the scripted
fake model server as a process, and a trusted fixture MCP server started by the chat."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.fixtures.mcp_fixtures import save_trusted_echo_server

AGENT = str(Path(sys.executable).with_name("agent"))
TIMEOUT = 30


class FakeModelProcess:
    """`python -m tests.fake_openai` with a script; requests are read back from its log."""

    def __init__(self, tmp_path: Path, turns: list[dict[str, Any]]) -> None:
        script = tmp_path / "turns.json"
        script.write_text(json.dumps(turns))
        self.log = tmp_path / "requests.jsonl"
        repo = Path(__file__).resolve().parent.parent
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.fake_openai", "--script", str(script),
             "--requests-log", str(self.log)],
            cwd=repo,
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.startswith("PORT "), line
        self.base_url = f"http://127.0.0.1:{int(line.split()[1])}/v1"

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        assert self.process.stdout is not None
        self.process.stdout.close()


@pytest.fixture
def trusted_fixture_server(agent_home: Path, chat_env: dict[str, str]) -> None:
    """A trusted, enabled tools_server named fx with only `echo` selected, trusted for the
    environment the tests start agent with."""
    save_trusted_echo_server(agent_home, chat_env)


@pytest.fixture
def chat_env(agent_home: Path, tmp_path: Path) -> Iterator[dict[str, str]]:
    env = dict(os.environ)
    (tmp_path / "home").mkdir(exist_ok=True)
    env.update(
        HOME=str(tmp_path / "home"),  # no user skills from the real ~/.agents
        AGENT_HOME=str(agent_home),
        OPENAI_API_KEY="sk-test",
        PROMPT_TOOLKIT_NO_CPR="1",
        NO_COLOR="1",
        TERM="xterm",
    )
    env.pop("AGENT_MODEL", None)
    yield env


def spawn_chat(base_url: str, env: dict[str, str], cwd: Path) -> pexpect.spawn:
    return pexpect.spawn(
        AGENT,
        ["--model", "openai/fake-model", "--api-base", base_url],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(40, 120),
    )


def test_a_chat_approves_one_mcp_call_denies_another_with_a_reason_and_the_model_sees_both(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    echo = "mcp__fx__echo"
    turns = [
        {"tool_calls": [{"id": "c1", "name": echo, "arguments": {"text": "approved-text"}}]},
        {"tool_calls": [{"id": "c2", "name": echo, "arguments": {"text": "denied-text"}}]},
        {"text": "All done here."},
    ]
    fake = FakeModelProcess(tmp_path, turns)
    try:
        chat = spawn_chat(fake.base_url, chat_env, tmp_path)
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("please echo twice\r")
        chat.expect("Approve\\?")
        assert '"text": "approved-text"' in chat.before
        chat.send("y")
        chat.expect("approved")
        # The second dialog, by its own arguments: a redraw of the first one must not count.
        chat.expect('"text": "denied-text"')
        chat.expect("Approve\\?")
        chat.send("r")
        chat.expect("Reason for the model:")
        chat.send("not now\r")
        chat.expect("All done here.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        assert chat.exitstatus == 0
        requests = fake.requests()
    finally:
        fake.stop()

    assert len(requests) == 3
    tools_offered = [t["function"]["name"] for t in requests[0]["body"]["tools"]]
    assert tools_offered == [
        "read_file",
        "list_files",
        "activate_skill",  # the bundled skills
        "read_skill_resource",
        echo,
        "list_mcp_resources",  # fx (an MCPServer) declares the resources capability
        "read_mcp_resource",
    ]
    second, third = requests[1]["body"]["messages"], requests[2]["body"]["messages"]
    assert second[-1] == {"role": "tool", "content": "approved-text", "tool_call_id": "c1"}
    assert third[-1] == {
        "role": "tool",
        "content": "Error: The person declined this tool call. Their reason: not now",
        "tool_call_id": "c2",
    }


def test_piped_stdin_without_a_terminal_runs_one_turn_and_denies_mcp_calls(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    from agent.ui.oneshot import NO_TERMINAL_REASON

    turns = [
        {"tool_calls": [{"id": "c1", "name": "mcp__fx__echo", "arguments": {"text": "x"}}]},
        {"text": "Could not run it."},
    ]
    fake = FakeModelProcess(tmp_path, turns)
    try:
        completed = subprocess.run(
            [AGENT, "--model", "openai/fake-model", "--api-base", fake.base_url],
            input="run echo",
            capture_output=True,
            text=True,
            env=chat_env,
            cwd=tmp_path,
            timeout=TIMEOUT,
            start_new_session=True,  # no controlling terminal: nobody can approve
        )
        requests = fake.requests()
    finally:
        fake.stop()
    assert completed.returncode == 3, completed.stderr  # a tool call was denied
    assert "Could not run it." in completed.stdout
    assert requests[1]["body"]["messages"][-1]["content"] == (
        f"Error: The person declined this tool call. Their reason: {NO_TERMINAL_REASON}"
    )


def test_a_key_typed_before_the_approval_question_appears_decides_nothing(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    turns = [
        {
            "text": "Thinking about it slowly before calling the tool.",
            "chunk_delay": 0.4,
            "tool_calls": [{"id": "c1", "name": "mcp__fx__echo", "arguments": {"text": "x"}}],
        },
        {"text": "Fine, not run."},
    ]
    fake = FakeModelProcess(tmp_path, turns)
    try:
        chat = spawn_chat(fake.base_url, chat_env, tmp_path)
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("go\r")
        chat.expect("Thinking")
        chat.send("y")  # typed ahead, while the answer streams
        chat.expect("Approve\\?")
        chat.send("n")
        chat.expect("Fine, not run.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    finally:
        fake.stop()
    assert requests[1]["body"]["messages"][-1]["content"] == (
        "Error: The person declined this tool call."
    )
