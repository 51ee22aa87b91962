"""Web page requests (URL-mode elicitation) in the console page, in real Chromium: the whole URL
and its host shown as text, and the page opened only by the person's click on its link, in a
new tab; the console page never navigates itself, and Decline opens nothing."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.web.console_browser import (  # noqa: F401  (the fixtures are used by name)
    Console,
    browser_fixture,
    connect,
    console_fixture,
    page_fixture,
)
from tests.web.test_console_page import expect_, open_tool

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

URL = "https://accounts.example.com/connect?flow=7&next=%2Fdone"


def ask_to_open(page: Page, url: str) -> None:
    """Call the pages server's open_page with `url` from the tool form."""
    connect(page, "pages")
    open_tool(page, "open_page")
    page.locator('form#call-form [name="url"]').fill(url)
    page.locator("form#call-form button[type=submit]").click()


def test_the_page_shows_the_whole_url_and_opens_it_only_from_the_persons_click(
    page: Page,
) -> None:
    console_address = page.url
    opened: list[str] = []

    def serve(route: Route) -> None:
        opened.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<p>signed in</p>")

    page.context.route("https://accounts.example.com/**", serve)
    ask_to_open(page, URL)
    request = page.locator("form.url-elicitation")
    expect_(request).to_have_count(1)
    expect_(request.locator("pre.url")).to_have_text(URL)
    expect_(request.locator("pre.host")).to_have_text("Host: accounts.example.com")
    expect_(request).to_contain_text("Connect your account to continue.")
    assert opened == [] and len(page.context.pages) == 1  # shown, not opened

    with page.context.expect_page() as new_tab:
        request.locator("a.open-page").click()
    new_tab.value.wait_for_load_state()
    assert new_tab.value.url == URL
    assert page.url == console_address  # the console page stayed where it was
    expect_(request).to_have_count(0)
    result = page.locator("#result pre.text")
    expect_(result).to_contain_text('"action"')
    assert json.loads(result.text_content() or "") == {"action": "accept"}
    assert opened == [URL]


def test_decline_opens_nothing_and_the_server_hears_decline(page: Page) -> None:
    opened: list[str] = []
    page.context.route("https://accounts.example.com/**", lambda route: opened.append("x"))
    ask_to_open(page, URL)
    request = page.locator("form.url-elicitation")
    expect_(request).to_have_count(1)
    request.locator("button.decline").click()
    expect_(request).to_have_count(0)
    result = page.locator("#result pre.text")
    expect_(result).to_contain_text('"action"')
    assert json.loads(result.text_content() or "") == {"action": "decline"}
    assert opened == [] and len(page.context.pages) == 1


def test_a_javascript_url_never_reaches_the_page(page: Page, console: Console) -> None:
    ask_to_open(page, "javascript:alert('opened')")
    result = page.locator("#result pre.text")
    expect_(result).to_contain_text('"action"')
    assert json.loads(result.text_content() or "") == {"action": "decline"}
    expect_(page.locator("#log")).to_contain_text("this URL has javascript:")
    expect_(page.locator("form.url-elicitation")).to_have_count(0)
    assert console.dialogs == []
