"""The one trust question of a second project is read in seconds (issue 40): seven servers
trusted in one project, a chat in another: one line per server, naming the program it runs and
why it asks here, with the full details one key away. The real chat in a pty, real servers."""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path

import pexpect

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import server_path, trust_launch
from tests.pty_chat import pty_env, scripted_chat

NAMES = ("time", "fetch", "git", "everything", "filesystem", "memory", "sqlite")
ALL_NONE_EACH = "[a] all  [n] none  [e] decide each"
QUESTION = ALL_NONE_EACH + "  [d] details"
# Why a launch with no cwd asks in each project (agent/mcp/trust/project_folder.py).
STARTS_HERE = "it starts in this project's folder and may read what is there"


def seven_servers_trusted_in_the_first_project(
    tmp_path: Path, agent_home: Path, env: dict[str, str]
) -> tuple[Path, Path]:
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        (folder / ".git").mkdir(parents=True)
    store = McpStore(agent_home / "mcp-servers.json")
    servers = {  # no cwd: each starts in the project's folder, so each is trusted per project
        name: {"command": sys.executable, "args": [server_path("tools_server.py")]}
        for name in NAMES
    }
    store.replace_definitions(parse_document_data({"mcpServers": servers}, "test").definitions)
    for name in NAMES:
        trust_launch(store, name, first, env)
        definition = store.load().find(name)
        store.update_state(name, fingerprint(definition), lambda s: replace(s, enabled=True))
    return first, second


def test_seven_servers_are_one_line_each_on_one_screen_with_details_on_request(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    first, second = seven_servers_trusted_in_the_first_project(tmp_path, agent_home, env)
    program = Path(sys.executable).name
    with scripted_chat(tmp_path, [{"text": "ok"}], env, second) as (chat, fake):
        chat.send("hi\r")
        chat.expect_exact("MCP 7 servers need your trust in this project.")
        chat.expect_exact(f"You trusted them in {first}.")
        for number, name in enumerate(NAMES, 1):
            # The program it runs, and why it asks here, on the server's one line.
            chat.expect(rf"\[{number}\] {name}: {program} \S*tools_server\.py +· {STARTS_HERE}")
        chat.expect_exact(QUESTION)
        compact = chat.before or ""
        chat.send("d")  # everything each would run, as the full dialog showed it
        chat.expect_exact("you trusted it in")
        chat.expect_exact(f"executable:  {sys.executable}")
        # Seven full descriptions take more than a screen: the pager goes through them.
        # A page may be drawn twice: one space per page, or the second is typing at the next.
        last_page = 0
        while chat.expect([r"-- lines (\d+)-\d+ of \d+", re.escape(ALL_NONE_EACH)]) == 0:
            if int(chat.match.group(1)) > last_page:
                last_page = int(chat.match.group(1))
                chat.send(" ")
        chat.send("a")
        for _ in NAMES:
            chat.expect(r"MCP server \w+ trusted and ready", timeout=60)
        chat.expect_exact("ok")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    assert "-- lines" not in compact  # one screen, no pager
    assert "executable:" not in compact
    assert len(fake.requests()) == 1
