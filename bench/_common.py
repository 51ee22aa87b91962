"""Shared set-up for benchmarks: a throwaway AGENT_HOME with trusted fixture servers."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agent.mcp.config.definitions import StdioDefinition, fingerprint  # noqa: E402
from agent.mcp.config.document import parse_document_data  # noqa: E402
from agent.mcp.runtime import McpRuntime  # noqa: E402
from agent.mcp.store import McpStore  # noqa: E402
from agent.mcp.trust.launches import launch_trust_for, remember  # noqa: E402
from agent.settings import McpLimits  # noqa: E402

TOOLS_SERVER = [sys.executable, str(REPO / "tests" / "fixtures" / "servers" / "tools_server.py")]
LIMITS = McpLimits(startup_timeout_seconds=60, tool_timeout_seconds=60, output_limit_chars=100_000)


def trusted_store(
    names: list[str],
    command: list[str] = TOOLS_SERVER,
    project: Path = REPO,
    environ: dict[str, str] | None = None,
) -> tuple[McpStore, Path]:
    """A store in a temp home with one trusted server per name (tools_server unless `command`),
    trusted for `project` and the environment `environ` (ours by default) the agent will get."""
    home = Path(tempfile.mkdtemp(prefix="agent-bench-"))
    store = McpStore(home / "mcp-servers.json")
    servers = {name: {"command": command[0], "args": command[1:]} for name in names}
    store.replace_definitions(parse_document_data({"mcpServers": servers}, "bench").definitions)
    # The trust key lives in the data home: keep it in the temporary one, not the person's.
    os.environ["AGENT_HOME"] = str(home)
    trust = launch_trust_for(project, environ)
    for name in names:
        definition = store.load().find(name)
        assert isinstance(definition, StdioDefinition)
        record = trust.verdict(definition, ()).record
        store.update_state(
            name,
            fingerprint(definition),
            lambda s, record=record: replace(s, trusted_launches=remember((), record)),
        )
    return store, home


def runtime(store: McpStore, home: Path) -> McpRuntime:
    return McpRuntime(store, LIMITS, logs_dir=home, project_dir=REPO)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000
