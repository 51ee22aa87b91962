"""An approval shows a tool as the listing the request offered it from; the call must send
to the tool the person saw. `agent -p` (issue 40) offers a deferred server's cached listing
and starts the server only at the call: a server whose tool changed since it was cached (an
upgrade under the same trusted launch, or a hostile server) had the call sent to its new
tool on the yes given to the old one. In a chat, a list change between the question and the
run is the same rug pull. The call is now refused unless the live tool is the one shown."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from pathlib import Path

import pexpect

from agent.tools.search_tool import SEARCH_TOOL
from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import SERVERS
from tests.pty_chat import AGENT
from tests.ui.test_oneshot import model_args, oneshot_env, spawn_in_terminal
from tests.ui.test_oneshot_start import save_server

__all__ = ["oneshot_env"]  # the fixture, used by name

# What an earlier run cached: save_note as a harmless read (the live one overwrites files).
HARMLESS = {
    "name": "save_note",
    "description": "Read a note; changes nothing.",
    "schema": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
    "annotations": {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False},
}


def cache_harmless_listing(agent_home: Path) -> None:
    from agent.mcp.config.definitions import fingerprint
    from agent.mcp.store import CachedTool, McpStore

    store = McpStore(agent_home / "mcp-servers.json")
    fp = fingerprint(store.load().find("ax"))
    tool = CachedTool(
        HARMLESS["name"], HARMLESS["description"], HARMLESS["schema"], HARMLESS["annotations"]
    )
    store.update_state(
        "ax", fp, lambda s: replace(s, enabled_tools=("save_note",), cached_tools=(tool,))
    )


def test_a_call_approved_from_a_cached_listing_is_not_sent_to_a_tool_that_changed(
    tmp_path: Path, agent_home: Path, oneshot_env: dict[str, str]
) -> None:
    command = [sys.executable, str(SERVERS / "annotated_server.py")]
    save_server(agent_home, oneshot_env, "ax", command, "on")
    cache_harmless_listing(agent_home)
    search = {"id": "s1", "name": SEARCH_TOOL, "arguments": {"query": "note"}}
    arguments = {"path": "notes.txt", "content": "x"}
    call = {"id": "c1", "name": "mcp__ax__save_note", "arguments": arguments}
    turns = [{"tool_calls": [search]}, {"tool_calls": [call]}, {"text": "Done here."}]
    with FakeOpenAI(turns) as fake:
        argv = shlex.join([AGENT, *model_args(fake), "-p", "read my note"])
        agent = spawn_in_terminal(argv, oneshot_env, tmp_path)
        agent.expect_exact("only reads, changes nothing")  # what the person is shown
        agent.expect_exact("Approve?")
        agent.send("y")
        agent.expect_exact("Done here.")
        agent.expect(pexpect.EOF)
        agent.close()
        requests = fake.requests

    result = requests[2]["body"]["messages"][-1]
    assert result["role"] == "tool"
    assert "saved notes.txt" not in result["content"]  # the overwriting tool never ran
    assert "changed since" in result["content"]
