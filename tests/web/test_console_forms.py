"""A server's form in the console page as a person fills it, in real Chromium: multi-selects
as checkboxes with their defaults and titles, formats checked with the field's title, and a
form left behind by a closed page cancelled, not declined."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.web.console_browser import (  # noqa: F401  (the fixtures are used by name)
    ARTIFACTS,
    Console,
    browser_fixture,
    connect,
    console_fixture,
    open_console,
    page_fixture,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


def expect_(locator):  # type: ignore[no-untyped-def]
    """Playwright's expect, imported late so a machine without it skips instead of failing."""
    from playwright.sync_api import expect

    return expect(locator)


def ask_survey(page: Page) -> None:
    connect(page, "form")
    page.locator('button.tab[data-tab="tools"]').click()
    page.locator('#tools li.item[data-name="survey"]').click()
    page.locator("form#call-form button[type=submit]").click()


def test_a_multi_select_shows_titles_starts_at_its_default_and_sends_the_values(
    page: Page,
) -> None:
    ask_survey(page)
    form = page.locator("form.elicitation")
    expect_(form).to_have_count(1)
    instruments = form.locator("fieldset.choices", has_text="Instruments")
    expect_(instruments.locator("label.choice")).to_have_text([" Guitar", " Piano", " Violin"])
    expect_(instruments.locator("input").first).to_be_checked()  # the default, Guitar
    fish = form.locator("fieldset.choices", has_text="Fish")
    expect_(fish.locator("label.choice")).to_have_text([" Tuna", " Salmon", " Trout"])
    fish.locator("label.choice", has_text="Salmon").locator("input").check()
    instruments.locator("label.choice", has_text="Piano").locator("input").check()
    instruments.locator("label.choice", has_text="Violin").locator("input").check()
    form.locator('[name="email"]').fill("ada at example")
    form.locator('[name="birthdate"]').fill("1815-13-10")
    form.locator("button.accept").click()

    expect_(form.locator(".problems li")).to_have_text(
        [
            "Instruments: choose at most 2",
            "Email address: enter an email address, like name@example.com",
            "Birthdate: enter a date as YYYY-MM-DD, like 2026-03-31",
        ]
    )
    instruments.locator("label.choice", has_text="Violin").locator("input").uncheck()
    form.locator('[name="email"]').fill("ada@example.org")
    form.locator('[name="birthdate"]').fill("1815-12-10")
    form.locator("button.accept").click()

    expect_(form).to_have_count(0)
    result = page.locator("#result pre.text")
    expect_(result).to_contain_text('"action": "accept"')
    assert json.loads(result.text_content() or "")["content"] == {
        "instruments": ["Guitar", "Piano"],
        "fish": ["fish-2"],
        "hero": "hero-1",
        "email": "ada@example.org",
        "birthdate": "1815-12-10",
    }


def test_a_form_left_by_a_closed_page_comes_back_in_the_next_page_to_be_answered(
    browser: Browser, console: Console, page: Page
) -> None:
    ask_survey(page)
    expect_(page.locator("form.elicitation")).to_have_count(1)
    page.goto("about:blank")  # the person closes the console's only page mid-form

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        again = context.new_page()
        open_console(again, console.new_link())
        left = again.locator("form.elicitation")
        expect_(left).to_contain_text("Who are you?")  # the open form, shown again
        left.locator("button.cancel").click()
        expect_(left).to_have_count(0)
    finally:
        context.close()


def test_connect_is_off_for_an_untrusted_server_and_says_how_to_trust_it(
    browser: Browser, console: Console
) -> None:
    from agent.mcp.config.document import parse_document_data
    from agent.mcp.store import McpStore
    from tests.fixtures.mcp_fixtures import server_command, trust_launch

    command = server_command("form_server.py")
    document = {"mcpServers": {"stranger": {"command": command[0], "args": command[1:]}}}
    McpStore(console.home / "mcp-servers.json").merge_definitions(
        parse_document_data(document, "test").definitions
    )
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        open_console(page, console.new_link())
        stranger = page.locator('li.server[data-name="stranger"]')
        expect_(stranger.locator("button.connect")).to_be_disabled()
        expect_(stranger.locator(".note")).to_have_text(
            "Connect is off: this server is not trusted here. Run agent mcp trust stranger in "
            "a terminal; Connect turns on here once it is trusted."
        )
        trusted = page.locator('li.server[data-name="form"]')
        expect_(trusted.locator("button.connect")).to_be_enabled()

        # what `agent mcp trust stranger` records, here (the console's project folder)
        trust_launch(McpStore(console.home / "mcp-servers.json"), "stranger", Path.cwd())
        expect_(stranger.locator("button.connect")).to_be_enabled()  # no reload needed
        expect_(stranger.locator(".note")).not_to_contain_text("not trusted")
        connect(page, "stranger")
    finally:
        context.close()


@pytest.mark.parametrize("width", [700, 800, 960])
def test_at_half_a_screens_width_a_form_has_room_and_nothing_scrolls_sideways(
    browser: Browser, console: Console, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        open_console(page, console.new_link())
        ask_survey(page)
        form = page.locator("form.elicitation")
        expect_(form).to_have_count(1)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"console-{width}x800.png"))  # to look at
        sizes = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert sizes[0] <= sizes[1]  # no horizontal scroll
        center = box_of(page, ".center-panel")
        assert center["width"] >= 500  # not squeezed beside the log
        # the panels stack: servers beside the work, the log under both, none over another
        servers, log = box_of(page, ".servers-panel"), box_of(page, ".layout > .panel:last-child")
        assert servers["x"] + servers["width"] <= center["x"]
        assert log["y"] >= max(servers["y"] + servers["height"], center["y"] + center["height"])
        assert log["width"] >= width - 1
        # nothing cut off at the right: every tab, the server's buttons, the form's buttons
        for selector in ["button.tab", "li.server button", "form.elicitation .buttons button"]:
            for found in page.locator(selector).all():
                edge = found.bounding_box()
                assert edge is not None and edge["x"] + edge["width"] <= width, selector
        form.locator("button.cancel").click()
        expect_(form).to_have_count(0)
    finally:
        context.close()


def box_of(page: Page, selector: str) -> dict[str, float]:
    """The element's box on the page (it must be shown)."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return dict(box)


def test_optional_lists_start_empty_and_a_form_left_so_is_accepted(page: Page) -> None:
    connect(page, "form")
    page.locator('#tools li.item[data-name="book"]').click()
    call = page.locator("form#call-form")
    expect_(call.locator('fieldset[data-array="tags"] .array-row')).to_have_count(0)
    call.locator('[name="title"]').fill("Trip")
    call.locator('[name="seats"]').fill("2")
    call.locator('[name="size"]').select_option(label="small")
    call.locator("button[type=submit]").click()
    expect_(page.locator("#result pre.text")).to_contain_text('"title": "Trip"')
    assert "tags" not in json.loads(page.locator("#result pre.text").text_content() or "")

    page.locator('#tools li.item[data-name="survey"]').click()
    page.locator("form#call-form button[type=submit]").click()
    form = page.locator("form.elicitation")
    fish = form.locator("fieldset.choices", has_text="Fish")
    expect_(fish.locator("input:checked")).to_have_count(0)  # optional, no default: empty
    form.locator('[name="email"]').fill("ada@example.org")
    form.locator("button.accept").click()
    expect_(form).to_have_count(0)  # nothing blocked Accept
    expect_(page.locator("#result pre.text")).to_contain_text('"action": "accept"')
    result = json.loads(page.locator("#result pre.text").text_content() or "")
    assert result["action"] == "accept" and "fish" not in result["content"]
