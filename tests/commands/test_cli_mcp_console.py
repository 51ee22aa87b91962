"""The MCP console as a person uses it: the real `agent` binary in a subprocess (on a
pseudo-terminal where it asks something), real fixture servers as its children.

Every helper that runs `agent` also checks, once it has exited, that no fixture server it
started is still running (each tools_server logs "tools_server starting pid=N").
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests import deadlines
from tests.fixtures.mcp_fixtures import HttpServer, pid_alive, running_http_server, server_path
from tests.pty_chat import spawn_agent

AGENT = str(Path(sys.executable).with_name("agent"))  # the console script of this venv
TIMEOUT = deadlines.PROCESS  # seconds; bounds every run and every wait for a prompt
CANARY = "canary-7d3a91-env-value"
TOKEN = "canary-4b2e77-bearer-token"
TOOLS_SERVER = server_path("tools_server.py")
TOOL_NAMES = [
    "echo", "add", "big_output", "fail", "image", "resource_link", "slow", "crash", "hang",
    "ask_name", "list_roots", "log", "add_tool", "env", "cwd", "escape",
]  # fmt: skip
FX = {
    "command": sys.executable,
    "args": [TOOLS_SERVER, "--name", "fixture server"],
    "env": {"CANARY": CANARY},
}


def agent(
    *args: str, env: Mapping[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `agent ARGS` without a terminal (stdin is /dev/null unless text is given)."""
    environ = dict(env or os.environ)
    result = subprocess.run(
        [AGENT, *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=environ,
        timeout=TIMEOUT,
        check=False,
    )
    assert_no_server_running(Path(environ["AGENT_HOME"]))
    return result


def at_terminal(
    *args: str, answers: Sequence[tuple[str, str]] = (), env: Mapping[str, str] | None = None
) -> tuple[int | None, str]:
    """Run `agent ARGS` on a pseudo-terminal, typing each answer once its prompt is shown.

    Returns the exit status and everything the terminal showed (typed answers included).
    """
    environ = {**(env or os.environ), "PROMPT_TOOLKIT_NO_CPR": "1"}
    shown = io.StringIO()
    child = spawn_agent(list(args), environ, None, dimensions=(50, 300), timeout=TIMEOUT)
    child.logfile_read = shown
    try:
        for prompt, answer in answers:
            child.expect_exact(prompt)
            child.sendline(answer)
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert_no_server_running(Path(environ["AGENT_HOME"]))
    return child.exitstatus, shown.getvalue().replace("\r\n", "\n")


def import_servers(servers: dict[str, Any], env: Mapping[str, str] | None = None) -> None:
    """Replace the configuration with these mcpServers."""
    result = agent("mcp", "import", "-", stdin=json.dumps({"mcpServers": servers}), env=env)
    assert result.returncode == 0, result.stderr


def server_pids(home: Path) -> list[int]:
    """Every tools_server process started with this AGENT_HOME, from the servers' logs."""
    logs = sorted((home / "mcp").glob("*.log"))
    text = "".join(log.read_text(encoding="utf-8") for log in logs)
    return [int(pid) for pid in re.findall(r"^tools_server starting pid=(\d+)$", text, re.M)]


def assert_no_server_running(home: Path) -> None:
    assert [pid for pid in server_pids(home) if pid_alive(pid)] == []


def list_row(name: str) -> dict[str, str]:
    """`agent mcp list`'s row for one server, by column heading."""
    lines = agent("mcp", "list").stdout.splitlines()
    header = lines[0]
    starts = [header.index(column) for column in header.split()]
    row = next(line for line in lines[1:] if line.startswith(f"{name} "))
    cells = [row[start:end].strip() for start, end in zip(starts, [*starts[1:], None], strict=True)]
    return dict(zip(header.split(), cells, strict=True))


def trace_messages(stderr: str) -> list[tuple[str, dict[str, Any]]]:
    """(arrow, message) for each --trace line: "HH:MM:SS.mmm SERVER -> {json}"."""
    found = []
    for line in stderr.splitlines():
        match = re.fullmatch(r"\d\d:\d\d:\d\d\.\d{3} \S+ (->|<-) (\{.*\})", line)
        assert match, f"not a trace line: {line!r}"
        found.append((match[1], json.loads(match[2])))
    return found


def summary(message: dict[str, Any]) -> str:
    """A trace message in a word: its method, or "result"/"error" for a response."""
    return str(message.get("method") or ("result" if "result" in message else "error"))


@pytest.fixture(scope="module")
def trusted_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An AGENT_HOME whose mcp-servers.json has server fx (FX) trusted and discovered (with
    the trust key its records were made with), made once for this module by answering yes to
    `agent mcp trust fx` on a pseudo-terminal."""
    home = tmp_path_factory.mktemp("trusted-home")
    env = {**os.environ, "AGENT_HOME": str(home)}
    import_servers({"fx": FX}, env=env)
    status, shown = at_terminal("mcp", "trust", "fx", answers=[("[y/N] ", "y")], env=env)
    assert status == 0, shown
    return home


@pytest.fixture
def fx(trusted_store: Path, agent_home: Path) -> str:
    """This test's AGENT_HOME holds the trusted, discovered (not enabled) server fx."""
    agent_home.mkdir()
    for name in ("mcp-servers.json", "trust.key"):
        shutil.copy2(trusted_store / name, agent_home / name)
    return "fx"


@pytest.fixture(scope="module")
def headers_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the HTTP fixture server appends each request's headers (one JSON line each)."""
    return tmp_path_factory.mktemp("http") / "headers.jsonl"


@pytest.fixture(scope="module")
def http_server(headers_log: Path) -> Iterator[HttpServer]:
    """One streamable HTTP fixture server for this module."""
    with running_http_server(headers_log=headers_log) as server:
        yield server


@pytest.fixture
def remote(http_server: HttpServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """Server `remote`: the HTTP fixture server with Authorization: Bearer ${TOKEN}."""
    monkeypatch.setenv("TOKEN", TOKEN)
    import_servers(
        {"remote": {"url": http_server.url, "headers": {"Authorization": "Bearer ${TOKEN}"}}}
    )
    return "remote"


# --- trust ----------------------------------------------------------------------------------


def test_trust_at_a_terminal_shows_the_exact_command_and_yes_starts_and_trusts_it(
    tmp_path: Path, agent_home: Path
) -> None:
    import_servers(
        {"fx": {**FX, "cwd": str(tmp_path), "env": {"CANARY": CANARY, "LEVEL": "debug"}}}
    )

    status, shown = at_terminal("mcp", "trust", "fx", answers=[("[y/N] ", "y")])

    python = sys.executable
    assert (status, shown) == (
        0,
        "MCP server 'fx' runs a program on this computer.\n"
        f"  executable:  {python}  ({python})\n"
        f"  script:      {TOOLS_SERVER}\n"
        f"  arguments:   {shlex.quote(TOOLS_SERVER)} --name 'fixture server'\n"
        f"  command:     {shlex.join([python, TOOLS_SERVER])} --name 'fixture server'\n"
        f"  working dir: {tmp_path}\n"
        "  environment: CANARY (a literal value), LEVEL (a literal value)\n"
        "Start it and trust what it runs here? [y/N] y\n"
        "Trusted fx; 16 tools discovered. Enable it with: agent mcp enable fx\n",
    )
    assert len(server_pids(agent_home)) == 1
    row = list_row("fx")
    assert (row["TRUSTED"], row["TOOLS"], row["ENABLED"]) == ("yes", "16 of 16 selected", "no")


@pytest.mark.parametrize("answer", ["n", ""], ids=["n", "enter"])
def test_trust_answered_no_or_enter_starts_nothing_and_records_nothing(
    answer: str, agent_home: Path
) -> None:
    import_servers({"fx": FX})

    status, shown = at_terminal("mcp", "trust", "fx", answers=[("[y/N] ", answer)])

    assert status == 1
    assert shown.endswith(
        f"[y/N] {answer}\nagent: MCP server 'fx' was not started: you did not trust it\n"
    )
    assert CANARY not in shown
    assert not (agent_home / "mcp").exists()
    row = list_row("fx")
    assert (row["TRUSTED"], row["TOOLS"]) == ("no", "not discovered")


def test_trust_without_a_terminal_refuses_and_starts_nothing(agent_home: Path) -> None:
    import_servers({"fx": FX})

    result = agent("mcp", "trust", "fx")

    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        "agent: MCP server 'fx' is not trusted and there is no terminal to ask; run "
        "`agent mcp trust fx` in a terminal\n",
    )
    assert not (agent_home / "mcp").exists()


def test_a_changed_definition_is_untrusted_again_and_call_refuses_to_start_it(
    fx: str, agent_home: Path
) -> None:
    already = "fx is already trusted (exactly what it runs, here).\n"
    assert agent("mcp", "trust", fx).stdout == already
    import_servers({"fx": {**FX, "args": [*FX["args"], "--tools", "1"]}})

    result = agent("mcp", "call", fx, "echo", "--args", '{"text": "hi"}')

    assert (list_row(fx)["TRUSTED"], result.returncode, result.stdout) == ("no", 1, "")
    assert result.stderr.startswith("agent: MCP server 'fx' is not trusted")
    assert not (agent_home / "mcp").exists()


# --- tools ----------------------------------------------------------------------------------


def test_tools_refresh_lists_each_tool_with_its_selection_and_model_name(
    fx: str, agent_home: Path
) -> None:
    result = agent("mcp", "tools", fx, "--refresh")

    assert (result.returncode, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["SELECTED", "TOOL", "MODEL", "NAME", "DESCRIPTION"]
    assert [line.split()[:3] for line in lines[1:-1]] == [
        ["yes", tool, f"mcp__fx__{tool}"] for tool in TOOL_NAMES
    ]
    assert lines[1].split(maxsplit=3)[3] == "Return the text unchanged."
    assert lines[-1] == "16 of 16 selected; enabled: no"
    assert len(server_pids(agent_home)) == 1


def test_tools_disable_and_enable_change_the_saved_selection(fx: str, agent_home: Path) -> None:
    disabled = agent("mcp", "tools", fx, "--disable", "echo", "add")
    enabled = agent("mcp", "tools", fx, "--enable", "echo")
    later = agent("mcp", "tools", fx)

    def selection(stdout: str) -> dict[str, str]:
        return {line.split()[1]: line.split()[0] for line in stdout.splitlines()[1:4]}

    assert selection(disabled.stdout) == {"echo": "no", "add": "no", "big_output": "yes"}
    assert disabled.stdout.splitlines()[-1] == "14 of 16 selected; enabled: no"
    assert selection(enabled.stdout) == {"echo": "yes", "add": "no", "big_output": "yes"}
    assert later.stdout == enabled.stdout
    saved = json.loads((agent_home / "mcp-servers.json").read_text())
    assert saved["runtime"]["fx"]["enabled_tools"] == [t for t in TOOL_NAMES if t != "add"]
    assert list_row(fx)["TOOLS"] == "15 of 16 selected"


def test_selecting_an_unknown_tool_is_an_error_naming_the_server_and_its_tools(
    fx: str, agent_home: Path
) -> None:
    before = (agent_home / "mcp-servers.json").read_bytes()

    result = agent("mcp", "tools", fx, "--enable", "echo", "nope")

    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        f"agent: MCP server 'fx' has no tool 'nope' (its tools: {', '.join(TOOL_NAMES)})\n",
    )
    assert (agent_home / "mcp-servers.json").read_bytes() == before


def test_tools_schema_prints_each_tools_json_schema(fx: str) -> None:
    result = agent("mcp", "tools", fx, "--schema")

    parts = re.split(r"^(\w+)  \((mcp__fx__\w+)\)\n", result.stdout, flags=re.M)
    schemas = {parts[i]: json.loads(parts[i + 2]) for i in range(1, len(parts), 3)}
    assert (result.returncode, parts[0], list(schemas)) == (0, "", TOOL_NAMES)
    assert schemas["add"] == {
        "type": "object",
        "title": "addArguments",
        "properties": {
            "a": {"title": "A", "type": "integer"},
            "b": {"title": "B", "type": "integer"},
        },
        "required": ["a", "b"],
    }


# --- enable, disable, restart ---------------------------------------------------------------


def test_enable_and_disable_flip_enabled_in_the_list(fx: str) -> None:
    enabled = agent("mcp", "enable", fx)
    enabled_row = list_row(fx)
    disabled = agent("mcp", "disable", fx)

    assert (enabled.returncode, enabled.stdout) == (
        0,
        "Enabled fx: 16 of 16 tools selected (change with: agent mcp tools fx "
        "--enable/--disable TOOL)\n",
    )
    assert (disabled.returncode, disabled.stdout) == (0, "Disabled fx.\n")
    assert (enabled_row["ENABLED"], list_row(fx)["ENABLED"]) == ("yes", "no")


def test_enabling_an_untrusted_server_without_a_terminal_fails_and_leaves_it_disabled(
    agent_home: Path,
) -> None:
    import_servers({"fx": FX})

    result = agent("mcp", "enable", "fx")

    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("agent: MCP server 'fx' is not trusted")
    assert list_row("fx")["ENABLED"] == "no"
    assert not (agent_home / "mcp").exists()


def test_enable_at_a_terminal_asks_to_trust_and_enables_on_yes(agent_home: Path) -> None:
    import_servers({"fx": {**FX, "cwd": str(agent_home.parent)}})

    status, shown = at_terminal("mcp", "enable", "fx", answers=[("[y/N] ", "y")])

    assert status == 0
    assert "MCP server 'fx' runs a program on this computer.\n" in shown
    assert shown.endswith(
        "Start it and trust what it runs here? [y/N] y\n"
        "Enabled fx: 16 of 16 tools selected (change with: agent mcp tools fx "
        "--enable/--disable TOOL)\n"
    )
    assert (list_row("fx")["TRUSTED"], list_row("fx")["ENABLED"]) == ("yes", "yes")


def test_enable_and_disable_take_several_names_or_all(fx: str, agent_home: Path) -> None:
    agent("mcp", "add", "docs", "https://docs.invalid/mcp")
    agent("mcp", "disable", "docs")  # a server with tools cached needs no start to be enabled
    saved = json.loads((agent_home / "mcp-servers.json").read_text())
    saved["runtime"]["docs"]["cached_tools"] = []
    (agent_home / "mcp-servers.json").write_text(json.dumps(saved))

    enabled = agent("mcp", "enable", "fx", "docs")
    rows = (list_row("fx")["ENABLED"], list_row("docs")["ENABLED"])
    disabled = agent("mcp", "disable", "--all")

    assert (enabled.returncode, enabled.stderr) == (0, "")
    assert enabled.stdout == (
        "Enabled fx: 16 of 16 tools selected\n"
        "Enabled docs: 0 of 0 tools selected\n"
        "Change a server's selection with: agent mcp tools NAME --enable/--disable TOOL\n"
    )
    assert rows == ("yes", "yes")
    assert (disabled.returncode, disabled.stdout) == (0, "Disabled fx, docs.\n")
    assert (list_row("fx")["ENABLED"], list_row("docs")["ENABLED"]) == ("no", "no")


def test_enable_or_disable_with_an_unknown_name_changes_nothing_and_names_it(
    fx: str, agent_home: Path
) -> None:
    before = (agent_home / "mcp-servers.json").read_bytes()

    enabled = agent("mcp", "enable", fx, "nope", "gone")
    disabled = agent("mcp", "disable", fx, "nope")
    both = agent("mcp", "enable", fx, "--all")
    neither = agent("mcp", "enable")

    assert (enabled.returncode, enabled.stdout, enabled.stderr) == (
        1,
        "",
        "agent: no MCP servers named 'nope', 'gone' (configured: fx); nothing enabled\n",
    )
    assert disabled.stderr == (
        "agent: no MCP server named 'nope' (configured: fx); nothing disabled\n"
    )
    assert both.stderr == "agent: give server names or --all, not both\n"
    assert neither.stderr == (
        "agent: name the servers (agent mcp list shows them), or give --all\n"
    )
    assert (agent_home / "mcp-servers.json").read_bytes() == before


def test_a_server_that_cannot_start_is_not_enabled_and_the_others_are(
    fx: str, agent_home: Path
) -> None:
    agent("mcp", "add", "broken", "--", "no-such-program-7f3e")

    result = agent("mcp", "enable", "--all")

    assert (result.returncode, result.stdout) == (
        1,
        "Enabled fx: 16 of 16 tools selected (change with: agent mcp tools fx "
        "--enable/--disable TOOL)\n",
    )
    assert result.stderr == (
        "agent: broken was not enabled: MCP server 'broken' could not start: command "
        "'no-such-program-7f3e' not found\n"
    )
    assert (list_row("fx")["ENABLED"], list_row("broken")["ENABLED"]) == ("yes", "no")


def test_restart_starts_the_server_afresh_and_counts_its_tools(fx: str, agent_home: Path) -> None:
    result = agent("mcp", "restart", fx)

    assert (result.returncode, result.stdout, result.stderr) == (0, "fx started; 16 tools.\n", "")
    assert len(server_pids(agent_home)) == 1


# --- call -----------------------------------------------------------------------------------


def test_call_prints_the_result_and_exits_zero(fx: str) -> None:
    result = agent("mcp", "call", fx, "echo", "--args", '{"text": "hi"}')

    assert (result.returncode, result.stdout, result.stderr) == (0, "hi\n", "")


def test_a_tool_error_is_printed_on_stderr_and_exits_one(fx: str) -> None:
    result = agent("mcp", "call", fx, "fail", "--args", '{"message": "disk on fire"}')

    assert (result.returncode, result.stdout, result.stderr) == (1, "", "disk on fire\n")


def test_invalid_arguments_are_refused_before_the_tool_is_called(fx: str) -> None:
    result = agent("mcp", "call", fx, "add", "--args", '{"a": "x"}', "--trace")

    *trace, error = result.stderr.splitlines()
    assert (result.returncode, result.stdout, error) == (
        1,
        "",
        "agent: invalid arguments for add: (arguments): 'b' is a required property; "
        "a: 'x' is not of type 'integer'",
    )
    assert "tools/call" not in [summary(message) for _, message in trace_messages("\n".join(trace))]


@pytest.mark.parametrize(
    ("args_json", "error"),
    [
        ('{"a": 1,', "agent: --args: not valid JSON (Expecting property name enclosed in double "
         "quotes at column 9)\n"),
        ("[1, 2]", "agent: --args: expected a JSON object of arguments\n"),
    ],
    ids=["not-json", "not-an-object"],
)  # fmt: skip
def test_args_that_are_not_a_json_object_are_an_error_and_start_nothing(
    fx: str, agent_home: Path, args_json: str, error: str
) -> None:
    result = agent("mcp", "call", fx, "add", "--args", args_json)

    assert (result.returncode, result.stdout, result.stderr) == (1, "", error)
    assert not (agent_home / "mcp").exists()


def test_escape_sequences_in_a_result_never_reach_the_terminal(fx: str) -> None:
    result = agent("mcp", "call", fx, "escape", "--args", "{}")

    assert (result.returncode, result.stdout) == (
        0,
        r"\x1b[31mred\x1b[0m \x1b[2A\x1b[10Cmoved \x1b[2J\x1b]8;;https://example.invalid/"
        r"\x1b\link\x1b]8;;\x1b\ \x1b]0;pwned title\x07end" + "\n",
    )
    assert "\x1b" not in result.stdout + result.stderr


def test_progress_notifications_are_printed_on_stderr(fx: str) -> None:
    result = agent("mcp", "call", fx, "slow", "--args", '{"seconds": 0.3, "steps": 3}')

    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "done\n",
        "progress 1/3 step 1/3\nprogress 2/3 step 2/3\nprogress 3/3 step 3/3\n",
    )


