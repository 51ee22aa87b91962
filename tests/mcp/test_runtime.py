"""McpRuntime against real child processes (tests/fixtures/servers) and real HTTP servers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from agent.errors import (
    ExpansionError,
    NotTrustedError,
    ServerOfflineError,
    ServerStartError,
    ToolCallError,
    ToolTimeoutError,
)
from agent.mcp.client.results import tool_result_from_mcp
from agent.mcp.config.definitions import fingerprint
from agent.mcp.forms.elicitation import ElicitationAnswer
from agent.mcp.store import McpStore
from agent.messages import ToolResult
from agent.settings import McpLimits
from tests.fixtures.mcp_fixtures import running_http_server, trust_launch
from tests.mcp.runtime_helpers import (
    ScriptedElicitation,
    ScriptedTrust,
    logged_pids,
    process_alive,
    runtime,
    save,
    script_server,
    stdio_server,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def store(agent_home: Path) -> McpStore:
    return McpStore(agent_home / "mcp-servers.json")


def text_of(result: object) -> str:
    return tool_result_from_mcp(result, 100_000).text  # type: ignore[arg-type]


async def test_trusting_a_server_discovers_every_page_of_tools_and_records_trust(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(
        store,
        {"fx": stdio_server("--tools", "7", "--page-size", "3", env={"TOKEN": "s3cret-value"})},
    )
    trust = ScriptedTrust(answer=True)

    async with runtime(store, agent_home, tmp_path, trust=trust) as rt:
        await rt.start("fx")

    [request] = trust.requests
    definition = store.load().find("fx")
    assert request.server == "fx"
    assert request.executable == definition.command  # type: ignore[union-attr]
    assert request.args == definition.args  # type: ignore[union-attr]
    assert request.env_sources == ("TOKEN (a literal value)",)
    assert "s3cret-value" not in "\n".join(request.describe())
    state = store.load().state("fx")
    names = [tool.name for tool in state.cached_tools or ()]
    assert {f"extra_{i}" for i in range(7)} <= set(names)
    assert "echo" in names and len(names) == len(set(names))
    assert state.enabled_tools == tuple(names)  # the first discovery selects every tool
    [record] = state.trusted_launches  # the launch it ran, for this project
    assert record.project == str(tmp_path)
    assert record.cwd.text == str(tmp_path.resolve())
    assert "s3cret-value" not in json.dumps(record.to_json())
    assert state.enabled is False


async def test_an_untrusted_definition_never_spawns(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    trust = ScriptedTrust(answer=False)

    async with runtime(store, agent_home, tmp_path, trust=trust) as rt:
        with pytest.raises(NotTrustedError, match="you did not trust it"):
            await rt.start("fx")
        with pytest.raises(NotTrustedError, match="agent mcp trust fx"):
            await rt.call_tool("fx", "echo", {"text": "hi"})

    assert len(trust.requests) == 1  # a tool call never asks; only the person's commands do
    assert not (agent_home / "mcp" / "fx.log").exists()  # no process was ever started
    assert store.load().state("fx").trusted_launches == ()


async def test_a_changed_definition_asks_again(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    trust = ScriptedTrust(answer=True)
    async with runtime(store, agent_home, tmp_path, trust=trust) as rt:
        await rt.start("fx")
        await rt.start("fx")  # still trusted: no second question
    assert len(trust.requests) == 1

    save(store, {"fx": stdio_server("--name", "changed")})
    async with runtime(store, agent_home, tmp_path, trust=trust) as rt:
        await rt.start("fx")

    assert len(trust.requests) == 2
    assert trust.requests[1].previously_trusted is False  # a changed definition lost its state
    async with runtime(store, agent_home, tmp_path, trust=trust) as rt:
        assert rt.is_trusted(store.load().find("fx"))


async def test_calls_return_text_structured_and_error_results(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        echo = await rt.call_tool("fx", "echo", {"text": "hello"})
        added = await rt.call_tool("fx", "add", {"a": 2, "b": 3})
        failed = await rt.call_tool("fx", "fail", {"message": "boom"})
        image = await rt.call_tool("fx", "image", {})
        link = await rt.call_tool("fx", "resource_link", {})

    assert tool_result_from_mcp(echo, 1000) == ToolResult("hello")
    assert json.loads(text_of(added)) == {"sum": 5}
    assert tool_result_from_mcp(failed, 1000) == ToolResult("boom", is_error=True)
    assert text_of(image).startswith("[image: image/png, ")
    assert "[resource link: " in text_of(link) and "[resource: " in text_of(link)


async def test_a_duplicate_start_replaces_the_old_process(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        await rt.start("fx")
        first, second = logged_pids(agent_home, "fx")
        assert not process_alive(first)
        assert process_alive(second)
        assert rt.running() == ["fx"]
    assert not process_alive(second)


async def test_stop_and_stop_removed_end_their_processes_and_nothing_outlives_the_runtime(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"one": stdio_server(), "two": stdio_server(), "three": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        for name in ("one", "two", "three"):
            await rt.start(name)
        for name in ("one", "two", "three"):
            store.update_state(
                name, fingerprint(store.load().find(name)), lambda s: replace(s, enabled=True)
            )
        [one], [two], [three] = (logged_pids(agent_home, n) for n in ("one", "two", "three"))

        await rt.stop("one")
        assert not process_alive(one)

        store.remove("two")
        assert await rt.stop_removed() == ["two"]
        assert not process_alive(two)
        assert process_alive(three)
        assert rt.running() == ["three"]

    assert not process_alive(three)


async def test_calling_a_server_that_is_not_configured_names_it(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    from agent.errors import UnknownServerError

    async with runtime(store, agent_home, tmp_path) as rt:
        with pytest.raises(UnknownServerError, match="no MCP server named 'ghost'"):
            await rt.call_tool("ghost", "echo", {})


async def test_a_server_that_dies_mid_call_is_offline_and_its_next_use_restarts_it(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        with pytest.raises(ToolCallError, match="closed the connection") as crashed:
            await rt.call_tool("fx", "crash", {})
        assert "crashing on purpose" in str(crashed.value)  # the stderr tail
        assert rt.status("fx").state == "offline"

        assert text_of(await rt.call_tool("fx", "echo", {"text": "back"})) == "back"
        # A good call after the restart earns the next one: a rare crash is not fatal.
        with pytest.raises(ToolCallError):
            await rt.call_tool("fx", "crash", {})
        assert text_of(await rt.call_tool("fx", "echo", {"text": "again"})) == "again"
        assert len(logged_pids(agent_home, "fx")) == 3


async def test_a_server_that_dies_again_right_after_its_restart_stays_offline(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        with pytest.raises(ToolCallError):
            await rt.call_tool("fx", "crash", {})
        with pytest.raises(ToolCallError):
            await rt.call_tool("fx", "crash", {})  # restarted once, and died again
        with pytest.raises(ServerOfflineError, match="agent mcp restart fx"):
            await rt.call_tool("fx", "echo", {"text": "x"})
        assert len(logged_pids(agent_home, "fx")) == 2  # never a restart loop

        await rt.restart("fx")  # the person's restart clears it
        assert text_of(await rt.call_tool("fx", "echo", {"text": "ok"})) == "ok"


async def test_stopping_a_server_mid_call_does_not_mark_it_offline(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        errors: list[Exception] = []

        async def call_hang() -> None:
            try:
                await rt.call_tool("fx", "hang", {})
            except ToolCallError as error:
                errors.append(error)

        async with anyio.create_task_group() as group:
            group.start_soon(call_hang)
            await anyio.sleep(0.3)  # let the call reach the server
            await rt.stop("fx")
        assert rt.status("fx").state == "stopped"
        assert [str(e) for e in errors] == ["MCP server 'fx' was stopped while calling hang"]


async def test_stopping_a_server_during_its_handshake_does_not_wait_for_the_timeout(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"silent": script_server("silent_server.py")})
    limits = McpLimits(startup_timeout_seconds=60, tool_timeout_seconds=5, output_limit_chars=1000)
    async with runtime(store, agent_home, tmp_path, limits, trust=ScriptedTrust()) as rt:
        with anyio.fail_after(15):
            async with anyio.create_task_group() as group:
                group.start_soon(rt.start, "silent")
                await anyio.sleep(0.5)
                group.cancel_scope.cancel()  # e.g. the person pressed Ctrl-C
        assert rt.status("silent").state == "stopped"
        assert rt.running() == []


async def test_one_bad_definition_does_not_stop_the_others_from_starting(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"good": stdio_server(), "bad": stdio_server(env={"K": "${UNSET_FOR_TEST}"})})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust(), environ={}) as rt:
        await rt.start("good")
        # "bad" was trusted where its variable was set; here it is not, so it cannot start.
        trust_launch(store, "bad", tmp_path, {"UNSET_FOR_TEST": "x"})
        results = await rt.start_many(["good", "bad"])
        assert results["good"] is None
        assert "UNSET_FOR_TEST is not set" in str(results["bad"])
        assert rt.running() == ["good"]


async def test_a_hung_call_times_out_and_the_server_keeps_working(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    limits = McpLimits(
        startup_timeout_seconds=20, tool_timeout_seconds=0.5, output_limit_chars=1000
    )
    async with runtime(store, agent_home, tmp_path, limits, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        with anyio.fail_after(10), pytest.raises(ToolTimeoutError, match=r"within 0\.5 s"):
            await rt.call_tool("fx", "hang", {})
        assert text_of(await rt.call_tool("fx", "echo", {"text": "alive"})) == "alive"


async def test_progress_notifications_extend_the_tool_timeout(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    limits = McpLimits(
        startup_timeout_seconds=20, tool_timeout_seconds=1.0, output_limit_chars=1000
    )
    seen: list[float] = []
    async with runtime(store, agent_home, tmp_path, limits, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        result = await rt.call_tool(
            "fx", "slow", {"seconds": 2.0, "steps": 8}, on_progress=lambda p, t, m: seen.append(p)
        )
    assert text_of(result) == "done"
    assert len(seen) == 8


async def test_junk_on_stdout_fails_the_handshake_with_a_clear_error(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"junk": script_server("junk_stdout_server.py")})
    limits = McpLimits(startup_timeout_seconds=1.5, tool_timeout_seconds=5, output_limit_chars=1000)
    async with runtime(store, agent_home, tmp_path, limits, trust=ScriptedTrust()) as rt:
        with anyio.fail_after(15), pytest.raises(ServerStartError) as error:
            await rt.start("junk")
    assert "did not finish the MCP handshake within 1.5 s" in str(error.value)
    assert "non-MCP text on stdout" in str(error.value)
    assert store.load().state("junk").trusted_launches == ()


async def test_a_server_that_exits_during_start_shows_its_stderr(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"quits": script_server("exit_on_start_server.py")})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        with anyio.fail_after(15), pytest.raises(ServerStartError) as error:
            await rt.start("quits")
        assert rt.status("quits").state == "failed"
    message = str(error.value)
    assert message.startswith("MCP server 'quits' exited or closed the connection during start-up")
    assert "Last lines of its stderr:" in message


async def test_a_missing_command_is_a_clear_error(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"ghost": {"command": "no-such-command-for-agent-tests"}})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        with pytest.raises(ServerStartError) as error:
            await rt.start("ghost")
    assert str(error.value) == (
        "MCP server 'ghost' could not start: command 'no-such-command-for-agent-tests' not found"
    )


async def test_references_expand_at_start_and_a_missing_variable_is_named(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server(env={"TOKEN": "${MY_TOKEN}"})})
    async with runtime(
        store, agent_home, tmp_path, trust=ScriptedTrust(), environ={"MY_TOKEN": "from-env"}
    ) as rt:
        await rt.start("fx")
        # The child got the value; the result masks it, as it masks every secret it echoes.
        assert text_of(await rt.call_tool("fx", "env", {"name": "TOKEN"})) == "***"
        assert text_of(await rt.call_tool("fx", "cwd", {})) == str(tmp_path)
    assert "from-env" not in (agent_home / "mcp-servers.json").read_text()

    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust(), environ={}) as rt:
        with pytest.raises(ExpansionError, match="environment variable MY_TOKEN is not set"):
            await rt.start("fx")


async def test_a_tools_list_changed_notification_refreshes_the_cache_new_tools_unselected(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    changed = anyio.Event()
    async with runtime(
        store, agent_home, tmp_path, trust=ScriptedTrust(), on_tools_changed=lambda _: changed.set()
    ) as rt:
        await rt.start("fx")
        before = store.load().state("fx")
        await rt.call_tool("fx", "add_tool", {"name": "late_tool"})
        with anyio.fail_after(10):
            await changed.wait()
    after = store.load().state("fx")
    assert "late_tool" in [tool.name for tool in after.cached_tools or ()]
    assert "late_tool" not in after.enabled_tools
    assert after.enabled_tools == before.enabled_tools


async def test_elicitation_round_trips_through_the_injected_handler(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    form = ScriptedElicitation(ElicitationAnswer("accept", {"name": "Ada", "age": 36}))
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust(), elicitation=form) as rt:
        await rt.start("fx")
        answered = await rt.call_tool("fx", "ask_name", {})
    assert json.loads(text_of(answered)) == {
        "action": "accept",
        "content": {"name": "Ada", "age": 36},
    }
    [request] = form.requests
    assert request.server == "fx"
    assert list(request.schema["properties"]) == ["name", "age", "subscribe"]


async def test_elicitation_is_declined_when_nobody_can_answer(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        answered = await rt.call_tool("fx", "ask_name", {})
    assert json.loads(text_of(answered))["action"] == "decline"


async def test_roots_are_the_project_directory(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        roots = await rt.call_tool("fx", "list_roots", {})
    assert json.loads(text_of(roots)) == [tmp_path.resolve().as_uri()]


async def test_the_trace_observer_sees_every_message_with_secrets_redacted(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server(env={"TOKEN": "canary-trace-1234"})})
    lines: list[tuple[str, str, str]] = []
    async with runtime(
        store,
        agent_home,
        tmp_path,
        trust=ScriptedTrust(),
        observe=lambda server, direction, text: lines.append((server, direction, text)),
    ) as rt:
        await rt.start("fx")
        await rt.call_tool("fx", "env", {"name": "TOKEN"})
    methods = [json.loads(text).get("method") for _, _, text in lines]
    # A first start probes the era: a legacy server refuses it and gets the handshake.
    assert methods[0] == "server/discover" and "initialize" in methods and "tools/call" in methods
    assert {server for server, _, _ in lines} == {"fx"}
    assert not any("canary-trace-1234" in text for _, _, text in lines)
    assert any('"***"' in text for _, direction, text in lines if direction == "receive")


async def test_http_headers_reach_the_server_but_no_error_log_or_stored_state(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    headers_log = tmp_path / "headers.jsonl"
    canary = "canary-bearer-5678"
    with running_http_server(headers_log=headers_log) as server:
        save(
            store,
            {"remote": {"url": server.url, "headers": {"Authorization": "Bearer ${API_TOKEN}"}}},
        )
        async with runtime(store, agent_home, tmp_path, environ={"API_TOKEN": canary}) as rt:
            state = await rt.discover("remote")
            assert (
                text_of(await rt.call_tool("remote", "echo", {"text": "over http"})) == "over http"
            )
            failed = await rt.call_tool("remote", "fail", {"message": "server-side failure"})
            unknown = tool_result_from_mcp(await rt.call_tool("remote", "no_such_tool", {}), 1000)
    assert "echo" in [tool.name for tool in state.cached_tools or ()]
    sent = [json.loads(line) for line in headers_log.read_text().splitlines()]
    assert any(
        {k.lower(): v for k, v in entry.get("headers", entry).items()}.get("authorization")
        == f"Bearer {canary}"
        for entry in sent
    )
    assert text_of(failed) == "server-side failure"
    assert unknown.is_error and canary not in unknown.text
    for path in agent_home.rglob("*"):
        if path.is_file():
            assert canary not in path.read_text(errors="replace"), path


async def test_http_connections_live_for_one_request_scope(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    with running_http_server() as server:
        save(store, {"remote": {"url": server.url}})
        async with runtime(store, agent_home, tmp_path) as rt:
            async with rt.request_scope():
                await rt.call_tool("remote", "echo", {"text": "one"})
                await rt.call_tool("remote", "echo", {"text": "two"})
                assert rt.running() == ["remote"]
            assert rt.running() == []
            async with rt.request_scope():
                assert text_of(await rt.call_tool("remote", "echo", {"text": "3"})) == "3"


async def test_the_legacy_sse_transport_works(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    with running_http_server("sse") as server:
        save(store, {"old": {"type": "sse", "url": server.url}})
        async with runtime(store, agent_home, tmp_path) as rt, rt.request_scope():
            assert text_of(await rt.call_tool("old", "echo", {"text": "sse"})) == "sse"


async def test_redirects_are_refused_with_a_clear_error(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    with running_http_server(redirect=True) as server:
        save(store, {"moved": {"url": server.url}})
        async with runtime(store, agent_home, tmp_path) as rt:
            with anyio.fail_after(15), pytest.raises(ServerStartError) as error:
                await rt.discover("moved")
    assert "redirect" in str(error.value)
    assert "not followed" in str(error.value)


async def test_an_unreachable_http_server_is_an_error_for_that_server_only(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"gone": {"url": "http://127.0.0.1:1/mcp"}, "fx": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        with anyio.fail_after(15), pytest.raises(ServerStartError) as error:
            await rt.discover("gone")
        assert str(error.value).startswith("MCP server 'gone' could not be reached: ")
        assert text_of(await rt.call_tool("fx", "echo", {"text": "still here"})) == "still here"


async def test_the_trust_dialog_shows_the_executable_the_childs_path_resolves_to(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    impostor = bin_dir / "lsx"
    impostor.write_text("#!/bin/sh\nexit 1\n")
    impostor.chmod(0o755)
    save(store, {"odd": {"command": "lsx", "env": {"PATH": str(bin_dir)}}})
    trust = ScriptedTrust(answer=False)
    async with runtime(store, agent_home, tmp_path, trust=trust) as rt:
        with pytest.raises(NotTrustedError):
            await rt.start("odd")
    [request] = trust.requests
    assert request.resolved_executable == str(impostor)
    assert f"executable:  lsx  ({impostor})" in "\n".join(request.describe())


async def test_a_bearer_token_is_redacted_on_its_own_in_the_trace(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    lines: list[str] = []
    with running_http_server() as server:
        save(store, {"remote": {"url": server.url, "headers": {"Authorization": "Bearer ${TOK}"}}})
        async with runtime(
            store,
            agent_home,
            tmp_path,
            environ={"TOK": "tok-canary-991"},
            observe=lambda _server, _direction, text: lines.append(text),
        ) as rt:
            await rt.call_tool("remote", "echo", {"text": "my token is tok-canary-991"})
    assert lines and not any("tok-canary-991" in line for line in lines)
    assert any("my token is ***" in line for line in lines)
