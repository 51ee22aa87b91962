"""Attack: a server's words as a flood. A local server (or a remote one: the message
is the server's to write) answers the handshake with a JSON-RPC error of 400,000 characters
over 2,000 lines, each opening `agent:`: the chat's notice that the server failed quoted it
whole (twice, with /mcp), burying the chat's scroll-back. The notice quotes one line of
at most 500 characters, marked as cut. The real `agent` chat in a
pseudo-terminal, the real hostile server process, the scripted model as a process."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pexpect

from tests.fixtures.mcp_fixtures import SERVERS, server_command, trust_launch
from tests.pty_chat import scripted_chat


def save_trusted_server(agent_home: Path, environ: dict[str, str], name: str, script: str) -> None:
    """Save the fixture `script` as server `name`, trusted and enabled."""
    from agent.mcp.config.definitions import fingerprint
    from agent.mcp.config.document import parse_document_data
    from agent.mcp.store import McpStore

    store = McpStore(agent_home / "mcp-servers.json")
    command = server_command(script)
    server = {"command": command[0], "args": command[1:], "cwd": str(SERVERS)}
    store.replace_definitions(parse_document_data({"mcpServers": {name: server}}, "t").definitions)
    trust_launch(store, name, SERVERS, environ)
    fp = fingerprint(store.load().find(name))
    store.update_state(name, fp, lambda s: replace(s, enabled=True))


def test_a_servers_huge_error_is_one_short_notice_in_the_chat(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    save_trusted_server(agent_home, chat_env, "he", "huge_error_server.py")
    with scripted_chat(tmp_path, [{"text": "Fine."}], chat_env) as (chat, _):
        log = io.StringIO()
        chat.logfile_read = log
        chat.expect("›")
        chat.expect("MCP server he failed to start")
        chat.send("hello\r")
        chat.expect("Fine.")
        chat.expect("›")
        chat.send("/mcp\r")
        chat.expect("he:")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    drawn = log.getvalue()
    assert "line 0000 of a flood" in drawn  # what the server said is shown, its start
    assert "line 0010 of a flood" not in drawn, "the whole error was printed"
    assert "[cut]" in drawn  # and it says it was cut
    assert not re.search(r"^agent: line", drawn, re.M), "a forged agent: line"
    assert len(drawn) < 20_000, len(drawn)


def test_withheld_tools_named_with_100000_characters_and_3000_more_are_a_few_short_notices(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    # A tool over the listing limits is withheld and said once, naming it: the name was
    # printed whole, whatever its length, and every withheld tool had a line of its own.
    save_trusted_server(agent_home, chat_env, "hn", "huge_name_server.py")
    with scripted_chat(tmp_path, [{"text": "Fine."}], chat_env) as (chat, _):
        log = io.StringIO()
        chat.logfile_read = log
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("cannot be offered")
        chat.expect("Fine.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    drawn = log.getvalue()
    assert "withheld_nnn" in drawn
    assert "bad_2999" not in drawn and "2,996 more tools" in drawn
    assert len(drawn) < 20_000, len(drawn)
