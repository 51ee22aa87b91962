"""Attack: a hostile MCP server puts HTML and script in every string the console page shows
(instructions, a tool's title, description and field help, its result, an elicitation's
message, a stderr line), sends "images" of types a browser would run (SVG, a type that breaks
out of a data: URL) and a resource link to a javascript: URI. The page must show all of it as
text: no element is created from it, no script runs, no dialog opens, only whitelisted raster
images are shown and the link is only ever read through the bridge.

Real parts: `agent mcp console` in a subprocess, form_server.py --hostile, Debian's Chromium.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.fixtures.servers.form_server import HOSTILE_TEXT, HTML_IMG, SCRIPT_LINK
from tests.web.console_browser import (  # noqa: F401  (the fixtures are used by name)
    Console,
    browser_fixture,
    connect,
    console_fixture,
    page_fixture,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

# What the page itself is made of: its one script and its stylesheet, nothing from a server.
OWN_ELEMENTS = "document.querySelectorAll('script, img, iframe, object, embed, svg, style').length"


def test_a_servers_html_shows_as_text_and_never_becomes_elements(
    page: Page, console: Console
) -> None:
    from playwright.sync_api import expect

    connect(page, "hostile")
    expect(page.locator("#info .instructions pre")).to_have_text(f"Instructions: {HOSTILE_TEXT}")
    shout = page.locator('#tools li.item[data-name="shout"]')
    expect(shout.locator(".item-desc")).to_have_text(HOSTILE_TEXT)
    expect(shout.locator(".item-name")).to_have_text("<script>alert('script')</script>")
    stderr = page.locator("#log li.entry.stderr", has_text="stderr says")
    expect(stderr.locator(".preview")).to_have_text(f"stderr says {HOSTILE_TEXT}")

    shout.click()
    expect(page.locator("form#call-form .help")).to_have_text(HTML_IMG)
    page.locator("form#call-form button[type=submit]").click()
    expect(page.locator("#result pre.text")).to_have_text(HOSTILE_TEXT)
    expect(page.locator("#result .part.note")).to_have_text(
        ["image of type image/svg+xml: not shown", 'image of type image/png" onerror="x: not shown']
    )
    link = page.locator("#result button.resource-link")
    expect(link).to_have_text(f"Read {SCRIPT_LINK}")
    link.click()  # asks the bridge to read that URI; it never becomes a link the browser follows
    expect(page.locator("#result h3")).to_have_text(f"Contents of {SCRIPT_LINK}")
    stderr.click()
    expect(stderr.locator("pre")).to_have_text(f"stderr says {HOSTILE_TEXT}")

    page.locator('#tools li.item[data-name="ask"]').click()
    page.locator("form#call-form button[type=submit]").click()
    asking = page.locator("form.elicitation")
    expect(asking.locator("pre.message")).to_have_text(f"Who are you? {HOSTILE_TEXT}")

    assert page.evaluate(OWN_ELEMENTS) == 1  # console.js's <script>, nothing else
    assert page.evaluate("document.querySelectorAll('[onerror], [onload], a[href]').length") == 0
    asking.locator("button.cancel").click()
    expect(asking).to_have_count(0)
    assert console.dialogs == []


def test_a_field_named_proto_is_sent_as_an_argument_like_any_other(
    page: Page, console: Console
) -> None:
    from playwright.sync_api import expect

    connect(page, "hostile")
    page.locator('#tools li.item[data-name="shout"]').click()
    page.locator('form#call-form [name="__proto__"]').fill("kept")
    page.locator("form#call-form button[type=submit]").click()
    expect(page.locator("#result pre.text")).to_have_text(HOSTILE_TEXT)

    request = page.locator("#log li.entry.sent.kind-request", has_text="tools/call")
    request.click()
    sent = json.loads(request.locator("pre").text_content() or "")
    assert sent["params"]["arguments"] == {"__proto__": "kept"}
