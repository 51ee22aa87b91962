"""Deferred MCP tools and search_tools, measured on the tools of real servers.

The bench installs eleven public MCP servers itself (npm: the reference servers everything,
filesystem, memory, sequential-thinking and github, Playwright's, Notion's and Context7's;
PyPI: the reference servers time, fetch and git) into a cache folder, starts each through
our own runtime (trusted in a throwaway AGENT_HOME) and lists its tools. Then it prints:

1. tool tokens per request (litellm's counter, as for gpt-4o, whose window is 128k) with
   every tool sent, and with deferral at the default threshold: goal at least 85% fewer;
2. the query set of tests/fixtures/tool_queries.py (intents as a person phrases them, each
   with the tool that serves it): the share with the right tool in search_tools' top 5,
   goal at least 90%;
3. with 1 000 tools (the real ones, repeated under more server names): the engine's time
   per turn with deferral (goal under 5 ms) and the search's time (goal under 20 ms).

    .venv/bin/python bench/tool_search.py [--cache DIR] [--save-catalog FILE]

--save-catalog writes the listings (names, descriptions, schemas) as the JSON the tests'
catalog server reads (tests/fixtures/tool_catalog.json).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import anyio
from _common import LIMITS, REPO

from agent.mcp.config.definitions import StdioDefinition, fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.runtime import McpRuntime
from agent.mcp.store import CachedTool, McpStore
from agent.mcp.trust.launches import launch_trust_for, remember

NPM = {
    "everything": ("@modelcontextprotocol/server-everything", "mcp-server-everything", []),
    "filesystem": ("@modelcontextprotocol/server-filesystem", "mcp-server-filesystem", ["{dir}"]),
    "memory": ("@modelcontextprotocol/server-memory", "mcp-server-memory", []),
    "sequential-thinking": (
        "@modelcontextprotocol/server-sequential-thinking",
        "mcp-server-sequential-thinking",
        [],
    ),
    "github": ("@modelcontextprotocol/server-github", "mcp-server-github", []),
    "playwright": ("@playwright/mcp", "playwright-mcp", []),
    "notion": ("@notionhq/notion-mcp-server", "notion-mcp-server", []),
    "context7": ("@upstash/context7-mcp", "context7-mcp", []),
    "chrome-devtools": ("chrome-devtools-mcp", "chrome-devtools-mcp", []),
    "kubernetes": ("mcp-server-kubernetes", "mcp-server-kubernetes", []),
    "gitlab": ("@modelcontextprotocol/server-gitlab", "mcp-server-gitlab", []),
    "slack": ("@modelcontextprotocol/server-slack", "mcp-server-slack", []),
}
# Placeholders where a server will not start (or list its tools) without credentials: listing
# needs no real account, and nothing here calls a tool.
ENV = {
    "gitlab": {"GITLAB_PERSONAL_ACCESS_TOKEN": "bench-placeholder"},
    "slack": {"SLACK_BOT_TOKEN": "xoxb-bench-placeholder", "SLACK_TEAM_ID": "T00000000"},
    "atlassian": {
        "JIRA_URL": "https://bench-placeholder.atlassian.net",
        "JIRA_USERNAME": "bench@example.com",
        "JIRA_API_TOKEN": "bench-placeholder",
        "CONFLUENCE_URL": "https://bench-placeholder.atlassian.net/wiki",
        "CONFLUENCE_USERNAME": "bench@example.com",
        "CONFLUENCE_API_TOKEN": "bench-placeholder",
    },
}
PYPI = {
    "time": ("mcp-server-time", "mcp-server-time", []),
    "fetch": ("mcp-server-fetch", "mcp-server-fetch", []),
    "git": ("mcp-server-git", "mcp-server-git", ["--repository", "{repo}"]),
    "atlassian": ("mcp-atlassian", "mcp-atlassian", []),
}


def install(cache: Path) -> dict[str, list[str]]:
    """Install the servers (once per cache folder); their command lines by server name."""
    npm = cache / "npm"
    missing = [
        p for p, program, _a in NPM.values() if not (npm / "node_modules/.bin" / program).exists()
    ]
    if missing:
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(npm), *missing],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    places = {"dir": str(cache), "repo": str(REPO)}
    commands = {}
    for name, (_package, program, args) in NPM.items():
        bin_path = npm / "node_modules" / ".bin" / program
        commands[name] = [str(bin_path), *(a.format(**places) for a in args)]
    for name, (package, program, args) in PYPI.items():
        python = cache / f"py-{name}"  # a virtual environment each: they pin different SDKs
        if not (python / "bin" / program).exists():
            subprocess.run([sys.executable, "-m", "venv", str(python)], check=True)
            subprocess.run([str(python / "bin" / "pip"), "install", "-q", package], check=True)
        commands[name] = [str(python / "bin" / program), *(a.format(**places) for a in args)]
    return commands


def trusted(home: Path, commands: dict[str, list[str]]) -> McpStore:
    """The servers saved, trusted for this environment, enabled, in a throwaway home."""
    store = McpStore(home / "mcp-servers.json")
    servers = {
        name: {"command": argv[0], "args": argv[1:], "env": ENV.get(name, {})}
        for name, argv in commands.items()
    }
    store.replace_definitions(parse_document_data({"mcpServers": servers}, "bench").definitions)
    trust = launch_trust_for(REPO, None)
    for name in commands:
        definition = store.load().find(name)
        assert isinstance(definition, StdioDefinition)
        record = trust.verdict(definition, ()).record
        store.update_state(
            name,
            fingerprint(definition),
            lambda s, r=record: replace(s, trusted_launches=remember((), r), enabled=True),
        )
    return store


async def listings(store: McpStore, home: Path) -> dict[str, tuple[CachedTool, ...]]:
    """Each server's tools as our runtime lists them (every tool selected)."""
    found: dict[str, tuple[CachedTool, ...]] = {}
    async with McpRuntime(store, LIMITS, logs_dir=home, project_dir=REPO) as runtime:
        for definition in store.load().definitions:
            try:
                with anyio.fail_after(120):
                    state = await runtime.discover(definition.name)
            except Exception as error:  # a server that cannot start here is said and left out
                print(f"  {definition.name}: could not list its tools ({error})")
                continue
            found[definition.name] = tuple(state.cached_tools or ())
            names = tuple(tool.name for tool in found[definition.name])
            store.update_state(
                definition.name,
                fingerprint(definition),
                lambda s, n=names: replace(s, enabled_tools=n),
            )
        await runtime.stop_removed()
    return found


