"""A server's JSON Schema `pattern` must not freeze the agent: checked with a time limit.

The attack (review of issue 14, F1): a tool's input schema carries a pattern that backtracks
without end under Python's `re` (^(a|aa)+$) and a default that sets it off; the console pre-fills
it, the person clicks Run, and checking the arguments held the one event loop for hours (every
tab, every server, even SIGTERM). The chat checks a model's tool call with the same function.
Each check must refuse the call within a second, saying the pattern cannot be checked, and send
nothing to the server. The second is CPU time where the check runs (this process, or the
console's process), so a loaded machine does not fail it and a check that runs away still does.
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agent.tools.validation import argument_problems
from tests.cost_meters import cpu_timed, process_cpu_seconds
from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import (
    save_trusted_fixture_server,
    save_trusted_stdio_server,
    server_command,
)
from tests.fixtures.servers.schema_attack_server import SETS_IT_OFF, SLOW
from tests.ui.test_oneshot import model_args, run_without_terminal
from tests.web.console_helpers import EventStream, running_console

CANNOT_CHECK = (
    f"the schema takes too long to check (at its pattern {SLOW!r}); the value cannot be checked"
)
FIELD = {"type": "string", "pattern": SLOW}
# Another tab's request while the pattern is checked: milliseconds when the loop is free, hours
# when a check held it. Wall time, as a person waits; the margin is for a loaded machine.
OTHER_TAB_SECONDS = 5.0


def timed(check: Any, *args: Any) -> tuple[Any, float]:
    started = time.monotonic()
    result = check(*args)
    return result, time.monotonic() - started


@pytest.mark.parametrize(
    ("schema", "arguments"),
    [
        ({"type": "object", "properties": {"q": FIELD}}, {"q": SETS_IT_OFF}),
        ({"allOf": [{"properties": {"q": {"not": {"not": FIELD}}}}]}, {"q": SETS_IT_OFF}),
        ({"propertyNames": FIELD}, {SETS_IT_OFF: 1}),
        ({"patternProperties": {SLOW: {}}}, {SETS_IT_OFF: 1}),
        ({"patternProperties": {SLOW: {}}, "additionalProperties": False}, {SETS_IT_OFF: 1}),
        ({"patternProperties": {SLOW: {}}, "unevaluatedProperties": False}, {SETS_IT_OFF: 1}),
        (
            {"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"q": FIELD}},
            {"q": SETS_IT_OFF},
        ),
    ],
    ids=[
        "property",
        "allOf-not",
        "propertyNames",
        "patternProperties",
        "additional",
        "unevaluated",
        "draft-07",
    ],
)
def test_a_pattern_that_backtracks_without_end_is_refused_within_a_second(
    schema: dict[str, Any], arguments: dict[str, Any]
) -> None:
    problems, took = cpu_timed(argument_problems, schema, arguments)

    assert took < 1.0
    assert problems == [CANNOT_CHECK]


def test_many_patterned_values_share_one_time_budget() -> None:
    # Each value takes the regex engine its whole per-check limit: 10,000 of them would still
    # take minutes without one budget for the whole validation.
    schema = {"properties": {"list": {"type": "array", "items": FIELD}}}
    problems, took = cpu_timed(argument_problems, schema, {"list": [SETS_IT_OFF] * 10_000})

    assert took < 1.0
    assert problems == [CANNOT_CHECK]


def test_ordinary_patterns_are_checked_as_before() -> None:
    schema = {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert argument_problems(schema, {"code": "ABC", "x-n": 1}) == []
    assert argument_problems(schema, {"code": "ab", "x-n": "1", "other": 1}) == [
        "(arguments): 'other' does not match any of the regexes: '^x-'",
        "code: 'ab' does not match '^[A-Z]{3}$'",
        "x-n: '1' is not of type 'integer'",
    ]


# --- through the real console bridge over HTTP -----------------------------------------------


def save_attack_server(home: Path, calls: Path) -> None:
    save_trusted_fixture_server(home, "sx", "schema_attack_server.py", "--calls", str(calls))


@pytest.mark.parametrize(
    ("tool", "arguments"), [("search", {"q": SETS_IT_OFF}), ("keyed", {SETS_IT_OFF: "x"})]
)
def test_the_console_refuses_the_call_at_once_and_keeps_answering_other_tabs(
    tmp_path: Path, tool: str, arguments: dict[str, Any]
) -> None:
    calls = tmp_path / "calls.jsonl"
    save_attack_server(tmp_path / "home", calls)
    with running_console(tmp_path / "home") as console, ThreadPoolExecutor(1) as pool:
        assert console.post("/api/servers/sx/connect", {}).status == 200
        assert console.post("/api/servers/sx/list", {"kind": "tools"}).status == 200

        body = {"tool": tool, "arguments": arguments}
        cpu_before = process_cpu_seconds(console.process.pid)
        called = pool.submit(console.post, "/api/servers/sx/call", body)
        other, other_took = timed(console.request, "GET", "/api/servers")
        answer = called.result(timeout=60)
        took = process_cpu_seconds(console.process.pid) - cpu_before  # the console's own CPU

    assert (other.status, other_took < OTHER_TAB_SECONDS) == (200, True)
    assert (answer.status, took < 1.0) == (400, True)
    assert answer.json() == {"error": f"arguments: {CANNOT_CHECK}"}
    assert not calls.exists()  # nothing reached the server


def test_a_result_whose_output_schema_pattern_backtracks_is_refused_at_once(
    tmp_path: Path,
) -> None:
    # The MCP client checks structured content against the tool's output schema: there the
    # server chooses the pattern and the value, and nobody has to type anything.
    save_attack_server(tmp_path / "home", tmp_path / "calls.jsonl")
    with running_console(tmp_path / "home") as console, ThreadPoolExecutor(1) as pool:
        assert console.post("/api/servers/sx/connect", {}).status == 200
        assert console.post("/api/servers/sx/list", {"kind": "tools"}).status == 200

        body = {"tool": "shaped", "arguments": {}}
        cpu_before = process_cpu_seconds(console.process.pid)
        called = pool.submit(console.post, "/api/servers/sx/call", body)
        other, other_took = timed(console.request, "GET", "/api/servers")
        answer = called.result(timeout=60)
        took = process_cpu_seconds(console.process.pid) - cpu_before  # the console's own CPU

    assert (other.status, other_took < OTHER_TAB_SECONDS) == (200, True)
    assert (answer.status, took < 1.0) == (502, True)
    assert answer.json()["error"].endswith(CANNOT_CHECK)


# --- a model's tool call in a one-shot chat ---------------------------------------------------


def select_search(agent_home: Path) -> None:
    """Offer the model the server's `search` as listed (the store caches what it listed)."""
    from dataclasses import replace

    from agent.mcp.config.definitions import fingerprint
    from agent.mcp.store import CachedTool, McpStore
    from tests.fixtures.servers.schema_attack_server import TOOLS

    store = McpStore(agent_home / "mcp-servers.json")
    search = next(tool for tool in TOOLS if tool.name == "search")
    cached = (CachedTool("search", search.description, dict(search.input_schema)),)
    store.update_state(
        "sx",
        fingerprint(store.load().find("sx")),
        lambda s: replace(s, enabled_tools=("search",), cached_tools=cached),
    )