def test_call_without_args_at_a_terminal_asks_for_each_argument_with_its_type(fx: str) -> None:
    status, shown = at_terminal(
        "mcp",
        "call",
        fx,
        "add",
        answers=[("a (integer): ", "x"), ("a (integer): ", "2"), ("b (integer): ", "40")],
    )

    assert (status, shown) == (
        0,
        "  a (integer): x\n"
        "  a: enter a whole number\n"
        "  a (integer): 2\n"
        "  b (integer): 40\n"
        '{\n  "sum": 42\n}\n',
    )


def test_an_elicitation_at_a_terminal_is_filled_in_as_a_form(fx: str) -> None:
    status, shown = at_terminal(
        "mcp",
        "call",
        fx,
        "ask_name",
        answers=[
            ("[c]ancel: ", "y"),
            ("Name - Your name (string): ", "Ada"),
            ("Age (number) (optional): ", "abc"),
            ("Age (number) (optional): ", "36"),
            ("Subscribe (boolean) (optional) [False]: ", ""),
        ],
    )

    assert (status, shown) == (
        0,
        "MCP server fx asks (its message, every line of it):\n"
        "  | Who are you?\n"
        "If you answer, MCP server fx will receive: Name, Age, Subscribe.\n"
        "Answer? [y]es / [n]o (decline) / [c]ancel: y\n"
        "  Name - Your name (string): Ada\n"
        "  Age (number) (optional): abc\n"
        "  Age: enter a number\n"
        "  Age (number) (optional): 36\n"
        "  Subscribe (boolean) (optional) [False]: \n"
        '{"action": "accept", "content": {"name": "Ada", "age": 36, "subscribe": false}}\n',
    )


