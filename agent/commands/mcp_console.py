"""`agent mcp tools|trust|restart|inspect|call`: talk to servers by hand (enable: mcp_enable.py).

Each command runs one event loop with its own McpRuntime; every server it started is stopped
before the command returns.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import anyio

from agent.commands.output import say, table, warn
from agent.commands.terminal import (
    ConsoleElicitation,
    ConsoleTrustPrompt,
    NoAnswerError,
    ask_arguments,
)
from agent.errors import AgentError
from agent.home import data_home
from agent.mcp.cache_redaction import masked_state
from agent.mcp.config.definitions import LOCAL_DEFINITIONS, fingerprint
from agent.mcp.config.names import model_tool_names
from agent.mcp.new_tools import told_new_tools
from agent.mcp.oauth.token_key import default_expander
from agent.mcp.store import McpStore, ServerState
from agent.project import find_project_dir
from agent.settings import load_settings
from agent.text import plural, progress_text, sanitize_line
from agent.tools.schema_limits import schema_limit_problem, withheld_reason
from agent.tools.validation import argument_problems

if TYPE_CHECKING:
    # The runtime pulls in the mcp SDK (most of a second): commands that start no server
    # (disable, tools with a cache) must not pay for it.
    from agent.mcp.client.server_requests import ServerRequest
    from agent.mcp.client.streams import Direction
    from agent.mcp.runtime import McpRuntime


def _print_trace(server: str, direction: Direction, text: str) -> None:
    stamp = datetime.datetime.now().strftime("%H:%M:%S.%f")[:-3]
    arrow = "->" if direction == "send" else "<-"
    print(f"{stamp} {sanitize_line(server)} {arrow} {sanitize_line(text)}", file=sys.stderr)


def run_with_runtime(
    store: McpStore, body: Callable[[McpRuntime], Awaitable[int]], trace: bool = False
) -> int:
    """Run `body` with a runtime of its own (trust asked at the terminal); stop every server."""
    from agent.mcp.runtime import McpRuntime

    settings = load_settings()

    async def main() -> int:
        async with McpRuntime(
            store,
            settings.mcp,
            logs_dir=data_home(),
            project_dir=find_project_dir(),
            trust=ConsoleTrustPrompt(),
            elicitation=ConsoleElicitation(),
            observe=_print_trace if trace else None,
            watch_traffic=True,  # inspect lists the server's requests; send awaits answers
        ) as runtime:
            return await body(runtime)

    return anyio.run(main)


def _state_with_tools(store: McpStore, name: str, refresh: bool) -> tuple[str, ServerState]:
    """The server's name and state, discovering its tools first when asked or unknown.

    Only discovery starts the server; a cached list needs no runtime (and no mcp import).
    """
    config = store.load()
    definition = config.find(name)
    state = config.state(definition.name)
    withheld: dict[str, str] = {}
    if refresh or state.cached_tools is None:
        discovered: list[ServerState] = []

        async def discover(runtime: McpRuntime) -> int:
            discovered.append(await runtime.tools_state(definition.name, refresh=refresh))
            live = runtime.live(definition.name)
            withheld.update(live.withheld_tools if live is not None else {})
            return 0

        run_with_runtime(store, discover)
        state = discovered[0]
    # The cache is masked again on its way out: it may predate masking.
    masked = masked_state(definition, state, default_expander())
    for tool, problem in {**withheld, **masked.withheld}.items():
        warn(withheld_reason(sanitize_line(tool), definition.name, problem))
    return definition.name, masked.state


def tools_command(
    store: McpStore,
    name: str,
    *,
    refresh: bool,
    enable: Sequence[str],
    disable: Sequence[str],
    schema: bool,
) -> int:
    """List a server's tools (discovering them if needed), select tools, show schemas."""
    server, state = _state_with_tools(store, name, refresh)
    if enable or disable:
        state = _select(store, server, state, enable, disable)
    _print_tools(server, state, schema)
    if state.new_tools:  # shown as new once: the next listing shows them as any other
        definition = store.load().find(server)
        with contextlib.suppress(AgentError):  # changed meanwhile: shown as new next time
            store.update_state(server, fingerprint(definition), told_new_tools)
    return 0


