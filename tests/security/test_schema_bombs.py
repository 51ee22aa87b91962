"""A server's schemas must not freeze the agent, even with no slow regular expression at all.

The attacks (second review of issue 14, G1-G3), from tests/fixtures/servers/schema_bomb_server.py:
a `$ref` chain doubling at each level (1.9 kB, 2**30 visits) as input or output schema,
`uniqueItems` over 8000 server-sent objects (jsonschema's O(n**2) fallback: 40 s), and a 32 kB
pattern the standard `re` compiles for 18 s (in check_schema, and in litellm on every request).
Each held the one event loop: every console tab, every server, and the chat beyond Ctrl-C.
Now every check ends within a second of CPU, and a tool over the listing limits is never offered.
The bounds are CPU time where the check runs (this process, the console's process, the `agent`
child), so a loaded machine does not fail them and a check that runs away still does.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agent.tools import validation
from agent.tools.schema_limits import regex_only_syntax, schema_limit_problem
from agent.tools.validation import SlowSchema, argument_problems, bounded_patterns
from tests.cost_meters import children_cpu_timed, cpu_timed, process_cpu_seconds
from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import (
    save_trusted_fixture_server,
    save_trusted_stdio_server,
    server_command,
)
from tests.fixtures.servers.schema_bomb_server import TOOLS
from tests.ui.test_oneshot import AGENT, model_args, run_without_terminal
from tests.web.console_helpers import running_console

TAKES_TOO_LONG = "the schema takes too long to check; the value cannot be checked"
SCHEMAS = {tool["name"]: tool for tool in TOOLS}
COMPILE_WITHHELD = "its schema has a pattern of 20,004 characters (at most 512)"
REFS_WITHHELD = "its schema has 70 $refs (at most 64)"
# Another tab's request while a bomb is checked: it is answered in milliseconds when the loop is
# free, and waited 18 s to hours when a check held it. Wall time, as a person waits; the margin
# is for a loaded machine.
OTHER_TAB_SECONDS = 5.0


def timed(check: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    started = time.monotonic()
    result = check(*args, **kwargs)
    return result, time.monotonic() - started


# --- through the real module ------------------------------------------------------------------


def test_a_ref_chain_that_doubles_is_refused_within_a_second() -> None:
    problems, took = cpu_timed(argument_problems, SCHEMAS["bomb"]["inputSchema"], {"q": "x"})

    assert took < 1.0
    assert problems == [TAKES_TOO_LONG]


@pytest.fixture
def roomy_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the checks' wall-clock budget 20 times its room, for tests that expect a check to
    finish rather than be cut short: another worker loading the machine can eat the 0.25 s.
    They bound the check's CPU time instead, and what they guard against (the standard `re`
    compiling, jsonschema's O(n**2) uniqueItems) runs inside one call no budget can interrupt."""
    real_budget = validation._Budget
    monkeypatch.setattr(validation, "_Budget", lambda seconds: real_budget(seconds * 20))


@pytest.mark.usefixtures("roomy_budget")
def test_a_pattern_the_standard_compiler_needs_seconds_for_is_checked_within_a_second() -> None:
    problems, took = cpu_timed(argument_problems, SCHEMAS["compile"]["inputSchema"], {"q": "x"})

    assert took < 1.0
    assert len(problems) == 1 and problems[0].startswith("q: 'x' does not match")


def result_problems(schema: dict[str, Any], content: Any) -> list[str]:
    """The mcp SDK's check of a result: check_schema, then iter_errors, inside our budget."""
    from jsonschema.validators import validator_for

    with bounded_patterns():
        validator_class = validator_for(schema)
        validator_class.check_schema(schema)
        return [error.message for error in validator_class(schema).iter_errors(content)]


def test_an_output_ref_chain_is_stopped_within_a_second() -> None:
    started = time.process_time()
    with pytest.raises(SlowSchema, match=TAKES_TOO_LONG):
        result_problems(SCHEMAS["out"]["outputSchema"], {"q": "x"})

    assert time.process_time() - started < 1.0


