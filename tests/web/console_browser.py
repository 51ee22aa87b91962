"""The web console as a person uses it: the real `agent mcp console` in a subprocess, real
fixture servers as its children, and Debian's Chromium driven by Playwright.

Test modules import the fixtures below (console_fixture, browser_fixture, page_fixture) to
use `console`, `browser` and `page`. Each test keeps a
screenshot in artifacts/ at the repository root and prints its path.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests import deadlines
from tests.fixtures.mcp_fixtures import (
    pid_alive,
    save_trusted_stdio_server,
    server_command,
    stop_child,
)
from tests.web.console_helpers import close_terminal, launch_console, new_link

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
STOP_TIMEOUT = deadlines.STOP  # seconds for it to stop every server and exit
WAIT_MS = int(deadlines.BROWSER * 1000)  # every browser wait, in milliseconds
# Chromium without the background-networking flags keeps calling a network that is closed here.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# The fixture servers the console is given: name -> the program and its arguments.
SERVERS: dict[str, list[str]] = {
    "form": server_command("form_server.py"),
    "rs": server_command("resources_server.py", "--notes", "12", "--page-size", "5"),
    "hostile": server_command("form_server.py", "--hostile"),
    "pages": server_command("url_elicitation_server.py"),  # asks the page to open web pages
}


def require_browser() -> None:
    """Skip (or fail, when AGENT_REQUIRE_BROWSER=1 as .ci/run sets) without Chromium/Playwright."""
    problem = None
    if not Path(CHROMIUM).is_file():
        problem = f"no browser at {CHROMIUM}: install Debian's chromium (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "playwright is not installed: pip install -e '.[dev]'"
    if problem is None:
        return
    if os.environ.get("AGENT_REQUIRE_BROWSER") == "1":
        pytest.fail(f"AGENT_REQUIRE_BROWSER=1 but {problem}")
    pytest.skip(problem)


@dataclass
class Console:
    """A running `agent mcp console`: its address and process."""

    url: str
    process: subprocess.Popen[bytes]
    home: Path
    dialogs: list[str] = field(default_factory=list)

    def new_link(self) -> str:
        """Press Enter in its terminal: a new one-time link (for a new tab, or a reload)."""
        return new_link(self.process)


def save_servers(home: Path, environ: Mapping[str, str], names: Iterable[str] = SERVERS) -> None:
    """SERVERS (or those named) saved in this AGENT_HOME, each trusted for `environ`, as
    `agent mcp trust` does."""
    for name in names:
        save_trusted_stdio_server(home, name, SERVERS[name], environ, selected=None)


def form_server_pids(home: Path) -> list[int]:
    """Every form_server started with this AGENT_HOME, from the servers' logs."""
    text = "".join(log.read_text(encoding="utf-8") for log in sorted(home.glob("**/*.log")))
    return [int(pid) for pid in re.findall(r"form_server starting pid=(\d+)", text)]


@pytest.fixture(name="console")
def console_fixture(agent_home: Path, tmp_path: Path) -> Iterator[Console]:
    """`agent mcp console --no-browser --port 0` with SERVERS configured and trusted."""
    require_browser()
    save_servers(agent_home, os.environ)
    stderr_path = tmp_path / "console-stderr.log"
    process, url = launch_console(os.environ, stderr_path, "--port", "0", terminal=True)
    try:
        yield Console(url=url, process=process, home=agent_home)
    finally:
        status = stop_child(process, timeout=STOP_TIMEOUT)
        close_terminal(process)
    assert status == 0, stderr_path.read_text(encoding="utf-8", errors="replace")
    assert [pid for pid in form_server_pids(agent_home) if pid_alive(pid)] == []


@pytest.fixture(name="browser", scope="module")
def browser_fixture() -> Iterator[Browser]:
    """One headless Chromium for the module."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(name="page")
def page_fixture(
    browser: Browser, console: Console, request: pytest.FixtureRequest
) -> Iterator[Page]:
    """A fresh browser context on the console's one-time link; a screenshot is kept at the end.

    Every dialog the page opens is recorded in console.dialogs (and dismissed): a page that
    runs a server's script would show one.
    """
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    expect.set_options(timeout=WAIT_MS)
    page.on("dialog", lambda dialog: (console.dialogs.append(dialog.message), dialog.dismiss()))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_console(page, console.url)
    try:
        yield page
    finally:
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / f"{request.node.name}.png"
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")
        context.close()
    assert errors == [], errors


def open_console(page: Page, link: str) -> None:
    """Open a one-time link in `page`; its script takes the used link out of the address bar."""
    page.goto(link)
    page.wait_for_url(link.split("/open?")[0] + "/")


def connect(page: Page, name: str) -> Any:
    """Click Connect on a server and wait until it is ready; returns its list item."""
    from playwright.sync_api import expect

    server = page.locator(f'li.server[data-name="{name}"]')
    server.locator("button.connect").click()
    expect(server.locator(".state")).to_have_text("ready")
    return server
