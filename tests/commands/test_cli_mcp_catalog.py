"""`agent mcp resources|read|prompts|prompt` as a person uses them: the real `agent` binary in a
subprocess, resources_server.py as its child (trusted once per module at a pseudo-terminal)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.commands.test_cli_mcp_console import (
    agent,
    at_terminal,
    import_servers,
    summary,
    trace_messages,
)
from tests.fixtures.mcp_fixtures import pid_alive, server_path
from tests.fixtures.servers.tools_server import tiny_png

RS = {"command": sys.executable, "args": [server_path("resources_server.py")]}


def resources_server_pids(home: Path) -> list[int]:
    """Every resources_server process started with this AGENT_HOME, from the servers' logs."""
    text = "".join(log.read_text(encoding="utf-8") for log in (home / "mcp").glob("*.log"))
    return [int(pid) for pid in re.findall(r"^resources_server starting pid=(\d+)$", text, re.M)]


def run(*args: str) -> tuple[int, str, str]:
    """`agent ARGS` without a terminal; afterwards no resources_server of it is left running."""
    result = agent(*args)
    home = Path(os.environ["AGENT_HOME"])
    assert [pid for pid in resources_server_pids(home) if pid_alive(pid)] == []
    return result.returncode, result.stdout, result.stderr


@pytest.fixture(scope="module")
def trusted_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An AGENT_HOME with `rs` (resources_server.py) trusted by answering yes at a terminal."""
    home = tmp_path_factory.mktemp("catalog-home")
    env = {**os.environ, "AGENT_HOME": str(home)}
    import_servers({"rs": RS}, env=env)
    status, shown = at_terminal("mcp", "trust", "rs", answers=[("[y/N] ", "y")], env=env)
    assert status == 0, shown
    return home


@pytest.fixture
def rs(trusted_home: Path, agent_home: Path) -> str:
    """This test's AGENT_HOME holds the trusted (not enabled) server rs."""
    agent_home.mkdir()
    for name in ("mcp-servers.json", "trust.key"):
        shutil.copy2(trusted_home / name, agent_home / name)
    return "rs"


def test_resources_lists_every_page_and_the_templates(rs: str) -> None:
    status, out, err = run("mcp", "resources", rs)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["URI", "NAME", "TYPE", "DESCRIPTION"]
    uris = [line.split()[0] for line in lines[1:28]]
    assert uris == [f"fixture://notes/{i}" for i in range(1, 26)] + [
        "fixture://image.png",
        "fixture://data.bin",
    ]
    assert "27 resources on MCP server 'rs'." in lines
    assert lines[-2].split() == ["fixture://greeting/{name}", "greeting", "text/plain"]
    assert lines[-1] == "1 resource template on MCP server 'rs'."
    assert err == ""


def test_read_prints_text_and_describes_a_blob(rs: str) -> None:
    assert run("mcp", "read", rs, "fixture://greeting/bob") == (0, "Hello, bob!\n", "")
    status, out, _ = run("mcp", "read", rs, "fixture://data.bin")
    assert (status, out) == (
        0,
        "[binary: application/octet-stream, 256 bytes; save it with --output FILE]\n",
    )


def test_read_output_writes_the_bytes_and_never_overwrites_without_force(
    rs: str, tmp_path: Path
) -> None:
    target = tmp_path / "picture.png"
    status, out, err = run("mcp", "read", rs, "fixture://image.png", "--output", str(target))
    assert status == 0, err
    assert target.read_bytes() == tiny_png()
    assert out == f"Wrote {target} (binary: image/png, {len(tiny_png())} bytes).\n"

    status, out, err = run("mcp", "read", rs, "fixture://data.bin", "--output", str(target))
    assert (status, out) == (1, "")
    assert err == f"agent: --output: {target} exists; choose another file or add --force\n"
    assert target.read_bytes() == tiny_png()  # unchanged

    status, _, err = run(
        "mcp", "read", rs, "fixture://data.bin", "--output", str(target), "--force"
    )
    assert status == 0, err
    assert target.read_bytes() == bytes(range(256))


