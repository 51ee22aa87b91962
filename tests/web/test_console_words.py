"""What the console says, in a real headless Chromium against the real `agent mcp console`:
tool names broken only between their words, the era probe's refusal shown as the normal
fallback it is (not as a red error on a healthy connection), and a server whose program does
not exist said to be missing, not to need trust."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent.mcp.config.document import parse_document_data
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import save_trusted_stdio_server, server_command, stop_child
from tests.fixtures.tool_catalog import save_catalog_server
from tests.web.console_browser import (  # noqa: F401  (the fixtures are used by name)
    STOP_TIMEOUT,
    Console,
    browser_fixture,
    connect,
    page_fixture,
    require_browser,
)
from tests.web.console_helpers import close_terminal, launch_console

if TYPE_CHECKING:
    from playwright.sync_api import Page

LONG_NAMES = (
    "get_the_current_time_in_any_timezone_of_the_whole_wide_world",
    "resolve-library-identifier-for-the-documentation-of-a-package",
)
MISSING = "no-such-program-for-the-console-test"


def expect_(locator):  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    return expect(locator)


@pytest.fixture(name="console")
def console_fixture(agent_home: Path, tmp_path: Path) -> Iterator[Console]:
    """The console with: `words` (tools with long names), `legacy` (a 2025 server: it refuses
    the probe), `modern` (a 2026-only server slow to start: it refuses the handshake that
    follows the probe given up), and `ghost`, whose program exists nowhere."""
    require_browser()
    tools = [
        {"name": name, "description": "A tool.", "inputSchema": {"type": "object"}}
        for name in LONG_NAMES
    ]
    save_catalog_server(agent_home, "words", tools, tmp_path / "servers", environ=os.environ)
    save_trusted_stdio_server(
        agent_home, "legacy", server_command("form_server.py"), os.environ, selected=None
    )
    modern = server_command("modern_server.py", "--modern-only", "--start-delay", "4")
    save_trusted_stdio_server(agent_home, "modern", modern, os.environ, selected=None)
    store = McpStore(agent_home / "mcp-servers.json")
    servers = {d.name: d.to_json() for d in store.load().definitions}
    servers["ghost"] = {"command": MISSING, "args": ["serve"]}
    store.replace_definitions(parse_document_data({"mcpServers": servers}, "test").definitions)
    stderr_path = tmp_path / "console-stderr.log"
    process, url = launch_console(os.environ, stderr_path, "--port", "0", terminal=True)
    try:
        yield Console(url=url, process=process, home=agent_home)
    finally:
        status = stop_child(process, timeout=STOP_TIMEOUT)
        close_terminal(process)
    assert status == 0, stderr_path.read_text(encoding="utf-8", errors="replace")


# Where the browser broke each line of an element's text: the text before each break.
LINE_BREAKS = """(element) => {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const chars = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (rect) chars.push([node.data[i], rect.top]);
    }
  }
  const before = [];
  for (let i = 1; i < chars.length; i++) {
    if (chars[i][1] > chars[i - 1][1] + 2) before.push(chars.slice(0, i).map((c) => c[0]).join(""));
  }
  return before;
}"""


def test_a_long_tool_name_breaks_only_between_its_words(page: Page) -> None:
    page.set_viewport_size({"width": 900, "height": 800})
    connect(page, "words")
    page.locator('button.tab[data-tab="tools"]').click()
    for name in LONG_NAMES:
        item = page.locator(f'#tools li.item[data-name="{name}"] .item-name')
        expect_(item).to_have_text(name)
        breaks = item.evaluate(LINE_BREAKS)
        assert breaks, f"{name} fits on one line: the test shows nothing"
        assert all(text.endswith(("_", "-")) for text in breaks), breaks
        assert item.get_attribute("title") == name  # the whole name on hover


def test_the_era_probe_refused_is_shown_as_the_normal_fallback_not_an_error(page: Page) -> None:
    connect(page, "legacy")
    refused = page.locator("#log li.entry", has_text="server/discover #")
    refused = refused.filter(has_text="fallback")
    expect_(refused).to_have_count(1)
    expect_(refused).not_to_have_class("entry received kind-error")
    expect_(refused.locator(".summary")).to_contain_text(
        "the server speaks the 2025 era, agent goes on with initialize"
    )
    connect(page, "modern")
    refused = page.locator("#log li.entry", has_text="initialize #").filter(has_text="fallback")
    expect_(refused).to_have_count(1)
    expect_(refused.locator(".summary")).to_contain_text(
        "the server speaks only the 2026 era, agent asks server/discover again"
    )
    expect_(page.locator("#log li.entry.kind-error")).to_have_count(0)
    colour = refused.locator(".summary").evaluate("(node) => getComputedStyle(node).color")
    assert colour != "rgb(197, 48, 48)"  # --bad, the colour of errors


def test_a_server_whose_program_is_missing_is_said_missing_not_untrusted(page: Page) -> None:
    server = page.locator('li.server[data-name="ghost"]')
    expect_(server).to_contain_text(
        "this server cannot start, its program is not found on this computer"
    )
    assert "agent mcp trust" not in (server.text_content() or "")
    assert MISSING not in (server.text_content() or "")  # the page is told no command
    assert "agent mcp trust" not in (server.locator("button.connect").get_attribute("title") or "")
    expect_(server.locator("button.connect")).to_be_disabled()
