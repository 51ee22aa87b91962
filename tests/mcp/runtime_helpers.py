"""Small helpers for runtime tests: a saved configuration, scripted dialogs, process checks."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from agent.mcp.config.document import parse_document_data
from agent.mcp.forms.elicitation import Action, ElicitationAnswer, ElicitationRequest
from agent.mcp.forms.url_request import UrlRequest
from agent.mcp.host import McpHost
from agent.mcp.runtime import McpRuntime
from agent.mcp.store import CachedTool, McpStore
from agent.mcp.trust.question import TrustRequest
from agent.settings import McpLimits
from tests.fixtures.mcp_fixtures import server_command

LIMITS = McpLimits(startup_timeout_seconds=20, tool_timeout_seconds=20, output_limit_chars=100_000)


def stdio_server(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """A stdio definition running tools_server.py with this interpreter."""
    command = server_command("tools_server.py", *args)
    definition: dict[str, Any] = {"command": command[0], "args": command[1:]}
    if env:
        definition["env"] = env
    return definition


def script_server(script: str) -> dict[str, Any]:
    command = server_command(script)
    return {"command": command[0], "args": command[1:]}


def save(store: McpStore, servers: dict[str, dict[str, Any]]) -> None:
    store.replace_definitions(parse_document_data({"mcpServers": servers}, "test").definitions)


@dataclass
class ScriptedTrust:
    """Our TrustPrompt seam: answers as scripted and remembers what it was shown."""

    answer: bool = True
    requests: list[TrustRequest] = field(default_factory=list)

    async def confirm(self, request: TrustRequest) -> bool:
        self.requests.append(request)
        return self.answer


@dataclass
class ScriptedElicitation:
    answer: ElicitationAnswer
    requests: list[ElicitationRequest] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    url_action: Action = "decline"  # the answer to a web page request
    url_requests: list[UrlRequest] = field(default_factory=list)

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.requests.append(request)
        return self.answer

    async def elicit_url(self, request: UrlRequest) -> Action:
        self.url_requests.append(request)
        return self.url_action

    def notice(self, text: str) -> None:
        self.notices.append(text)


def runtime(
    store: McpStore, home: Path, project: Path, limits: McpLimits = LIMITS, **kwargs: Any
) -> McpRuntime:
    return McpRuntime(store, limits, logs_dir=home, project_dir=project, **kwargs)


@asynccontextmanager
async def served_host(store: McpStore, home: Path, project: Path) -> AsyncIterator[McpHost]:
    """A chat's McpHost on `store`, its enabled trusted servers started; stopped on exit."""
    host = McpHost(lambda: runtime(store, home, project), report=lambda line: None)
    stop = anyio.Event()
    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(host.serve, stop)
            await host.started.wait()
            yield host
            stop.set()


def logged_pids(home: Path, server: str) -> list[int]:
    """Pids that tools_server.py wrote to its log at start ("tools_server starting pid=N")."""
    text = (home / "mcp" / f"{server}.log").read_text(encoding="utf-8")
    return [int(pid) for pid in re.findall(r"starting pid=(\d+)", text)]


def process_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        return os.path.exists(f"/proc/{pid}")


def resources_server(*args: str) -> dict[str, Any]:
    """A stdio definition running resources_server.py (resources, templates, prompts)."""
    command = server_command("resources_server.py", *args)
    return {"command": command[0], "args": command[1:]}


def enable(store: McpStore, name: str) -> None:
    """Enable a saved server, as `agent mcp enable` does (without discovering)."""
    from dataclasses import replace

    from agent.mcp.config.definitions import fingerprint

    definition = store.load().find(name)
    store.update_state(name, fingerprint(definition), lambda s: replace(s, enabled=True))


def listed_tool(rt: McpRuntime, server: str, name: str) -> CachedTool:
    """`name` exactly as the running `server` lists it, masked as the runtime offers it: the
    definition an approval shows, which a call must match to be sent."""
    definition = rt.store.load().find(server)
    state = rt.cached_state(definition, rt.store.load().state(server)).state
    return next(tool for tool in state.cached_tools or () if tool.name == name)