def test_prompts_lists_each_prompt_with_its_arguments(rs: str) -> None:
    status, out, err = run("mcp", "prompts", rs)
    assert status == 0, err
    assert out.splitlines() == [
        "review: Review some code.",
        "  code (required): The code",
        "  style (optional): concise or detailed",
        "hello: Say hello.",
        "2 prompts on MCP server 'rs'.",
    ]


def test_prompt_prints_its_messages_text_image_and_embedded_resource(rs: str) -> None:
    status, out, err = run("mcp", "prompt", rs, "review", "--args", '{"code": "x = 1"}')
    assert status == 0, err
    assert out.splitlines() == [
        "# A code review",
        "[user] Review this code (concise):",
        "  x = 1",
        f"[user] image: image/png, {len(tiny_png())} bytes",
        "[assistant] resource fixture://notes/1:",
        "  Note 1.",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("mcp", "prompt", "rs", "review"),
            "agent: prompt 'review' of MCP server 'rs' needs the argument 'code'; give it with "
            '--args, e.g. --args \'{"NAME": "VALUE"}\' (see: agent mcp prompts rs)',
        ),
        (
            ("mcp", "prompt", "rs", "nope"),
            "agent: MCP server 'rs' has no prompt 'nope' (its prompts: review, hello)",
        ),
        (
            ("mcp", "prompt", "rs", "review", "--args", "{code: 1}"),
            "agent: --args: not valid JSON (Expecting property name enclosed in double quotes "
            "at column 2)",
        ),
        (
            ("mcp", "prompt", "rs", "review", "--args", '{"code": 1}'),
            "agent: --args: the value of 'code' must be a string (prompt arguments are text)",
        ),
        (
            ("mcp", "read", "ghost", "fixture://notes/1"),
            "agent: no MCP server named 'ghost' (configured: rs)",
        ),
        (
            ("mcp", "read", "rs", "fixture://nope"),
            "agent: MCP server 'rs' returned an error while reading a resource: "
            "no resource fixture://nope (code -32602)",
        ),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_one(
    rs: str, args: tuple[str, ...], message: str
) -> None:
    status, out, err = run(*args)
    assert (status, out) == (1, "")
    assert err.splitlines() == [message]


def test_trace_prints_the_json_rpc_of_each_command(rs: str) -> None:
    status, _, err = run("mcp", "prompts", rs, "--trace")
    assert status == 0
    sent = [summary(message) for arrow, message in trace_messages(err) if arrow == "->"]
    # The first start probes the era (server/discover), then the handshake of this legacy fixture.
    assert "prompts/list" in sent and sent[:2] == ["server/discover", "initialize"]
    for args in (("resources", rs), ("read", rs, "fixture://notes/2"), ("prompt", rs, "hello")):
        status, _, err = run("mcp", *args, "--trace")
        assert status == 0
        methods = [summary(message) for _, message in trace_messages(err)]
        assert {"resources/list", "resources/read", "prompts/get"} & set(methods)


def test_an_untrusted_server_without_a_terminal_is_refused_and_never_started(
    agent_home: Path,
) -> None:
    import_servers({"new": RS})
    status, out, err = run("mcp", "resources", "new")
    assert (status, out) == (1, "")
    assert "not trusted" in err and "agent mcp trust new" in err
    assert not (agent_home / "mcp" / "new.log").exists() or resources_server_pids(agent_home) == []


def test_the_json_of_a_prompt_argument_is_passed_as_given(rs: str) -> None:
    args = json.dumps({"code": "print('hi')", "style": "detailed"})
    status, out, _ = run("mcp", "prompt", rs, "review", "--args", args)
    assert status == 0
    assert out.splitlines()[1:3] == ["[user] Review this code (detailed):", "  print('hi')"]


def test_inspect_counts_every_page_of_resources_not_just_the_first(rs: str) -> None:
    status, out, err = run("mcp", "inspect", rs)
    assert status == 0, err
    lines = out.splitlines()
    start = lines.index("resources (27):")
    assert lines[start + 27] == "  fixture://data.bin  data"
    assert lines[start + 28 :] == [
        "prompts (2):",
        "  review: Review some code.",
        "  hello: Say hello.",
    ]
