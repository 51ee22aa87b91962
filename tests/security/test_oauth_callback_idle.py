"""Idle local connections on the callback port cannot stall a login (review finding 6).

Any local process can connect to the loopback listener (its port is in the authorization URL)
and say nothing. The listener served one connection at a time, each idle one holding it for
its whole read timeout. Here the "browser" first parks idle connections on the port, then
follows the authorization URL; it records how long its own callback took.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import FOLLOW_REDIRECT, running_oauth_server

PARKED = 3
# One idle connection used to hold the listener 10 s; the whole callback takes well under that.
WITHIN = 8.0


def _parking_browser(directory: Path) -> tuple[Path, Path]:
    record = directory / "parking.log"
    script = directory / "parking-browser"
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, runpy, socket, subprocess, sys, threading, time, urllib.parse\n"
        "quiet = os.open(os.devnull, os.O_WRONLY)\n"
        "os.dup2(quiet, 1), os.dup2(quiet, 2)  # agent's pipes close when agent is done\n"
        # agent hands over a private page that leads to the authorization URL: read it first.
        f"page_target = runpy.run_path({str(FOLLOW_REDIRECT)!r})['page_target']\n"
        "url = page_target(sys.argv[1])\n"
        "query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)\n"
        "port = urllib.parse.urlsplit(query['redirect_uri'][0]).port\n"
        f"idle = [socket.create_connection(('127.0.0.1', port)) for _ in range({PARKED})]\n"
        "start = time.monotonic()\n"
        f"subprocess.run([sys.executable, {str(FOLLOW_REDIRECT)!r}, url], check=True)\n"
        f"open({str(record)!r}, 'w').write(f'{{os.getpid()}} {{time.monotonic() - start}}')\n"
        "threading.Event().wait(60)  # the idle connections stay open until we are killed\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script, record


def test_idle_connections_on_the_callback_port_do_not_delay_the_login(tmp_path: Path) -> None:
    import os
    import signal

    browser, record = _parking_browser(tmp_path)
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        login = cli.run("mcp", "login", "fx", browser=browser)
    pid, took = record.read_text().split()
    os.kill(int(pid), signal.SIGTERM)

    assert login.returncode == 0, login.stderr
    assert float(took) < WITHIN, f"the callback waited {float(took):.1f} s behind idle sockets"
