"""How `agent -p` starts (issue 40): the real `agent -p` against the scripted model server and
real fixture MCP servers, with no terminal. A deferred server starts only when one of its tools
is called, a model that is down is said at once, `--mcp`/`--no-mcp` choose the servers of a
run, OPENAI_BASE_URL takes the direct path, and a request too large for llama.cpp's window is
said with the server's numbers."""

from __future__ import annotations

import json
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pexpect
import pytest

from agent.tools.search_tool import SEARCH_TOOL
from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import save_trusted_stdio_server, server_command
from tests.pty_chat import AGENT, spawn_agent
from tests.ui.test_oneshot import model_args, oneshot_env, run_without_terminal, spawn_in_terminal

__all__ = ["oneshot_env"]  # the fixture, used by name


def test_a_request_too_large_for_llama_cpp_says_its_numbers(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    overflow = {"exceed_context": {"n_prompt_tokens": 9540, "n_ctx": 2048}}
    with FakeOpenAI([overflow, overflow]) as fake:
        done = run_without_terminal(
            oneshot_env, tmp_path, [*model_args(fake), "-p", "hi", "--output-format", "json"]
        )

    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)["error"]
    assert "(9,540 tokens sent, the window holds 2,048)" in error
    assert "empty answer" not in error


def loaded_modules(done: subprocess.CompletedProcess[str]) -> set[str]:
    """The modules a `python -X importtime` run imported."""
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}