def test_a_models_call_with_a_slow_pattern_is_refused_and_nothing_is_sent(
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
    command = server_command("schema_attack_server.py", "--calls", str(calls))
    save_trusted_stdio_server(agent_home, "sx", command, env, selected=None)
    select_search(agent_home)
    turns = [
        {"tool_calls": [{"id": "c1", "name": "mcp__sx__search", "arguments": {"q": SETS_IT_OFF}}]},
        {"text": "Understood."},
    ]
    with FakeOpenAI(turns) as fake:
        args = [*model_args(fake), "-p", "search", "--output-format", "json"]
        done = run_without_terminal(env, tmp_path, args)
        requests = fake.requests

    assert json.loads(done.stdout)["text"] == "Understood.", done.stderr
    tool_message = requests[1]["body"]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert (
        tool_message["content"] == f"Error: invalid arguments for mcp__sx__search: {CANNOT_CHECK}"
    )
    assert not calls.exists()


def test_every_jsonschema_module_that_matches_patterns_is_bounded() -> None:
    # The bound swaps `re` in the jsonschema modules that match with it; a module added by an
    # upgrade (or a `from re import search`) would check patterns without a time limit.
    import importlib.util
    import re

    from agent.tools.validation import JSONSCHEMA_PATTERN_MODULES

    spec = importlib.util.find_spec("jsonschema")
    assert spec is not None and spec.submodule_search_locations
    package = Path(next(iter(spec.submodule_search_locations)))
    matching = re.compile(
        r"\bre\.(search|match|fullmatch|finditer|findall|sub|split)\(|from re import"
    )
    matchers = {
        f"jsonschema.{path.stem}"
        for path in package.glob("*.py")
        if matching.search(path.read_text(encoding="utf-8"))
    }
    assert matchers == set(JSONSCHEMA_PATTERN_MODULES)


# --- a form (elicitation) answered in the console ---------------------------------------------


def test_a_forms_pattern_is_not_mcps_and_is_not_run_on_the_persons_answer(tmp_path: Path) -> None:
    # MCP's form schema has no `pattern`: the answer is checked against the form's own
    # keywords only, so the server's regex never runs on what the person typed.
    calls = tmp_path / "calls.jsonl"
    save_attack_server(tmp_path / "home", calls)
    with running_console(tmp_path / "home") as console, ThreadPoolExecutor(1) as pool:
        assert console.post("/api/servers/sx/connect", {}).status == 200
        events = EventStream(console)
        try:
            called = pool.submit(
                console.post, "/api/servers/sx/call", {"tool": "ask", "arguments": {}}
            )
            _, form = events.wait_for(lambda kind, data: kind == "elicitation")
            answer = {"action": "accept", "content": {"name": SETS_IT_OFF}}
            cpu_before = process_cpu_seconds(console.process.pid)
            answered = console.post(f"/api/elicitations/{form['id']}", answer)
            took = process_cpu_seconds(console.process.pid) - cpu_before  # the console's CPU
            result = called.result(timeout=60)
        finally:
            events.close()

    assert form["schema"]["properties"]["name"]["pattern"] == SLOW  # shown as the server sent it
    assert (answered.status, answered.json(), took < 1.0) == (200, {"ok": True}, True)
    told = json.loads(result.json()["result"]["content"][0]["text"])
    assert told == {"action": "accept", "content": {"name": SETS_IT_OFF}}


def test_a_form_answer_is_still_checked_against_mcps_form_keywords(tmp_path: Path) -> None:
    from agent.mcp.forms.schema import form_keywords

    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 3, "pattern": SLOW, "allOf": [FIELD]},
            "size": {"type": "string", "enum": ["s", "m"]},
            "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}},
        },
        "required": ["size"],
    }
    problems, took = cpu_timed(
        argument_problems, form_keywords(schema), {"name": SETS_IT_OFF, "tags": ["b"]}
    )

    assert took < 1.0
    assert problems == [
        "(arguments): 'size' is a required property",
        f"name: {SETS_IT_OFF!r} is too long",
        "tags/0: 'b' is not valid under any of the given schemas",
    ]