@pytest.mark.usefixtures("roomy_budget")
def test_unique_items_over_8000_objects_is_checked_within_a_second() -> None:
    schema = SCHEMAS["uniq"]["outputSchema"]
    items = [{"k": i} for i in range(8000)]

    problems, took = cpu_timed(result_problems, schema, {"xs": items})
    repeated = result_problems(schema, {"xs": [*items, {"k": 7.0}]})

    assert took < 1.0
    assert problems == []
    assert len(repeated) == 1 and repeated[0].endswith("has non-unique elements")


@pytest.mark.parametrize(
    ("items", "unique"),
    [
        ([1, 1.0], False),
        ([True, 1], True),
        ([False, 0], True),
        ([{"a": 1, "b": [2]}, {"b": [2.0], "a": 1}], False),
        ([[1, {"x": None}], [1, {"x": False}]], True),
        (["1", 1], True),
    ],
)
def test_unique_items_keeps_jsonschemas_equality(items: list[Any], unique: bool) -> None:
    schema = {"properties": {"xs": {"uniqueItems": True}}}

    assert (argument_problems(schema, {"xs": items}) == []) is unique


@pytest.mark.parametrize(
    "pattern",
    [
        "^(?:yes|no){e<=3}$",
        "a{i<=1}",
        "a{ d }",
        "\\L<options>",
        "(?V1)a",
        "(?r)a",
        "(?p)a+",
        "(?ie)a",
        "(?b:a)",
        "(?fi)^a",
    ],
)
def test_syntax_only_the_regex_module_reads_is_refused(pattern: str) -> None:
    schema = {"properties": {"q": {"type": "string", "pattern": pattern}}}

    assert regex_only_syntax(pattern) is not None
    assert schema_limit_problem(schema) is not None
    problems = argument_problems(schema, {"q": "yes"})
    assert len(problems) == 1 and "input schema is invalid" in problems[0]


@pytest.mark.parametrize("pattern", ["^[a-z]{2,3}$", "(?i)^x", "a{1}", "(?:ab)+", "(?P<n>a)(?P=n)"])
def test_ordinary_patterns_are_not_mistaken_for_regex_only_syntax(pattern: str) -> None:
    assert regex_only_syntax(pattern) is None


@pytest.mark.parametrize(
    ("tool", "problem"),
    [
        ("compile", COMPILE_WITHHELD),
        ("refs", REFS_WITHHELD),
        ("bomb", None),
    ],
)
def test_the_listing_limits_measure_a_tools_schemas(tool: str, problem: str | None) -> None:
    listed = SCHEMAS[tool]

    assert schema_limit_problem(listed["inputSchema"], listed.get("outputSchema")) == problem


def test_a_schema_too_large_or_too_deep_is_over_the_limits() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(40):
        deep = {"allOf": [deep]}
    large = {"properties": {f"p{i}": {"description": "x" * 100} for i in range(700)}}

    assert schema_limit_problem(deep) == "its schema is nested more than 32 deep"
    assert schema_limit_problem(large) == "its schema is 88 KiB (at most 64 KiB)"


# --- through the real console bridge over HTTP -----------------------------------------------


def save_bomb_server(home: Path, calls: Path) -> None:
    save_trusted_fixture_server(home, "bx", "schema_bomb_server.py", "--calls", str(calls))


@pytest.mark.parametrize(
    ("tool", "arguments", "status", "error"),
    [
        ("bomb", {"q": "x"}, 400, f"arguments: {TAKES_TOO_LONG}"),
        ("out", {}, 502, TAKES_TOO_LONG),
        ("uniq", {}, 200, None),
        (
            "compile",
            {"q": "x"},
            400,
            f"tool compile of MCP server bx cannot be offered: {COMPILE_WITHHELD}",
        ),
        ("refs", {}, 400, f"tool refs of MCP server bx cannot be offered: {REFS_WITHHELD}"),
    ],
)
def test_the_console_answers_each_bomb_within_a_second_and_keeps_answering_other_tabs(
    tmp_path: Path, tool: str, arguments: dict[str, Any], status: int, error: str | None
) -> None:
    calls = tmp_path / "calls.jsonl"
    save_bomb_server(tmp_path / "home", calls)
    with running_console(tmp_path / "home") as console, ThreadPoolExecutor(1) as pool:
        assert console.post("/api/servers/bx/connect", {}).status == 200
        assert console.post("/api/servers/bx/list", {"kind": "tools"}).status == 200

        body = {"tool": tool, "arguments": arguments}
        cpu_before = process_cpu_seconds(console.process.pid)
        called = pool.submit(console.post, "/api/servers/bx/call", body)
        other, other_took = timed(console.request, "GET", "/api/servers")
        answer = called.result(timeout=60)
        took = process_cpu_seconds(console.process.pid) - cpu_before  # the console's own CPU

    assert (other.status, other_took < OTHER_TAB_SECONDS) == (200, True)
    assert (answer.status, took < 1.0) == (status, True)
    if error is not None:
        assert answer.json()["error"].endswith(error)
    if status == 400:
        assert not calls.exists()  # nothing reached the server