# --- trace and inspect ----------------------------------------------------------------------


def test_trace_prints_each_json_rpc_message_with_env_values_hidden(
    fx: str, agent_home: Path
) -> None:
    result = agent("mcp", "call", fx, "log", "--args", json.dumps({"message": CANARY}), "--trace")

    messages = trace_messages(result.stderr)
    assert (result.returncode, result.stdout) == (0, "logged\n")
    # The first start probes (server/discover: this fixture speaks the handshake era only,
    # so it answers an error and the handshake follows); later starts remember the era.
    # The probe gives up after STDIO_PROBE_SECONDS, which a busy machine's server start can
    # outlast: its answer then arrives after the fallback initialize went out. That answer
    # alone is unordered; it is put back where a quiet machine has it.
    late = [summary(message) for _, message in messages].index("error")
    assert messages[late][1]["id"] == messages[0][1]["id"]  # it answers the probe
    messages.insert(1, messages.pop(late))
    assert [(arrow, summary(message)) for arrow, message in messages] == [
        ("->", "server/discover"),
        ("<-", "error"),
        ("->", "initialize"),
        ("<-", "result"),
        ("->", "notifications/initialized"),
        ("->", "tools/list"),
        ("<-", "result"),
        ("->", "tools/call"),
        ("<-", "notifications/message"),
        ("<-", "result"),
    ]
    assert messages[7][1]["params"]["arguments"] == {"message": "***"}
    assert messages[8][1]["params"]["data"] == "***"
    assert CANARY not in result.stdout + result.stderr
    assert CANARY not in (agent_home / "mcp" / "fx.log").read_text()


