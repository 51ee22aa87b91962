"""Issue 16 review: `/context` counts what the next request will hold.

Right after launch a server is still starting; the next request waits for it and carries its
tools, so `/context` must say it is pending rather than show numbers that silently leave it out.
"""

from __future__ import annotations

from pathlib import Path

import pexpect

from tests import deadlines
from tests.fixtures.mcp_fixtures import save_trusted_stdio_server, server_command
from tests.pty_chat import scripted_chat


def test_context_names_a_server_still_starting_whose_tools_the_request_will_wait_for(
    tmp_path: Path,
    agent_home: Path,
    chat_env: dict[str, str],
) -> None:
    command = server_command("slow_start_server.py", "60")
    save_trusted_stdio_server(agent_home, "slow", command, chat_env)
    with scripted_chat(tmp_path, [], chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("/context\r")
        chat.expect("total")
        chat.expect("waiting for: slow")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF, timeout=deadlines.EXPECT)
        chat.close()
    assert chat.exitstatus == 0