# --- a one-shot chat --------------------------------------------------------------------------


def select_every_tool(agent_home: Path) -> None:
    """Offer the model every tool of the server, as listed (the store caches what it listed)."""
    from dataclasses import replace

    from agent.mcp.config.definitions import fingerprint
    from agent.mcp.store import CachedTool, McpStore

    store = McpStore(agent_home / "mcp-servers.json")
    cached = tuple(CachedTool(t["name"], t["description"], t["inputSchema"]) for t in TOOLS)
    store.update_state(
        "bx",
        fingerprint(store.load().find("bx")),
        lambda s: replace(s, enabled_tools=tuple(SCHEMAS), cached_tools=cached),
    )


def test_a_withheld_tool_never_reaches_the_model_and_a_bomb_call_is_refused(
    tmp_path: Path, agent_home: Path
) -> None:
    calls = tmp_path / "calls.jsonl"
    env = {
        **os.environ,
        "AGENT_HOME": str(agent_home),
        "HOME": str(tmp_path),
        "OPENAI_API_KEY": "sk-test",
    }
    env.pop("AGENT_MODEL", None)
    command = server_command("schema_bomb_server.py", "--calls", str(calls))
    save_trusted_stdio_server(agent_home, "bx", command, env, selected=None)
    select_every_tool(agent_home)
    turns = [
        {"tool_calls": [{"id": "c1", "name": "mcp__bx__bomb", "arguments": {"q": "x"}}]},
        {"text": "Understood."},
    ]
    with FakeOpenAI(turns) as fake:
        args = [*model_args(fake), "-p", "go", "--output-format", "json"]
        done, took = children_cpu_timed(run_without_terminal, env, tmp_path, args)
        requests = fake.requests

    assert json.loads(done.stdout)["text"] == "Understood.", done.stderr
    offered = {tool["function"]["name"] for tool in requests[0]["body"]["tools"]}
    assert {"mcp__bx__bomb", "mcp__bx__out", "mcp__bx__uniq"} <= offered
    assert not offered & {"mcp__bx__compile", "mcp__bx__refs"}
    said = f"tool compile of MCP server bx cannot be offered: {COMPILE_WITHHELD}"
    assert done.stderr.count(said) == 1
    tool_message = requests[1]["body"]["messages"][-1]
    assert tool_message["content"] == (
        f"Error: invalid arguments for mcp__bx__bomb: {TAKES_TOO_LONG}"
    )
    assert not calls.exists()
    assert took < 20  # CPU of agent and its server: start-up, two turns; the bomb took hours


# --- agent mcp call ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "said"),
    [
        ("refs", f"tool refs of MCP server bx cannot be offered: {REFS_WITHHELD}"),
        ("bomb", f"invalid arguments for bomb: {TAKES_TOO_LONG}"),
    ],
)
def test_agent_mcp_call_refuses_a_bomb_and_sends_nothing(
    tmp_path: Path, tool: str, said: str
) -> None:
    calls = tmp_path / "calls.jsonl"
    save_bomb_server(tmp_path / "home", calls)
    env = {**os.environ, "AGENT_HOME": str(tmp_path / "home")}
    arguments = json.dumps({"q": "x"} if tool == "bomb" else {})
    command = [AGENT, "mcp", "call", "bx", tool, "--args", arguments]

    done, took = children_cpu_timed(
        subprocess.run, command, capture_output=True, text=True, env=env, timeout=60
    )

    assert done.returncode == 1
    assert said in done.stderr
    assert not calls.exists()
    assert took < 20  # CPU of agent and its server: start-up, one listing; the bomb took hours