def test_inspect_shows_the_server_protocol_capabilities_instructions_and_tools(fx: str) -> None:
    result = agent("mcp", "inspect", fx)

    assert (result.returncode, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[:6] == [
        "server:       fixture server 1.0.0",
        "protocol:     2025-11-25",
        "capabilities: "
        + json.dumps(
            {
                "logging": {},
                "prompts": {"listChanged": False},
                "resources": {"subscribe": False, "listChanged": False},
                "tools": {"listChanged": True},
            }
        ),
        "instructions:",
        "  Fixture server for tests.",
        "tools (16):",
    ]
    assert [line.split(":")[0].strip() for line in lines[6:22]] == TOOL_NAMES
    assert lines[6] == "  echo: Return the text unchanged."
    assert lines[22:] == ["resources (0):", "prompts (0):"]


# --- HTTP servers ---------------------------------------------------------------------------


def test_an_http_server_needs_no_trust_and_its_header_value_appears_nowhere(
    remote: str, headers_log: Path, agent_home: Path
) -> None:
    tools = agent("mcp", "tools", remote)
    called = agent("mcp", "call", remote, "echo", "--args", '{"text": "hi"}')
    traced = agent(
        "mcp",
        "call",
        remote,
        "log",
        "--args",
        json.dumps({"message": f"Bearer {TOKEN}"}),
        "--trace",
    )

    assert (tools.returncode, tools.stderr, tools.stdout.splitlines()[-1]) == (
        0,
        "",
        "16 of 16 selected; enabled: no",
    )
    assert (called.returncode, called.stdout, called.stderr) == (0, "hi\n", "")
    assert (traced.returncode, traced.stdout) == (0, "logged\n")
    tool_call = next(m for _, m in trace_messages(traced.stderr) if summary(m) == "tools/call")
    assert tool_call["params"]["arguments"] == {"message": "***"}
    sent = [json.loads(line)["headers"] for line in headers_log.read_text().splitlines()]
    assert {headers.get("authorization") for headers in sent} == {f"Bearer {TOKEN}"}
    output = "".join(r.stdout + r.stderr for r in (tools, called, traced))
    stored = [path for path in agent_home.rglob("*") if path.is_file()]
    assert TOKEN not in output
    assert [path for path in stored if TOKEN in path.read_text(errors="replace")] == []


def test_the_token_inside_a_header_value_is_hidden_when_a_server_echoes_it(
    remote: str, agent_home: Path
) -> None:
    result = agent(
        "mcp", "call", remote, "log", "--args", json.dumps({"message": TOKEN}), "--trace"
    )

    assert result.returncode == 0
    assert TOKEN not in result.stdout + result.stderr
    assert TOKEN not in (agent_home / "mcp" / "remote.log").read_text()
