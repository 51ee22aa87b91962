"""Cookie tossing: another server on 127.0.0.1 (cookies ignore the port) sets
`agent_console=junk; Path=/api`, and the browser sends that more specific cookie first
(RFC 6265 5.4), before the console's own. The junk must neither lock the page out nor, with it,
let anything through without the page's key; and no key or token reaches the bridge's stderr."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.test_console_bridge_guard import fixture_server, save_servers
from tests.web.console_helpers import Console, running_console

NO_KEY = "this page has no key for the console: open the link that agent mcp console printed\n"


@pytest.fixture
def console(tmp_path: Path) -> Iterator[Console]:
    home = tmp_path / "home"
    save_servers(home, {"fx": fixture_server("tools_server.py")}, trusted=("fx",))
    with running_console(home) as running:
        yield running


def test_a_tossed_cookie_ahead_of_the_real_one_neither_locks_out_nor_replaces_the_key(
    console: Console,
) -> None:
    tossed = {"Cookie": f"agent_console=junk; agent_console={console.cookie}"}
    with_key = console.request("GET", "/api/servers", headers=tossed)
    without_key = console.request("GET", "/api/servers", headers=tossed, key=False)

    assert with_key.status == 200
    assert (without_key.status, without_key.text) == (401, NO_KEY)
    assert console.key and console.key not in console.stderr()
    assert console.token not in console.stderr()