def run_importtime(
    env: dict[str, str], cwd: Path, args: list[str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agent", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        start_new_session=True,
    )


def test_openai_base_url_with_an_openai_model_takes_the_direct_path(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    # The openai SDK's convention, which litellm honours: the server named by its address is
    # spoken to directly, as with --api-base (litellm's import is most of a one-shot run).
    with FakeOpenAI([{"text": "Direct."}]) as fake:
        env = {**oneshot_env, "OPENAI_BASE_URL": fake.base_url}
        done = run_importtime(env, tmp_path, ["--model", "openai/fake-model", "-p", "hi"])
        requests = fake.requests

    assert (done.returncode, done.stdout) == (0, "Direct.\n"), done.stderr
    assert requests[0]["headers"]["user-agent"].startswith("agent/")  # ours, not the SDK's
    loaded = loaded_modules(done)
    assert "agent.model.openai_compatible" in loaded
    assert {name for name in loaded if name.split(".")[0] in ("litellm", "openai")} == set()


def test_api_base_wins_over_openai_base_url(tmp_path: Path, oneshot_env: dict[str, str]) -> None:
    with FakeOpenAI([{"text": "From --api-base."}]) as fake, FakeOpenAI([]) as other:
        env = {**oneshot_env, "OPENAI_BASE_URL": other.base_url}
        done = run_without_terminal(env, tmp_path, [*model_args(fake), "-p", "hi"])
        asked_other = other.requests

    assert (done.returncode, done.stdout) == (0, "From --api-base.\n"), done.stderr
    assert asked_other == []


def test_saved_api_base_wins_over_openai_base_url(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    settings = Path(oneshot_env["AGENT_HOME"]) / "settings.yaml"
    with FakeOpenAI([{"text": "From settings."}]) as fake, FakeOpenAI([]) as other:
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(f"model: openai/fake-model\napi_base: {fake.base_url}\n")
        env = {**oneshot_env, "OPENAI_BASE_URL": other.base_url}
        done = run_without_terminal(env, tmp_path, ["-p", "hi"])
        asked_other = other.requests

    assert (done.returncode, done.stdout) == (0, "From settings.\n"), done.stderr
    assert asked_other == []


def test_a_model_litellm_cannot_route_is_refused_at_start_as_model_says(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    with FakeOpenAI([]) as fake:
        done = run_without_terminal(
            oneshot_env, tmp_path, ["--model", "anthropc/claude", "-p", "hi"]
        )
        asked = fake.requests

    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith(
        "agent: litellm cannot tell which provider serves 'anthropc/claude': type it with its "
        "provider, e.g. openai/anthropc/claude"
    ), done.stderr
    assert asked == []


def test_a_model_litellm_cannot_route_ends_the_chat_before_it_starts(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    chat = spawn_in_terminal(f"{AGENT} --model anthropc/claude", oneshot_env, tmp_path)
    chat.expect_exact("litellm cannot tell which provider serves 'anthropc/claude'")
    chat.expect(pexpect.EOF)
    chat.close()

    assert chat.exitstatus == 2


# -- MCP servers: deferred ones start when called, the model is not kept waiting ----------------


def save_server(
    agent_home: Path, env: dict[str, str], name: str, command: list[str], defer: str = "auto"
) -> None:
    """`command` saved as the stdio server `name`, trusted for `env`, enabled, with echo
    selected (cached), and its tools deferred by `defer`."""
    from agent.mcp.config.definitions import fingerprint
    from agent.mcp.store import McpStore

    save_trusted_stdio_server(agent_home, name, command, env)
    store = McpStore(agent_home / "mcp-servers.json")
    fp = fingerprint(store.load().find(name))
    store.update_state(name, fp, lambda state: replace(state, defer=defer))


def offered(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request["body"].get("tools", [])]


def test_a_deferred_server_is_not_started_while_its_listing_serves_the_search(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    marker = tmp_path / "deferred-started"
    save_server(agent_home, oneshot_env, "fx", server_command("tools_server.py"))
    save_server(
        agent_home, oneshot_env, "dx", server_command("marking_server.py", str(marker)), "on"
    )
    turns = [
        {"tool_calls": [{"id": "s1", "name": SEARCH_TOOL, "arguments": {"query": "echo"}}]},
        {"text": "Found it."},
    ]
    with FakeOpenAI(turns) as fake:
        done = run_without_terminal(oneshot_env, tmp_path, [*model_args(fake), "-p", "find"])
        requests = fake.requests

    assert (done.returncode, done.stdout) == (0, "Found it.\n"), done.stderr
    assert {"mcp__fx__echo", SEARCH_TOOL} <= set(offered(requests[0]))
    assert "mcp__dx__echo" not in offered(requests[0])
    assert "mcp__dx__echo" in requests[1]["body"]["messages"][-1]["content"]  # the search found it
    assert not marker.exists()  # its cached listing answered; the server never ran
    assert "dx" not in done.stderr


def test_a_deferred_server_s_call_denied_without_a_terminal_never_starts_it(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    marker = tmp_path / "deferred-started"
    save_server(
        agent_home, oneshot_env, "dx", server_command("marking_server.py", str(marker)), "on"
    )
    search = {"id": "s1", "name": SEARCH_TOOL, "arguments": {"query": "echo"}}
    call = {"id": "c1", "name": "mcp__dx__echo", "arguments": {"text": "hi"}}
    turns = [{"tool_calls": [search]}, {"tool_calls": [call]}, {"text": "Denied."}]
    with FakeOpenAI(turns) as fake:
        done = run_without_terminal(oneshot_env, tmp_path, [*model_args(fake), "-p", "echo"])

    assert done.returncode == 3, done.stderr
    assert not marker.exists()


def test_a_deferred_server_starts_when_its_tool_is_called_after_the_person_said_yes(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    marker = tmp_path / "deferred-started"
    save_server(
        agent_home, oneshot_env, "dx", server_command("marking_server.py", str(marker)), "on"
    )
    search = {"id": "s1", "name": SEARCH_TOOL, "arguments": {"query": "echo"}}
    call = {"id": "c1", "name": "mcp__dx__echo", "arguments": {"text": "lazy hello"}}
    turns = [{"tool_calls": [search]}, {"tool_calls": [call]}, {"text": "Echoed."}]
    with FakeOpenAI(turns) as fake:
        command = shlex.join([AGENT, *model_args(fake), "-p", "echo"])
        agent = spawn_in_terminal(command, oneshot_env, tmp_path)
        agent.expect_exact("Approve?")
        assert not marker.exists()  # asked before anything starts
        agent.send("y")
        agent.expect_exact("Echoed.")
        agent.expect(pexpect.EOF)
        agent.close()
        requests = fake.requests

    assert agent.exitstatus == 0
    assert marker.exists()
    assert requests[2]["body"]["messages"][-1]["content"] == "lazy hello"


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections: bound, never listening."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield bound.getsockname()[1]


def test_a_model_that_is_down_is_said_at_once_not_after_the_servers_start(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str], refusing_port: int
) -> None:
    # A server that takes ten minutes to start (its start-up timeout allows it): the run must
    # not wait for it to say that nothing answers where the model should be.
    save_server(agent_home, oneshot_env, "slow", server_command("slow_start_server.py", "600"))
    (agent_home / "settings.yaml").write_text("mcp:\n  startup_timeout_seconds: 900\n")
    api_base = f"http://127.0.0.1:{refusing_port}/v1"
    args = ["--model", "openai/fake-model", "--api-base", api_base, "-p", "hi"]
    done = run_without_terminal(oneshot_env, tmp_path, args)  # bounded at 60 s

    assert done.returncode == 1, done.stderr
    assert f"nothing answers at 127.0.0.1:{refusing_port}" in done.stderr


# -- --mcp, --no-mcp, --verbose ---------------------------------------------------------------


def two_servers(agent_home: Path, env: dict[str, str]) -> None:
    save_server(agent_home, env, "fx", server_command("tools_server.py"))
    save_server(agent_home, env, "gx", server_command("tools_server.py", "--name", "gx"))


def test_mcp_names_the_servers_of_this_run_and_no_mcp_none(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    two_servers(agent_home, oneshot_env)
    with FakeOpenAI([{"text": "One."}, {"text": "None."}, {"text": "Both."}]) as fake:
        only_fx = run_without_terminal(
            oneshot_env, tmp_path, [*model_args(fake), "--mcp", "fx", "-p", "hi"]
        )
        none = run_without_terminal(
            oneshot_env, tmp_path, [*model_args(fake), "--no-mcp", "-p", "hi"]
        )
        both = run_without_terminal(
            oneshot_env, tmp_path, [*model_args(fake), "--mcp", "fx,gx", "-p", "hi"]
        )
        requests = fake.requests

    assert (only_fx.returncode, none.returncode, both.returncode) == (0, 0, 0), only_fx.stderr
    assert "mcp__gx__echo" not in offered(requests[0])
    assert "mcp__fx__echo" in offered(requests[0])
    assert [name for name in offered(requests[1]) if name.startswith("mcp__")] == []
    assert {"mcp__fx__echo", "mcp__gx__echo"} <= set(offered(requests[2]))


def test_mcp_with_unknown_names_is_an_error_naming_them(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    two_servers(agent_home, oneshot_env)
    with FakeOpenAI([]) as fake:
        done = run_without_terminal(
            oneshot_env, tmp_path, [*model_args(fake), "--mcp", "fx,nope,gone", "-p", "hi"]
        )
        asked = fake.requests

    assert done.returncode == 2, done.stderr
    assert "--mcp: no MCP servers named nope, gone (configured: fx, gx)" in done.stderr
    assert asked == []


def test_mcp_and_no_mcp_choose_the_servers_of_a_chat_too(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    two_servers(agent_home, oneshot_env)
    with FakeOpenAI([]) as fake:
        command = shlex.join([AGENT, *model_args(fake), "--mcp", "nope"])
        chat = spawn_in_terminal(command, oneshot_env, tmp_path)
        chat.expect_exact("--mcp: no MCP server named nope (configured: fx, gx)")
        chat.expect(pexpect.EOF)
        chat.close()
    assert chat.exitstatus == 2


def test_mcp_chooses_the_servers_of_a_chat(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    two_servers(agent_home, oneshot_env)
    with FakeOpenAI([{"text": "Only gx here."}]) as fake:
        chat = spawn_agent([*model_args(fake), "--mcp", "gx"], oneshot_env, tmp_path)
        chat.expect_exact("MCP server gx ready")
        chat.expect_exact("›")
        chat.send("hi\r")
        chat.expect_exact("Only gx here.")
        chat.expect_exact("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        requests = fake.requests

    assert "mcp__gx__echo" in offered(requests[0])
    assert "mcp__fx__echo" not in offered(requests[0])


def test_ready_lines_go_to_the_servers_log_unless_verbose(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    # The call is approved, so the run uses the server (whose start it waits for).
    save_server(agent_home, oneshot_env, "fx", server_command("tools_server.py"))
    echo = {"id": "c1", "name": "mcp__fx__echo", "arguments": {"text": "x"}}
    turns = [{"tool_calls": [echo]}, {"text": "Quiet."}, {"tool_calls": [echo]}, {"text": "Loud."}]
    errors: list[str] = []
    with FakeOpenAI(turns) as fake:
        for number, flags in enumerate(([], ["--verbose"])):
            err = tmp_path / f"stderr-{number}"
            argv = shlex.join([AGENT, *model_args(fake), *flags, "-p", "hi"])
            agent = spawn_in_terminal(f"{argv} 2>{shlex.quote(str(err))}", oneshot_env, tmp_path)
            agent.expect_exact("Approve?")
            agent.send("y")
            agent.expect(pexpect.EOF)
            agent.close()
            assert agent.exitstatus == 0
            errors.append(err.read_text(encoding="utf-8"))

    quiet, loud = errors
    assert "MCP server fx ready" not in quiet, quiet
    assert "MCP server fx ready (1 tool)" in loud, loud
    log = (agent_home / "mcp" / "fx.log").read_text(encoding="utf-8")
    assert log.count("MCP server fx ready (1 tool)") == 2
