"""Attack: a server's secret in the media type of what it returns or lists (a blob's, an
image's, an audio clip's, a listed resource's): a protocol field, kept by masking so a secret
cannot change what a message is, but quoted in the notes the model and the terminal read
("[resource: note://dump, application/x-dump+SECRET, 3 bytes]"). Such a type reaches nothing:
not the model's request in `agent -p` (a tool result, read_mcp_resource, list_mcp_resources),
not `agent mcp call`, `agent mcp read` or `agent mcp resources`. It becomes
application/octet-stream. Through the real CLI, a pty and the scripted model; stdio and HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.fake_openai import FakeOpenAI
from tests.pty_chat import spawn_agent
from tests.security.inputs_helpers import run_agent, tool_results
from tests.security.leaky_servers import SERVER, Leaky, leaky_server

OPAQUE = "application/octet-stream"


@pytest.fixture(params=["stdio", "http"])
def leaky(request: pytest.FixtureRequest, agent_home: Path, tmp_path: Path) -> Iterator[Leaky]:
    with leaky_server(request.param, agent_home, tmp_path / "home") as server:
        yield server


def agent(leaky: Leaky, cwd: Path, *args: str) -> str:
    """`agent ARGS` without a terminal; its stdout and stderr (it must succeed)."""
    done = run_agent(list(args), leaky.env, cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_a_secret_in_a_media_type_never_reaches_the_cli(leaky: Leaky, tmp_path: Path) -> None:
    called = agent(leaky, tmp_path, "mcp", "call", SERVER, "query", "--args", '{"sql": "x"}')
    read = agent(leaky, tmp_path, "mcp", "read", SERVER, "note://dump")
    resources = agent(leaky, tmp_path, "mcp", "resources", SERVER)

    for shown in (called, read, resources):
        assert leaky.secret not in shown
    assert f"[resource: note://dump, {OPAQUE}, 3 bytes]" in called
    assert f"[audio: {OPAQUE}, 3 bytes; not played]" in called
    assert f"'{OPAQUE}' is not an image type" in called
    assert OPAQUE in read
    assert OPAQUE in resources


def test_a_secret_in_a_media_type_never_reaches_the_models_request(
    leaky: Leaky, tmp_path: Path
) -> None:
    agent(leaky, tmp_path, "mcp", "tools", SERVER)  # lists them and selects them
    calls = [
        {"id": "c1", "name": "mcp__lx__query", "arguments": {"sql": "x"}},
        {"id": "c2", "name": "read_mcp_resource", "arguments": {"server": SERVER, "uri": "note://dump"}},
        {"id": "c3", "name": "list_mcp_resources", "arguments": {"server": SERVER}},
    ]  # fmt: skip
    with FakeOpenAI([{"tool_calls": calls}, {"text": "Looked."}]) as fake:
        args = ["--model", "openai/fake-model", "--api-base", fake.base_url, "-p", "look"]
        one_shot = spawn_agent(args, leaky.env, tmp_path)
        for number in range(1, len(calls) + 1):  # the answer's calls in one dialog
            one_shot.expect(f"Approve call {number} of {len(calls)}")
            one_shot.send("y")
        one_shot.expect("Looked.")
        one_shot.expect(pexpect.EOF)
        shown = one_shot.before
        one_shot.close()
        requests = fake.requests

    assert one_shot.exitstatus == 0, shown
    assert leaky.secret not in json.dumps(requests) + shown
    results = tool_results(requests[1])
    assert f"[resource: note://dump, {OPAQUE}, 3 bytes]" in results["c1"]
    assert f"[audio: {OPAQUE}, 3 bytes; not played]" in results["c1"]
    assert OPAQUE in results["c2"]
    assert f"note://dump dump ({OPAQUE})" in results["c3"]