def save_catalog(path: Path, found: dict[str, tuple[CachedTool, ...]]) -> None:
    """The listings as tests/fixtures/tool_catalog.json: one list of tools per server."""
    catalog = {
        server: [
            {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
            for t in tools
        ]
        for server, tools in found.items()
    }
    path.write_text(json.dumps(catalog, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    default_cache = Path(tempfile.gettempdir()) / "agent-bench-tool-search"
    parser.add_argument("--cache", type=Path, default=default_cache)
    parser.add_argument("--save-catalog", type=Path)
    arguments = parser.parse_args()
    arguments.cache.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="agent-bench-search-"))
    os.environ["AGENT_HOME"] = str(home)  # the trust key and logs stay in the throwaway home
    print(f"installing the servers in {arguments.cache} (once)...")
    commands = install(arguments.cache)
    store = trusted(home, commands)
    started = time.perf_counter()
    found = anyio.run(listings, store, home)
    total = sum(len(tools) for tools in found.values())
    print(
        f"{len(found)} servers listed {total} tools in {time.perf_counter() - started:.1f} s: "
        + ", ".join(f"{name} {len(tools)}" for name, tools in found.items())
    )
    if arguments.save_catalog:
        save_catalog(arguments.save_catalog, found)
        print(f"catalog saved to {arguments.save_catalog}")
    from tool_search_measures import report  # type: ignore[import-not-found]

    report(store, home, found)


if __name__ == "__main__":
    main()
