"""One-shot mode as a script meets it: the real `agent -p` against the scripted fake model
server and a trusted fixture MCP server, with no terminal at all (a new session: /dev/tty
cannot be opened) and with a pseudo-terminal where the person answers the approval."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest

from agent.ui.oneshot import NO_TERMINAL_REASON
from tests import deadlines
from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import save_trusted_echo_server
from tests.pty_chat import AGENT, pty_env

TIMEOUT = deadlines.PROCESS
ECHO = "mcp__fx__echo"
DECLINED = "Error: The person declined this tool call."


@pytest.fixture
def oneshot_fx_server(agent_home: Path, oneshot_env: dict[str, str]) -> None:
    """A trusted, enabled tools_server named fx with only `echo` selected, trusted for the
    environment the tests start agent with."""
    save_trusted_echo_server(agent_home, oneshot_env)


@pytest.fixture
def oneshot_env(agent_home: Path, tmp_path: Path) -> dict[str, str]:
    env = pty_env(agent_home, tmp_path)
    del env["NO_COLOR"]  # colours must stay off because stdout is not a terminal
    return env


def model_args(fake: FakeOpenAI) -> list[str]:
    return ["--model", "openai/fake-model", "--api-base", fake.base_url]


def run_without_terminal(
    env: dict[str, str], cwd: Path, args: list[str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """`agent ARGS` in a new session: no controlling terminal, stdin and stdout are pipes."""
    return subprocess.run(
        [AGENT, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        start_new_session=True,
    )


def spawn_in_terminal(command: str, env: dict[str, str], cwd: Path) -> pexpect.spawn:
    """A shell command line in a pseudo-terminal, which is its controlling terminal."""
    return pexpect.spawn(
        "/bin/sh",
        ["-c", command],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(40, 120),
    )


def echo_then_answer(text: str) -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"id": "c1", "name": ECHO, "arguments": {"text": text}}]},
        {"text": "All done here."},
    ]


def last_user_message(request: dict[str, Any]) -> str:
    return str(request["body"]["messages"][-1]["content"])


def test_without_a_terminal_text_prints_only_the_answer_and_the_mcp_call_is_denied(
    tmp_path: Path, oneshot_fx_server: None, oneshot_env: dict[str, str]
) -> None:
    turns = [
        {
            "text": "Let me \x1b[31mtry\x1b[0m.",
            "tool_calls": [{"id": "c1", "name": ECHO, "arguments": {"text": "hi"}}],
        },
        {"text": "Could not echo."},
    ]
    with FakeOpenAI(turns) as fake:
        done = run_without_terminal(oneshot_env, tmp_path, [*model_args(fake), "-p", "echo hi"])
        requests = fake.requests

    assert done.returncode == 3, done.stderr
    assert done.stdout == "Let me \\x1b[31mtry\\x1b[0m.\n\nCould not echo.\n"
    assert "⏺ fx › echo (mcp__fx__echo)" in done.stderr
    assert f"✗ declined: {NO_TERMINAL_REASON}" in done.stderr
    assert "1 tool call denied (exit code 3)" in done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    assert requests[1]["body"]["messages"][-1] == {
        "role": "tool",
        "content": f"{DECLINED} Their reason: {NO_TERMINAL_REASON}",
        "tool_call_id": "c1",
    }


def test_without_a_terminal_json_reports_the_denied_call_with_the_reason(
    tmp_path: Path, oneshot_fx_server: None, oneshot_env: dict[str, str]
) -> None:
    with FakeOpenAI(echo_then_answer("secret")) as fake:
        args = [*model_args(fake), "-p", "echo secret", "--output-format", "json"]
        done = run_without_terminal(oneshot_env, tmp_path, args)

    assert done.returncode == 3, done.stderr
    result = json.loads(done.stdout)
    assert result["tool_calls"] == [
        {
            "id": "c1",
            "name": ECHO,
            "arguments": {"text": "secret"},
            "approved": False,
            "reason": NO_TERMINAL_REASON,
            "result": f"The person declined this tool call. Their reason: {NO_TERMINAL_REASON}",
            "is_error": True,
        }
    ]
    assert NO_TERMINAL_REASON.startswith("no person is present")
    assert result["text"] == "All done here."
    assert (result["exit_code"], result["error"], result["model"]) == (3, None, "openai/fake-model")
    assert result["session_id"]
    assert result["usage"]["prompt_tokens"] > 0 and result["usage"]["completion_tokens"] > 0


def test_without_a_terminal_stream_json_is_one_object_per_line_ending_with_the_result(
    tmp_path: Path, oneshot_fx_server: None, oneshot_env: dict[str, str]
) -> None:
    with FakeOpenAI(echo_then_answer("\x1b]0;title\x07")) as fake:
        args = [*model_args(fake), "-p", "go", "--output-format", "stream-json"]
        done = run_without_terminal(oneshot_env, tmp_path, args)

    assert done.returncode == 3, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [event["type"] for event in events]
    assert kinds[:4] == ["usage", "tool_call", "approval", "tool_result"]
    assert kinds[-1] == "result" and kinds.count("result") == 1
    assert "text" in kinds and kinds.count("usage") == 2
    assert events[1] == {
        "type": "tool_call",
        "id": "c1",
        "name": ECHO,
        "arguments": {"text": "\x1b]0;title\x07"},
        "server": "fx",
    }
    assert events[2] == {
        "type": "approval",
        "id": "c1",
        "name": ECHO,
        "approved": False,
        "reason": NO_TERMINAL_REASON,
    }
    streamed = "".join(event["text"] for event in events if event["type"] == "text")
    assert streamed == events[-1]["text"] == "All done here."
    assert events[-1]["exit_code"] == 3
    assert events[-1]["tool_calls"][0]["approved"] is False


def test_piped_stdin_follows_the_prompt_after_a_blank_line(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    with FakeOpenAI([{"text": "A summary."}, {"text": "Plain."}]) as fake:
        with_prompt = run_without_terminal(
            oneshot_env, tmp_path, [*model_args(fake), "-p", "summarise"], stdin="line 1\nline 2\n"
        )
        stdin_only = run_without_terminal(
            oneshot_env, tmp_path, model_args(fake), stdin="just stdin\n"
        )
        requests = fake.requests

    assert (with_prompt.returncode, with_prompt.stdout) == (0, "A summary.\n")
    assert (stdin_only.returncode, stdin_only.stdout) == (0, "Plain.\n")
    assert last_user_message(requests[0]) == "summarise\n\nline 1\nline 2\n"
    assert last_user_message(requests[1]) == "just stdin\n"


def test_nothing_to_send_is_a_usage_error(tmp_path: Path, oneshot_env: dict[str, str]) -> None:
    with FakeOpenAI([]) as fake:
        done = run_without_terminal(oneshot_env, tmp_path, [*model_args(fake), "-p"], stdin=" \n")

    assert done.returncode == 2
    assert done.stderr == "agent: nothing to send: give a prompt with -p or pipe text to stdin\n"


def test_a_model_error_exits_1_and_json_carries_the_error(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    no_retry_wait = {"retry-after-ms": "1"}
    server_error = {"error": {"status": 500}, "headers": no_retry_wait}
    with FakeOpenAI([{"error": {"status": 401}}, server_error, server_error, server_error]) as fake:
        as_json = run_without_terminal(
            oneshot_env, tmp_path, [*model_args(fake), "-p", "hi", "--output-format", "json"]
        )
        as_text = run_without_terminal(oneshot_env, tmp_path, [*model_args(fake), "-p", "hi"])

    assert as_json.returncode == 1, as_json.stderr
    result = json.loads(as_json.stdout)
    assert (result["exit_code"], result["text"], result["tool_calls"]) == (1, "", [])
    assert "Incorrect API key" in result["error"] or "API key" in result["error"]
    assert as_text.returncode == 1
    assert as_text.stdout == ""
    assert "error: " in as_text.stderr


def test_ctrl_c_stops_the_turn_with_exit_130(tmp_path: Path, oneshot_env: dict[str, str]) -> None:
    with FakeOpenAI([{"text": "Never finished", "hang": True}]) as fake:
        agent = subprocess.Popen(
            [AGENT, *model_args(fake), "-p", "hi", "--output-format", "json"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=oneshot_env,
            cwd=tmp_path,
            start_new_session=True,
        )
        fake.wait_for_requests(1, timeout=TIMEOUT)
        agent.send_signal(signal.SIGINT)
        out, err = agent.communicate(timeout=TIMEOUT)

    assert agent.returncode == 130, err
    result = json.loads(out)
    assert (result["exit_code"], result["error"]) == (130, "interrupted")


def modules_loaded_by_one_shot(env: dict[str, str], cwd: Path, answer: str = "Fast.") -> set[str]:
    """Every module `agent -p hi` imported (python -X importtime), after checking its answer."""
    with FakeOpenAI([{"text": answer}]) as fake:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "agent", *model_args(fake), "-p", "hi"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd,
            timeout=60,
            start_new_session=True,
        )
    assert (done.returncode, done.stdout) == (0, f"{answer}\n"), done.stderr
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}


def test_the_one_shot_path_loads_no_prompt_toolkit_and_none_of_the_chats_terminal_code(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    loaded = modules_loaded_by_one_shot(oneshot_env, tmp_path)

    assert {name for name in loaded if name.startswith("prompt_toolkit")} == set()
    # rich arrives with litellm (httpx's command line imports it); ours must not ask for it
    assert {name for name in loaded if name.startswith("agent.ui")} == {
        "agent.ui",
        "agent.ui.launch",
        "agent.ui.interrupt",  # Ctrl-C cancels the turn, as in the chat
        "agent.ui.oneshot",
        "agent.ui.tool_calls",  # the tool-call lines it shares with the chat, plain text
    }


def _mcp_modules(loaded: set[str]) -> set[str]:
    return {
        name
        for name in loaded
        if name.split(".")[0] in ("mcp", "mcp_types", "jsonschema")
        or name in ("agent.mcp.runtime", "agent.mcp.client.connection", "agent.mcp.store")
    }


def test_one_shot_with_no_server_configured_imports_nothing_of_mcp_not_even_our_store(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    # The SDK's import costs about 0.3 s of a one-shot run (issue 17); with no server it is waste.
    loaded = modules_loaded_by_one_shot(oneshot_env, tmp_path)

    assert "agent.model.openai_compatible" in loaded  # the probe sees what was imported
    assert _mcp_modules(loaded) == set()


def test_one_shot_to_an_openai_compatible_server_never_imports_litellm(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    # litellm's import is about 2 s of CPU: for a server named by its address
    # (openai/NAME with an api_base) it would route nothing (agent/openai_compatible.py).
    loaded = modules_loaded_by_one_shot(oneshot_env, tmp_path)

    assert {name for name in loaded if name.split(".")[0] in ("litellm", "openai")} == set()


def test_one_shot_with_servers_but_none_enabled_imports_nothing_of_the_mcp_sdk(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    document = '{"mcpServers": {"fx": {"command": "python3", "args": ["-c", "pass"]}}}'
    subprocess.run(
        [sys.executable, "-m", "agent", "mcp", "import", "-"],
        input=document,
        env=oneshot_env,
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS,
        check=True,
    )

    loaded = modules_loaded_by_one_shot(oneshot_env, tmp_path)

    assert _mcp_modules(loaded) == {"agent.mcp.store"}  # read to see that none is enabled


def test_one_shot_with_an_enabled_server_imports_the_sdk_it_needs(
    tmp_path: Path, oneshot_fx_server: None, oneshot_env: dict[str, str]
) -> None:
    loaded = modules_loaded_by_one_shot(oneshot_env, tmp_path)

    assert {"mcp", "agent.mcp.runtime"} <= loaded  # the same probe does see the SDK


def test_one_shot_with_an_enabled_stdio_server_imports_neither_oauth_nor_the_sdks_server_side(
    tmp_path: Path, oneshot_fx_server: None, oneshot_env: dict[str, str]
) -> None:
    # A local server never logs in, and a client needs none of the SDK's server side nor its
    # high-level Client: together about 0.14 s of the run's CPU (round 14, perf).
    loaded = modules_loaded_by_one_shot(oneshot_env, tmp_path)

    assert {"mcp", "mcp.client.session", "agent.mcp.runtime"} <= loaded  # the probe sees them
    oauth = {"agent.mcp.oauth.runtime", "mcp.client.auth", "jwt", "cryptography.x509"}
    assert loaded & oauth == set()
    server_side = ("mcp.server", "mcp.client.client", "starlette", "uvicorn", "sse_starlette")
    assert {name for name in loaded if name.startswith(server_side)} == set()


def test_in_a_terminal_the_person_approves_and_the_answer_is_printed(
    tmp_path: Path, oneshot_fx_server: None, oneshot_env: dict[str, str]
) -> None:
    with FakeOpenAI(echo_then_answer("approved-text")) as fake:
        command = shlex.join([AGENT, *model_args(fake), "-p", "please echo"])
        agent = spawn_in_terminal(command, oneshot_env, tmp_path)
        agent.expect("Approve\\?")
        assert 'text: "approved-text"' in agent.before
        agent.send("y")
        agent.expect("approved")
        agent.expect("All done here.")
        agent.expect(pexpect.EOF)
        agent.close()
        requests = fake.requests

    assert agent.exitstatus == 0
    assert requests[1]["body"]["messages"][-1]["content"] == "approved-text"


def test_in_a_terminal_with_pipes_the_question_goes_to_the_terminal_and_n_denies(
    tmp_path: Path, oneshot_fx_server: None, oneshot_env: dict[str, str]
) -> None:
    out = tmp_path / "out.json"
    with FakeOpenAI(echo_then_answer("denied-text")) as fake:
        agent_line = shlex.join([AGENT, *model_args(fake), "-p", "summarise", "--output-format"])
        command = f"printf 'piped text' | {agent_line} json > {shlex.quote(str(out))}"
        agent = spawn_in_terminal(command, oneshot_env, tmp_path)
        agent.expect("Approve\\?")
        agent.send("n")
        agent.expect(pexpect.EOF)
        agent.close()
        requests = fake.requests

    assert agent.exitstatus == 3
    assert last_user_message(requests[0]) == "summarise\n\npiped text"
    result = json.loads(out.read_text())
    assert result["tool_calls"] == [
        {
            "id": "c1",
            "name": ECHO,
            "arguments": {"text": "denied-text"},
            "approved": False,
            "reason": None,
            "result": "The person declined this tool call.",
            "is_error": True,
        }
    ]
    assert (result["text"], result["exit_code"]) == ("All done here.", 3)


def test_in_a_terminal_stream_json_records_the_approval_and_the_tool_result(
    tmp_path: Path, oneshot_fx_server: None, oneshot_env: dict[str, str]
) -> None:
    out = tmp_path / "events.jsonl"
    with FakeOpenAI(echo_then_answer("approved-text")) as fake:
        agent_line = shlex.join(
            [AGENT, *model_args(fake), "-p", "go", "--output-format", "stream-json"]
        )
        agent = spawn_in_terminal(f"{agent_line} > {shlex.quote(str(out))}", oneshot_env, tmp_path)
        agent.expect("Approve\\?")
        agent.send("y")
        agent.expect(pexpect.EOF)
        agent.close()

    assert agent.exitstatus == 0
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e for e in events if e["type"] in ("approval", "tool_result")] == [
        {"type": "approval", "id": "c1", "name": ECHO, "approved": True, "reason": None},
        {
            "type": "tool_result",
            "id": "c1",
            "name": ECHO,
            "result": "approved-text",
            "is_error": False,
        },
    ]
    assert events[-1]["type"] == "result"
    assert (events[-1]["exit_code"], events[-1]["text"]) == (0, "All done here.")
    assert events[-1]["tool_calls"][0]["approved"] is True


def test_continue_with_p_goes_on_from_the_latest_session(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    with FakeOpenAI([{"text": "Blue."}, {"text": "You said blue."}]) as fake:
        json_args = [*model_args(fake), "--output-format", "json"]
        first = run_without_terminal(oneshot_env, tmp_path, [*json_args, "-p", "say blue"])
        second = run_without_terminal(
            oneshot_env, tmp_path, [*json_args, "--continue", "-p", "what did you say?"]
        )
        requests = fake.requests

    assert (first.returncode, second.returncode) == (0, 0), second.stderr
    assert [m["content"] for m in requests[1]["body"]["messages"][1:]] == [
        "say blue",
        "Blue.",
        "what did you say?",
    ]
    assert json.loads(second.stdout)["session_id"] == json.loads(first.stdout)["session_id"]