def _select(
    store: McpStore, name: str, state: ServerState, enable: Sequence[str], disable: Sequence[str]
) -> ServerState:
    known = [tool.name for tool in state.cached_tools or ()]
    unknown = [tool for tool in (*enable, *disable) if tool not in known and tool != "all"]
    if unknown:
        raise AgentError(
            f"MCP server {name!r} has no tool {sanitize_line(', '.join(map(repr, unknown)))} "
            f"(its tools: {sanitize_line(', '.join(known)) or 'none'})"
        )
    selected = set(state.enabled_tools)
    selected |= set(known) if "all" in enable else set(enable)
    selected -= set(known) if "all" in disable else set(disable)
    ordered = tuple(tool for tool in known if tool in selected)
    definition = store.load().find(name)
    store.update_state(
        name, fingerprint(definition), lambda current: replace(current, enabled_tools=ordered)
    )
    return replace(state, enabled_tools=ordered)  # still the masked tools


def _print_tools(name: str, state: ServerState, schema: bool) -> None:
    tools = state.cached_tools or ()
    if not tools:
        say(f"MCP server {name!r} offers no tools.")
        return
    model_names = model_tool_names(name, [tool.name for tool in tools])
    selected = set(state.enabled_tools)
    new = set(state.new_tools)
    if schema:
        for tool in tools:
            say(f"{sanitize_line(tool.name)}  ({model_names[tool.name]})")
            say(json.dumps(tool.input_schema, indent=2, ensure_ascii=False))
        return
    rows = [
        [
            "yes" if tool.name in selected else ("no (new)" if tool.name in new else "no"),
            tool.name,
            model_names[tool.name],
            (tool.description or "").strip().split("\n")[0][:70],
        ]
        for tool in tools
    ]
    say(table(("SELECTED", "TOOL", "MODEL NAME", "DESCRIPTION"), rows))
    say(f"{len(selected)} of {len(tools)} selected; enabled: {'yes' if state.enabled else 'no'}")


def trust_command(store: McpStore, name: str) -> int:
    """Ask to trust a stdio server now; on yes it starts, and trust is kept once tools load."""
    config = store.load()
    definition = config.find(name)
    if not isinstance(definition, LOCAL_DEFINITIONS):
        say(
            f"{definition.name} is an HTTP server: it runs nothing on this computer, "
            "so there is nothing to trust."
        )
        return 0
    from agent.mcp.trust.launches import launch_trust_for

    trust = launch_trust_for(find_project_dir())
    if trust.is_trusted(definition, config.state(definition.name).trusted_launches):
        say(f"{definition.name} is already trusted (exactly what it runs, here).")
        return 0

    async def body(runtime: McpRuntime) -> int:
        await runtime.start(definition.name, ask_trust=True)
        state = store.load().state(definition.name)
        say(
            f"Trusted {definition.name}; {plural(len(state.cached_tools or ()), 'tool')} "
            "discovered. "
            f"Enable it with: agent mcp enable {definition.name}"
        )
        return 0

    return run_with_runtime(store, body)


def restart_command(store: McpStore, name: str) -> int:
    """Start a server afresh (clearing an offline state) and refresh its tools."""

    async def body(runtime: McpRuntime) -> int:
        definition = store.load().find(name)
        await runtime.restart(definition.name)
        state = await runtime.discover(definition.name, ask_trust=True)
        say(f"{definition.name} started; {plural(len(state.cached_tools or ()), 'tool')}.")
        return 0

    return run_with_runtime(store, body)


