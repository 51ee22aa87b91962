"""The in-process MCP server of a `"type": "commands"` definition.

It is a real MCP server (the SDK's low-level Server), run by the client side behind the SDK's
in-memory streams (client/transports.py), so Connection (handshake, tools/list, tools/call, --trace,
approval in the chat) treats it exactly like a stdio or HTTP server. It serves only the launch
it was given: the programs trust resolved, in the working directory and environment trust
judged. Imported only when such a server starts (the server side of the SDK is not needed before).
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext

from agent.mcp.config.command_definitions import CommandTool
from agent.mcp.config.launch import CommandsLaunch
from agent.mcp.programs.command_line import CommandArgumentError, fill_command
from agent.processes.runner import CommandOutcome, run_command
from agent.tools.validation import argument_problems


def build_server(launch: CommandsLaunch) -> Server[Any]:
    """The MCP server that offers the launch's tools and runs them when called."""
    tools = {tool.name: tool for tool in launch.tools}

    async def list_tools(
        context: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_listed(tool) for tool in launch.tools])

    async def call_tool(
        context: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = tools.get(params.name)
        if tool is None:
            return _error(f"no tool {params.name!r} (tools: {', '.join(tools)})")
        arguments = dict(params.arguments or {})
        problems = argument_problems(tool.input_schema, arguments)
        if problems:
            return _error(f"invalid arguments for {tool.name}: " + "; ".join(problems))
        try:
            argv = fill_command(tool.command, arguments, tool.allow_dash, tool.required)
        except CommandArgumentError as error:
            return _error(f"tool {tool.name}: {error}; nothing was run")
        argv[0] = launch.executable(tool.name)  # the program trust resolved, never looked up again
        changed = launch.changed_file(tool.name)
        if changed is not None:  # trust was judged at start; a chat may run for hours after
            kind, path = changed
            return _error(
                f"the {kind} of tool {tool.name} ({path}) changed since MCP server "
                f"{launch.server} was trusted; nothing was run. "
                f"The person can review it with: agent mcp trust {launch.server}"
            )
        try:
            outcome = await run_command(
                argv, cwd=launch.cwd, env=launch.child_environment(), timeout=tool.timeout
            )
        except OSError as error:  # gone since trust, not executable, arguments too long
            return _error(f"could not run {tool.program}: {error.strerror or error}")
        return result_of(outcome, tool)

    return Server(
        f"commands:{launch.server}",
        version="1",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _listed(tool: CommandTool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        description=tool.description or f"Runs {tool.program}",
        input_schema=tool.input_schema,
    )


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def result_of(outcome: CommandOutcome, tool: CommandTool) -> types.CallToolResult:
    """The call's result: {exit_code, stdout, stderr, truncated, timed_out} as structured
    content and as its JSON text (as MCP asks), with a line that says what went wrong."""
    structured = {
        "exit_code": outcome.exit_code,
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
        "truncated": outcome.truncated,
        "timed_out": outcome.timed_out,
    }
    notes = []
    if outcome.timed_out:
        notes.append(f"timed out after {tool.timeout:g} s: the program's process group was killed")
    elif outcome.exit_code != 0:
        notes.append(f"{tool.program} exited with code {outcome.exit_code}")
    if outcome.output_held:
        notes.append(
            "a process the program started kept its output open after the program exited: "
            "reading stopped then, so output may be missing; the program's process group was "
            "killed, but a process that left it (setsid, a daemon) was not"
        )
    if outcome.truncated:
        notes.append("output cut: stdout and stderr are each kept up to 1 MiB")
    # The note first: a model whose output limit cuts the JSON still reads what went wrong.
    texts = ["; ".join(notes)] if notes else []
    texts.append(json.dumps(structured, ensure_ascii=False))
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text) for text in texts],
        structured_content=structured,
        is_error=outcome.timed_out or outcome.exit_code != 0,
    )
