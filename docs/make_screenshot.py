"""Take docs/console.png, the picture of the web console in docs/console.md (1280x800).

Run from the repository root: .venv/bin/python docs/make_screenshot.py

It starts `agent mcp console --no-browser` with a throw-away AGENT_HOME holding two trusted
fixture servers (and one untrusted), connects them in Debian's Chromium, calls a tool through
its generated form, opens a log entry, and saves the page.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fixtures.mcp_fixtures import stop_child  # noqa: E402  (after the path is set)
from tests.web.console_browser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    STOP_TIMEOUT,
    WAIT_MS,
    save_servers,
)
from tests.web.console_helpers import launch_console  # noqa: E402

OUTPUT = REPO / "docs" / "console.png"


def drive(url: str) -> None:
    """Open the console, put it in a state worth showing, and save the screenshot."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(WAIT_MS)
        expect.set_options(timeout=WAIT_MS)
        page.goto(url)
        page.wait_for_url(url.split("/open?")[0] + "/")  # the page drops the used link
        for name in ("rs", "form"):
            server = page.locator(f'li.server[data-name="{name}"]')
            server.locator("button.connect").click()
            expect(server.locator(".state")).to_have_text("ready")
        page.locator('#tools li.item[data-name="book"]').click()
        form = page.locator("form#call-form")
        form.locator('[name="title"]').fill("Team offsite")
        form.locator('[name="code"]').fill("LIS")
        form.locator('[name="seats"]').fill("4")
        form.locator('[name="confirm"]').check()
        form.locator('[name="size"]').select_option(label="medium")
        form.locator('fieldset[data-array="tags"] button.add').click()
        form.locator('[name="tags.0"]').fill("travel")
        form.locator('[name="guest.name"]').fill("Ada")
        form.locator("button[type=submit]").click()
        expect(page.locator("#result pre.structured")).to_be_visible()
        request = page.locator("#log li.entry.sent.kind-request", has_text="tools/call")
        request.click()
        expect(request.locator("pre")).to_be_visible()
        # The end of the form and the result under it.
        page.locator(".detail").evaluate(
            "node => { node.scrollTop = document.getElementById('result').offsetTop - 300; }"
        )
        page.screenshot(path=str(OUTPUT))
        browser.close()


def add_untrusted_server(home: Path) -> None:
    """A third server, configured but never trusted: the list shows what to run for it."""
    from agent.mcp.config.document import parse_document_data
    from agent.mcp.store import McpStore

    store = McpStore(home / "mcp-servers.json")
    servers = {d.name: d.to_json() for d in store.load().definitions}
    servers["time"] = {"command": "uvx", "args": ["mcp-server-time"]}
    store.replace_definitions(parse_document_data({"mcpServers": servers}, "docs").definitions)


def main() -> None:
    """Start the console in a temporary home, drive it, stop it."""
    with tempfile.TemporaryDirectory(prefix="console-shot-") as tmp:
        home = Path(tmp) / "home"
        # Here too: the trust records are written with the key of this AGENT_HOME.
        os.environ["AGENT_HOME"] = str(home)
        env = dict(os.environ)
        save_servers(home, env, names=("form", "rs"))
        add_untrusted_server(home)
        stderr_path = Path(tmp) / "stderr.log"
        process, url = launch_console(env, stderr_path, "--port", "0", cwd=Path(tmp))
        try:
            drive(url)
        finally:
            stop_child(process, timeout=STOP_TIMEOUT)
    print(f"wrote {OUTPUT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
