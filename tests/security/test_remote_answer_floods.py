"""Attack: a remote MCP server answers one call with more than any message should hold (a JSON
body, one server-sent event's `data:` line, or one event of endless short `data:` lines). Over
stdio a message is capped at 16 MiB (agent.mcp.client.stdio); over HTTP the SDK read a whole
answer into memory, so a server the person only named by URL could fill the machine's memory.
Now every answer is cut off at the same 16 MiB per message (counted unpacked: a gzip body is
unpacked a piece at a time, not inflated whole first), the call fails naming the server and the
limit, and the connection is dropped. (Server-sent events the SDK caps at 1 MiB itself.) The
real `agent mcp call` against a real HTTP server process
(tests/fixtures/servers/flooding_http_server.py, no SDK: the flood is exact)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import read_port_line, server_path, stop_child
from tests.mcp.runtime_helpers import enable, save

AGENT = str(Path(sys.executable).with_name("agent"))
MIB = 1024 * 1024
SCRIPT = "flooding_http_server.py"


@contextmanager
def flooding_server(mode: str, tally: Path, stderr_path: Path, total: int = 256) -> Iterator[str]:
    argv = ["--mode", mode, "--tally", str(tally), "--total", str(total)]
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, server_path(SCRIPT), *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    try:
        port = read_port_line(process, stderr_path, SCRIPT)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_child(process)


def agent_mcp(agent_home: Path, url: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """`agent mcp ARGV` with the remote server `flood` at `url` saved and enabled."""
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"flood": {"url": url}})
    enable(store, "flood")
    return subprocess.run(
        [AGENT, "mcp", *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )


def flood_call(
    mode: str, tmp_path: Path, agent_home: Path, *, total: int = 256, command: str = "call"
) -> tuple[str, int]:
    """`agent mcp call flood flood` (or `agent mcp login flood`) against the flooding server
    in `mode`: what agent said (its exit status must be a failure) and the bytes the server
    wrote before it hung up."""
    tally = tmp_path / "sent"
    argv = ["call", "flood", "flood"] if command == "call" else ["login", "flood", "--no-browser"]
    with flooding_server(mode, tally, tmp_path / "stderr.log", total) as url:
        done = agent_mcp(agent_home, url, argv)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    return said, int(tally.read_text())


@pytest.mark.parametrize("mode", ["json", "gzip"])
def test_an_endless_json_answer_is_cut_off_at_the_message_limit_naming_the_server(
    mode: str, tmp_path: Path, agent_home: Path
) -> None:
    said, taken = flood_call(mode, tmp_path, agent_home)
    expected = "MCP server 'flood' sent an answer larger than the 16 MiB limit for one message"
    assert expected in said, said
    if mode == "json":
        # The client hung up at the limit: what the server managed to write is the limit and
        # what sockets buffer on the way, never the 256 MiB it meant to send. (Packed a
        # thousand to one, the buffers alone hold more than that: the message is the proof.)
        assert taken < 32 * MIB, f"the client took {taken / MIB:.0f} MiB before hanging up"


@pytest.mark.parametrize("mode", ["sse", "sse-lines"])
def test_an_endless_event_is_cut_off_by_the_sdks_event_limit(
    mode: str, tmp_path: Path, agent_home: Path
) -> None:
    # The SDK caps one server-sent event at 1 MiB; this holds it to that.
    said, taken = flood_call(mode, tmp_path, agent_home)
    assert "MCP server 'flood'" in said and "byte limit" in said, said
    assert taken < 32 * MIB, f"the client took {taken / MIB:.0f} MiB before hanging up"


def test_bytes_after_the_end_of_a_gzip_answer_are_refused_not_kept_uncounted(
    tmp_path: Path, agent_home: Path
) -> None:
    # Found by review: the unpacker stopped at the gzip stream's end, and zlib kept whatever
    # followed (its unused_data, one copy longer per piece) where nothing counted it: a whole
    # small answer and then endless bytes filled memory, and the call then succeeded. 40 MiB:
    # past the limit, small enough that the old quadratic keeping still ends in seconds.
    said, taken = flood_call("gzip-tail", tmp_path, agent_home, total=40)
    assert "MCP server 'flood' sent more after the end of its compressed answer" in said, said
    assert taken < 32 * MIB, f"the client took {taken / MIB:.0f} MiB before hanging up"


def test_an_endless_oauth_metadata_answer_labelled_an_event_stream_is_cut_off_at_login(
    tmp_path: Path, agent_home: Path
) -> None:
    # Found by review: an answer labelled text/event-stream was let through unbounded (the SDK
    # caps each event), but the OAuth discovery of `agent mcp login` reads the protected
    # resource's metadata whole, whatever its label: 64 MiB that never form an event were
    # all held in memory, at each of the discovery URLs. Only a 2xx event stream a request
    # asked for is read as a stream; anything else is one message.
    said, taken = flood_call("oauth-sse", tmp_path, agent_home, total=64, command="login")
    assert "larger than the 16 MiB limit for one message" in said, said
    assert taken < 32 * MIB, f"the client took {taken / MIB:.0f} MiB before hanging up"


def test_a_listen_stream_ended_at_once_with_retry_zero_is_reopened_once_a_second_at_most(
    tmp_path: Path, agent_home: Path
) -> None:
    # Found by review: the SDK reopens the standalone GET stream after the server's `retry`
    # whenever it ends without an error; a server that sets `retry: 0` and ends it every time
    # had it reopened without any pause, as fast as the server answered (72 times in this 3-second
    # call before the fix), for as long as the connection lasted. The call takes 3 seconds.
    tally = tmp_path / "sent"
    with flooding_server("sse-retry", tally, tmp_path / "stderr.log") as url:
        done = agent_mcp(agent_home, url, ["call", "flood", "flood"])
    assert done.returncode == 0 and "slow" in done.stdout, done.stdout + done.stderr
    opened = int(tally.read_text())
    assert 1 <= opened <= 6, f"the GET stream was opened {opened} times in a 3-second call"
