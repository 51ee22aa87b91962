"""A prompt's arguments complete in the console page as they do in the chat's Tab: the real
`agent mcp console`, real completing_prompt_server.py processes and Debian's Chromium.

kitchen completes `cuisine`, and `dish` from the cuisine given before it (the context);
plain has the same prompt but no completions capability, so its fields offer nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.fixtures.mcp_fixtures import save_trusted_stdio_server, server_command, stop_child
from tests.web.console_browser import (  # noqa: F401  (the fixtures are used by name)
    STOP_TIMEOUT,
    Console,
    browser_fixture,
    connect,
    open_console,
    page_fixture,
    require_browser,
)
from tests.web.console_helpers import close_terminal, launch_console

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

KITCHENS = {
    "kitchen": server_command("completing_prompt_server.py"),
    "plain": server_command("completing_prompt_server.py", "--no-completions"),
    "evil": server_command("completing_prompt_server.py", "--hostile"),
}


def expect_(locator):  # type: ignore[no-untyped-def]
    """Playwright's expect, imported late so a machine without it skips instead of failing."""
    from playwright.sync_api import expect

    return expect(locator)


@pytest.fixture(name="console")
def kitchen_console_fixture(agent_home: Path, tmp_path: Path) -> Iterator[Console]:
    """`agent mcp console` with the KITCHENS servers configured and trusted."""
    require_browser()
    for name, command in KITCHENS.items():
        save_trusted_stdio_server(agent_home, name, command, os.environ, selected=None)
    stderr_path = tmp_path / "console-stderr.log"
    process, url = launch_console(os.environ, stderr_path, "--port", "0", terminal=True)
    try:
        yield Console(url=url, process=process, home=agent_home)
    finally:
        status = stop_child(process, timeout=STOP_TIMEOUT)
        close_terminal(process)
    assert status == 0, stderr_path.read_text(encoding="utf-8", errors="replace")


def open_order(page: Page, server: str) -> None:
    """Connect `server`, open its prompts and the prompt `order`."""
    connect(page, server)
    page.locator('button.tab[data-tab="prompts"]').click()
    page.locator('#prompts li.item[data-name="order"]').click()
    expect_(page.locator("form#call-form")).to_have_count(1)


def server_log(home: Path) -> str:
    """What the completing servers wrote to stderr (the contexts they were asked with)."""
    return "".join(log.read_text(encoding="utf-8") for log in sorted(home.glob("**/*.log")))


def test_typing_in_a_prompt_argument_offers_the_servers_values_with_earlier_ones_as_context(
    console: Console, page: Page
) -> None:
    open_order(page, "kitchen")
    form = page.locator("form#call-form")
    cuisine = form.locator('input[name="cuisine"]')
    cuisine.press_sequentially("it")
    offered = form.locator(".completions").first.locator("button.completion")
    expect_(offered).to_have_text(["italian"])
    offered.first.click()
    expect_(cuisine).to_have_value("italian")
    expect_(form.locator(".completions").first).to_be_hidden()  # taken: nothing left to offer

    dish = form.locator('input[name="dish"]')
    dish.press_sequentially("p")
    dishes = form.locator(".completions").nth(1).locator("button.completion")
    expect_(dishes).to_have_text(["pizza", "pasta"])  # italian's, not paneer
    dish.press("Escape")
    expect_(form.locator(".completions").nth(1)).to_be_hidden()
    dish.press_sequentially("a")  # typing again asks again
    expect_(dishes).to_have_text(["pasta"])
    dishes.first.click()
    expect_(dish).to_have_value("pasta")
    assert "complete dish context={'cuisine': 'italian'}" in server_log(console.home)

    form.locator("button[type=submit]").click()
    expect_(page.locator("#result pre.text")).to_have_text("order: pasta (italian)")
    # the log shows the completion requests like any other message
    expect_(
        page.locator("#log li.entry .summary", has_text="completion/complete").first
    ).to_be_attached()


def test_a_server_without_completions_offers_none_and_is_never_asked(
    console: Console, page: Page
) -> None:
    open_order(page, "plain")
    form = page.locator("form#call-form")
    form.locator('input[name="cuisine"]').press_sequentially("it")
    form.locator('input[name="dish"]').press_sequentially("p")
    page.wait_for_timeout(800)  # past the page's typing pause: a question would have gone
    expect_(form.locator("button.completion")).to_have_count(0)
    expect_(page.locator("#log li.entry .summary", has_text="completion/complete")).to_have_count(0)
    assert re.search(r"complete \w+ context", server_log(console.home)) is None


def test_server_everythings_prompt_style_completes_in_the_page(
    agent_home: Path, tmp_path: Path, browser: Browser
) -> None:
    """The reference server (Node, the TypeScript SDK) as a second, independent completer."""
    from agent.mcp.config.document import parse_document_data
    from agent.mcp.store import McpStore
    from tests.fixtures.everything import everything_definition, install_everything
    from tests.fixtures.mcp_fixtures import trust_launch

    require_browser()
    store = McpStore(agent_home / "mcp-servers.json")
    document = {"mcpServers": {"ev": everything_definition(install_everything())}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    trust_launch(store, "ev", Path.cwd())  # the console's project folder: where it runs
    stderr_path = tmp_path / "console-stderr.log"
    process, url = launch_console(os.environ, stderr_path, "--port", "0", terminal=True)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        open_console(page, url)
        connect(page, "ev")
        page.locator('button.tab[data-tab="prompts"]').click()
        page.locator('#prompts li.item[data-name="complex_prompt"]').click()
        page.locator('form#call-form input[name="style"]').press_sequentially("f")
        offered = page.locator("form#call-form .completions button.completion")
        expect_(offered).to_have_text(["formal", "friendly"])
    finally:
        context.close()
        stop_child(process, timeout=STOP_TIMEOUT)
        close_terminal(process)