def inspect_command(store: McpStore, name: str, trace: bool) -> int:
    """Server name and version, protocol, capabilities, instructions, tools, resources, prompts."""

    async def body(runtime: McpRuntime) -> int:
        definition = store.load().find(name)
        connection = await runtime.start(definition.name, ask_trust=True)
        info = connection.info
        assert info is not None
        # Everything the server says about itself is one line each (instructions excepted,
        # which are indented so that no line of theirs can look like one of ours).
        say(f"server:       {sanitize_line(info.name)} {sanitize_line(info.version)}")
        say(f"protocol:     {sanitize_line(info.protocol_version)}")
        say(f"capabilities: {json.dumps(info.capabilities, ensure_ascii=False)}")
        if info.instructions:
            say("instructions:")
            say("  " + info.instructions.strip().replace("\n", "\n  "))
        tools = await runtime.list_tools(definition.name)
        say(f"tools ({len(tools)}):")
        for tool in tools:
            summary = (tool.description or "").strip().split("\n")[0]
            say(f"  {sanitize_line(tool.name)}: {sanitize_line(summary)}")
        live = runtime.live(definition.name)
        for withheld, problem in (live.withheld_tools if live is not None else {}).items():
            warn(withheld_reason(sanitize_line(withheld), definition.name, problem))
        # Every page of them (capped), as `agent mcp resources` and `prompts` list them.
        if "resources" in info.capabilities:
            resources = await runtime.resources(definition.name, allow_disabled=True)
            say(f"resources ({len(resources.items)}):")
            for resource in resources.items:
                say(f"  {sanitize_line(resource.uri)}  {sanitize_line(resource.name)}")
        if "prompts" in info.capabilities:
            prompts = await runtime.prompts(definition.name, allow_disabled=True)
            say(f"prompts ({len(prompts.items)}):")
            for prompt in prompts.items:
                say(f"  {sanitize_line(prompt.name)}: {sanitize_line(prompt.description or '')}")
        _print_server_requests(connection.traffic.requests)
        return 0

    return run_with_runtime(store, body, trace)


def _print_server_requests(requests: Sequence[ServerRequest]) -> None:
    """The requests the server sent us meanwhile (ping, roots, elicitation), and our answers."""
    if not requests:
        return
    say(f"requests from the server ({len(requests)}):")
    for request in requests:
        answer = request.answer if request.answer is not None else "(not answered yet)"
        say(f"  {sanitize_line(request.method)} -> {sanitize_line(answer)}")


def call_command(store: McpStore, name: str, tool: str, args_json: str | None, trace: bool) -> int:
    """Validate and call one tool by hand; print the result (exit 1 when it is an error)."""
    # A typo in --args is reported before anything is trusted or started.
    given = parse_arguments(args_json) if args_json is not None else None

    async def body(runtime: McpRuntime) -> int:
        definition = store.load().find(name)
        await runtime.start(definition.name, ask_trust=True)
        tools = {t.name: t for t in await runtime.list_tools(definition.name)}
        if tool not in tools:
            raise AgentError(
                f"MCP server {definition.name!r} has no tool {sanitize_line(repr(tool))} "
                f"(its tools: {sanitize_line(', '.join(tools)) or 'none'})"
            )
        schema = dict(tools[tool].input_schema)
        too_big = schema_limit_problem(schema, tools[tool].output_schema)
        if too_big is not None:
            raise AgentError(withheld_reason(sanitize_line(tool), definition.name, too_big))
        arguments = given if given is not None else await _ask_for_arguments(schema)
        problems = argument_problems(schema, arguments)
        if problems:
            raise AgentError(f"invalid arguments for {tool}: " + "; ".join(problems))
        from agent.mcp.client.results import tool_result_from_mcp

        result = await runtime.call_tool(definition.name, tool, arguments, _print_progress)
        converted = tool_result_from_mcp(result, runtime.limits.output_limit_chars)
        (warn if converted.is_error else say)(converted.text)
        return 1 if converted.is_error else 0

    return run_with_runtime(store, body, trace)


def _print_progress(progress: float, total: float | None, message: str | None) -> None:
    print(f"progress {sanitize_line(progress_text(progress, total, message))}", file=sys.stderr)


def parse_json_object(text: str, label: str, expected: str) -> dict[str, Any]:
    """`text` as a JSON object; anything else is an error naming `label` (--args, JSON)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise AgentError(f"{label}: not valid JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise AgentError(f"{label}: nested too deeply") from None
    if not isinstance(value, dict):
        raise AgentError(f"{label}: expected {expected}")
    return value


def parse_arguments(args_json: str) -> dict[str, Any]:
    """--args as a JSON object; anything else is an error naming --args."""
    return parse_json_object(args_json, "--args", "a JSON object of arguments")


async def _ask_for_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    if not schema.get("properties"):
        return {}
    if not sys.stdin.isatty():
        raise AgentError("--args is required when there is no terminal to ask for arguments")
    try:
        return await ask_arguments(schema)
    except NoAnswerError:
        raise AgentError("cancelled; nothing was called") from None
