"""The console's one-time link never goes on another program's command line (issue 14, F2).

Every local user can read /proc/PID/cmdline: a browser launcher started with the link in its
argv hands the token to whoever polls /proc first, and that user then owns the console (runs
the person's trusted servers). The launcher is given a private file that holds the link
instead. Real `agent mcp console` with $BROWSER set to a program that records its argv
(Python's webbrowser runs $BROWSER as one path with the URL as its only argument).
"""

from __future__ import annotations

import os
import re
import select
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tests.fixtures.oauth_cli import recording_browser
from tests.web.console_browser import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, require_browser
from tests.web.console_helpers import (
    REQUEST_TIMEOUT,
    Console,
    goes_on_to_the_console,
    running_console,
)


def read_all(descriptor: int) -> str:
    """Everything the browser wrote into its record (a FIFO), each wait bounded."""
    data = b""
    while True:
        readable, _, _ = select.select([descriptor], [], [], REQUEST_TIMEOUT)
        assert readable, "the browser was never started"
        chunk = os.read(descriptor, 65536)
        if not chunk:
            return data.decode()
        data += chunk


@contextmanager
def handed_to_the_browser(tmp_path: Path, agent_home: Path) -> Iterator[tuple[Console, str]]:
    """`agent mcp console` (browser on) and the arguments it started the $BROWSER with."""
    browser, record = recording_browser(tmp_path)  # writes its arguments into `record`
    os.mkfifo(record)  # so the test can wait for them
    reader = os.open(record, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with running_console(
            agent_home, opened=False, browser=True, env={"BROWSER": str(browser)}
        ) as console:
            yield console, read_all(reader)
    finally:
        os.close(reader)


def test_the_browser_gets_a_private_file_and_never_the_token_in_its_argv(
    tmp_path: Path, agent_home: Path
) -> None:
    with handed_to_the_browser(tmp_path, agent_home) as (console, arguments):
        assert console.token not in arguments
        [address] = arguments.split()
        assert address.startswith("file:///")
        page = Path(unquote(urlsplit(address).path))
        assert stat.S_IMODE(page.stat().st_mode) == 0o600
        assert stat.S_IMODE(page.parent.stat().st_mode) == 0o700
        assert page.stat().st_uid == page.parent.stat().st_uid == os.getuid()
        assert not page.parent.is_symlink()
        html = page.read_text(encoding="utf-8")
        link = f"http://127.0.0.1:{console.port}/open?token={console.token}"
        refresh = re.search(r'<meta http-equiv="refresh" content="0;url=([^"]+)">', html)
        assert refresh is not None and refresh[1] == link
        assert re.search(r'<a href="([^"]+)">', html)[1] == link  # type: ignore[index]
        # Following the file (as the browser does) opens the console.
        assert goes_on_to_the_console(console.open_link())
        assert console.request("GET", "/api/servers").status == 200
    assert not page.exists(), "the file with the link outlived the console"


def test_chromium_opening_the_private_file_lands_on_the_console_with_its_cookie(
    tmp_path: Path, agent_home: Path
) -> None:
    """The file is another site to the browser: the cookie must still reach the console."""
    require_browser()
    from playwright.sync_api import expect, sync_playwright

    with (
        handed_to_the_browser(tmp_path, agent_home) as (console, arguments),
        sync_playwright() as playwright,
    ):
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = chromium.new_page()
            page.goto(arguments.strip())
            expect(page).to_have_url(f"http://127.0.0.1:{console.port}/", timeout=WAIT_MS)
            # The page's key and cookie both work: its event stream is open.
            expect(page.locator("#stream-state")).to_have_text("live", timeout=WAIT_MS)
        finally:
            chromium.close()


def test_without_a_browser_no_file_with_the_link_is_written(agent_home: Path) -> None:
    with running_console(agent_home) as console:
        written = [
            path
            for path in agent_home.rglob("*")
            if path.is_file() and console.token in path.read_text(errors="replace")
        ]
        assert written == []


def test_a_link_folder_that_is_not_a_private_directory_is_not_used(
    tmp_path: Path, agent_home: Path
) -> None:
    """Planted in the data home, a file named like the folder is never written through."""
    agent_home.mkdir(parents=True, exist_ok=True)
    (agent_home / "console-links").write_text("planted\n")
    browser, record = recording_browser(tmp_path)
    with running_console(agent_home, browser=True, env={"BROWSER": str(browser)}) as console:
        assert console.request("GET", "/api/servers").status == 200  # the printed link works
    assert (agent_home / "console-links").read_text() == "planted\n"
    assert not record.exists(), "the browser was started without a private file"
    assert "Not opening the browser: " in console.stderr()
    assert "console-links could not be made" in console.stderr()
