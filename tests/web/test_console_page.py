"""The console page in a real headless Chromium against the real `agent mcp console` and real
fixture servers: connect, forms from schemas, results, the raw log, hand-written messages and
elicitations."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.fixtures.servers.form_server import NOTE_TEXT
from tests.web.console_browser import (  # noqa: F401  (the fixtures are used by name)
    Console,
    browser_fixture,
    connect,
    console_fixture,
    open_console,
    page_fixture,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page


def expect_(locator):  # type: ignore[no-untyped-def]
    """Playwright's expect, imported late so a machine without it skips instead of failing."""
    from playwright.sync_api import expect

    return expect(locator)


def open_tool(page: Page, name: str) -> None:
    page.locator('button.tab[data-tab="tools"]').click()
    page.locator(f'#tools li.item[data-name="{name}"]').click()
    expect_(page.locator("form#call-form")).to_be_visible()


def test_connecting_a_server_shows_its_handshake_info(page: Page) -> None:
    server = page.locator('li.server[data-name="form"]')
    expect_(server.locator(".state")).to_have_text("stopped")

    connect(page, "form")

    expect_(page.locator("#info .server-name")).to_have_text("form_server 1.0.0")
    expect_(page.locator("#info .protocol")).to_have_text("2025-11-25")
    expect_(page.locator("#info .capabilities")).to_contain_text("tools")
    expect_(page.locator("#tools li.item")).to_have_count(6)
    server.locator("button.disconnect").click()
    expect_(server.locator(".state")).to_have_text("stopped")


def test_a_tool_form_checks_and_converts_values_and_the_log_shows_the_call(page: Page) -> None:
    connect(page, "form")
    open_tool(page, "book")
    form = page.locator("form#call-form")
    expect_(form.locator('[name="price"]')).to_have_value("12.5")  # the default, filled
    expect_(form.locator(".field", has=page.locator('[name="title"]'))).to_contain_text(
        "What the booking is called"
    )
    form.locator('[name="title"]').fill("Trip")
    form.locator('[name="seats"]').fill("2.5")
    form.locator('[name="code"]').fill("ab")
    form.locator("button[type=submit]").click()

    expect_(form.locator(".problems li")).to_have_text(
        ["seats: must be a whole number, not 2.5", "size: required"]
    )
    expect_(page.locator("#log li.entry .summary", has_text="tools/call")).to_have_count(0)

    # The page leaves `pattern` to the bridge (which checks it with a time limit).
    form.locator('[name="seats"]').fill("3")
    form.locator('[name="size"]').select_option(label="large")
    form.locator("button[type=submit]").click()
    expect_(form.locator(".problems li")).to_have_text(
        ["arguments: code: 'ab' does not match '^[A-Z]{3}$'"]
    )
    expect_(page.locator("#log li.entry .summary", has_text="tools/call")).to_have_count(0)

    form.locator('[name="code"]').fill("")
    form.locator('[name="confirm"]').check()
    for _ in range(3):
        form.locator('fieldset[data-array="tags"] button.add').click()
    form.locator('[name="tags.0"]').fill("a")
    form.locator('[name="tags.1"]').fill("gone")
    form.locator('[name="tags.2"]').fill("b")
    form.locator('fieldset[data-array="tags"] .array-row').nth(1).locator("button.remove").click()
    form.locator('[name="guest.name"]').fill("Ann")
    form.locator('[name="guest.age"]').fill("40")
    form.locator("button[type=submit]").click()

    sent = {
        "confirm": True,
        "guest": {"age": 40, "name": "Ann"},
        "price": 12.5,
        "seats": 3,
        "size": "large",
        "tags": ["a", "b"],
        "title": "Trip",
    }
    expect_(page.locator("#result pre.text")).to_have_text(json.dumps(sent, sort_keys=True))
    structured = page.locator("#result pre.structured")
    expect_(structured).to_be_visible()
    assert json.loads(structured.text_content() or "") == sent
    expect_(page.locator("#result")).not_to_have_class("error")

    request = page.locator("#log li.entry.sent.kind-request", has_text="tools/call")
    expect_(request).to_have_count(1)
    request_id = request.get_attribute("data-id")
    answer = page.locator(f'#log li.entry.received.kind-response[data-id="{request_id}"]')
    expect_(answer).to_have_count(1)
    request.click()
    expect_(request).to_have_class("entry sent kind-request expanded")
    shown = json.loads(request.locator("pre").text_content() or "")
    assert (shown["method"], shown["params"]["name"]) == ("tools/call", "book")
    assert shown["params"]["arguments"] == sent
    answer.click()
    answered = json.loads(answer.locator("pre").text_content() or "")
    assert answered["result"]["structuredContent"] == sent

    page.locator("#log-filter").fill("tools/call")
    visible = page.locator("#log li.entry:visible")
    expect_(visible).to_have_count(2)
    page.locator('input.log-dir[value="sent"]').uncheck()
    expect_(visible).to_have_count(1)
    expect_(page.locator("#log li.entry.received.kind-response:visible")).to_have_count(1)
    page.locator("#log-filter").fill("")
    page.locator('input.log-dir[value="sent"]').check()
    expect_(page.locator("#log li.entry.sent:visible").first).to_be_visible()


def test_a_hand_written_message_is_checked_then_answered_under_its_own_id(page: Page) -> None:
    connect(page, "form")
    page.locator('button.tab[data-tab="raw"]').click()
    sent_before = page.locator("#log li.entry.sent").count()

    page.locator("textarea#raw-message").fill('{"method": "tools/list", "id": 1,}')
    page.locator("button#raw-send").click()

    expect_(page.locator("#raw-problems li")).to_contain_text("not valid JSON")
    expect_(page.locator("#raw-answer")).to_have_text("")
    assert page.locator("#log li.entry.sent").count() == sent_before

    message = {"jsonrpc": "2.0", "id": "mine-7", "method": "tools/list"}
    page.locator("textarea#raw-message").fill(json.dumps(message))
    page.locator("button#raw-send").click()

    answer = page.locator("#raw-answer")
    expect_(answer).to_contain_text('"id": "mine-7"')
    tools = json.loads(answer.text_content() or "")["result"]["tools"]
    assert [tool["name"] for tool in tools] == ["book", "ask", "survey", "long", "links", "fail"]
    expect_(page.locator("#raw-problems li")).to_have_count(0)


def test_an_elicitation_is_answered_with_a_form_and_the_server_gets_the_values(page: Page) -> None:
    connect(page, "form")
    open_tool(page, "ask")
    page.locator("form#call-form button[type=submit]").click()

    form = page.locator("form.elicitation")
    expect_(form).to_have_count(1)
    expect_(form).to_contain_text("Who are you?")
    form.locator('[name="name"]').fill("Ann")
    form.locator('[name="age"]').fill("forty")
    form.locator("button.accept").click()
    expect_(form.locator(".problems li")).to_have_text(["Age: not a number: forty"])
    form.locator('[name="age"]').fill("41")
    form.locator('[name="colour"]').select_option(label="Green")
    form.locator("button.accept").click()

    expect_(form).to_have_count(0)
    result = page.locator("#result pre.text")
    expect_(result).to_contain_text('"action": "accept"')
    assert json.loads(result.text_content() or "") == {
        "action": "accept",
        "content": {"name": "Ann", "age": 41, "subscribe": False, "colour": "green"},
    }

    page.locator("form#call-form button[type=submit]").click()
    expect_(form).to_have_count(1)
    form.locator("button.decline").click()
    expect_(form).to_have_count(0)
    expect_(result).to_contain_text('"action": "decline"')


def test_a_long_text_is_cut_with_a_note_until_show_all(page: Page) -> None:
    connect(page, "form")
    open_tool(page, "long")
    page.locator('form#call-form [name="size"]').fill("25000")
    page.locator("form#call-form button[type=submit]").click()

    note = page.locator("#result .cut-note")
    expect_(note).to_contain_text("showing 20,000 of 25,003 characters")
    text = page.locator("#result pre.text")
    assert len(text.text_content() or "") == 20_000
    note.locator("button.show-all").click()
    expect_(note).to_have_count(0)
    assert text.text_content() == "x" * 25_000 + "END"


def test_an_error_result_is_marked_as_one(page: Page) -> None:
    connect(page, "form")
    open_tool(page, "fail")
    page.locator("form#call-form button[type=submit]").click()

    expect_(page.locator("#result pre.text")).to_have_text("it failed")
    expect_(page.locator("#result")).to_have_class("result error")
    expect_(page.locator("#result .result-head")).to_contain_text("isError")


def test_a_resource_link_in_a_result_reads_the_resource(page: Page) -> None:
    connect(page, "form")
    open_tool(page, "links")
    page.locator("form#call-form button[type=submit]").click()
    expect_(page.locator("#result .part.resource pre.text")).to_have_text("embedded two")

    page.locator("#result button.resource-link").click()

    expect_(page.locator("#result h3")).to_have_text("Contents of note://one")
    expect_(page.locator("#result pre.text")).to_have_text(NOTE_TEXT)


def test_resources_page_on_and_templates_and_prompts_get_forms(page: Page) -> None:
    connect(page, "rs")
    page.locator('button.tab[data-tab="resources"]').click()
    resources = page.locator("#resources li.item")
    expect_(resources).to_have_count(5)
    page.locator("#resources button.more").click()
    expect_(resources).to_have_count(10)

    page.locator('#resources li.item[data-name="fixture://notes/2"]').click()
    expect_(page.locator("#result pre.text")).to_have_text("Note 2.")

    page.locator('button.tab[data-tab="templates"]').click()
    page.locator('#templates li.item[data-name="greeting"]').click()
    page.locator('form#call-form [name="name"]').fill("Zoë & co")
    page.locator("form#call-form button[type=submit]").click()
    expect_(page.locator("#result h3")).to_have_text(
        "Contents of fixture://greeting/Zo%C3%AB%20%26%20co"
    )

    page.locator('button.tab[data-tab="prompts"]').click()
    page.locator('#prompts li.item[data-name="review"]').click()
    page.locator("form#call-form button[type=submit]").click()
    expect_(page.locator("form#call-form .problems li")).to_have_text(["code: required"])
    page.locator('form#call-form [name="code"]').fill("print(1)")
    page.locator("form#call-form button[type=submit]").click()
    expect_(page.locator("#result .message").first).to_contain_text("print(1)")
    expect_(page.locator("#result .message img")).to_have_count(1)


def test_a_reloaded_page_asks_for_a_new_link_which_brings_the_state_and_the_log_back(
    page: Page, console: Console
) -> None:
    connect(page, "form")
    expect_(page.locator("#log li.entry.sent.kind-request", has_text="initialize")).to_have_count(1)

    page.reload()  # the page's key was in the page only

    expect_(page.locator("#banner")).to_contain_text("press Enter in the terminal")
    expect_(page.locator("#stream-state")).to_have_text("no key")
    expect_(page.locator("li.server")).to_have_count(0)
    open_console(page, console.new_link())
    expect_(page.locator('li.server[data-name="form"] .state')).to_have_text("ready")
    expect_(page.locator("#log li.entry.sent.kind-request", has_text="initialize")).to_have_count(1)
    expect_(page.locator("#banner")).to_be_hidden()


def test_the_log_follows_new_entries_unless_the_person_scrolled_up(page: Page) -> None:
    connect(page, "rs")
    page.locator('#tools li.item[data-name="flood"]').click()
    form = page.locator("form#call-form")
    form.locator('[name="count"]').fill("60")
    entries = page.locator("#log li.entry")
    at_bottom = "log => log.scrollTop + log.clientHeight >= log.scrollHeight - 2"
    log = page.locator("#log")

    form.locator("button[type=submit]").click()
    expect_(page.locator("#result pre.text")).to_be_visible()
    expect_(entries.nth(60)).to_be_attached()
    assert log.evaluate(at_bottom)

    log.evaluate("log => { log.scrollTop = 0; }")
    before = entries.count()
    form.locator("button[type=submit]").click()
    expect_(entries.nth(before + 60)).to_be_attached()
    assert log.evaluate("log => log.scrollTop") == 0

    log.evaluate("log => { log.scrollTop = log.scrollHeight; }")
    before = entries.count()
    form.locator("button[type=submit]").click()
    expect_(entries.nth(before + 60)).to_be_attached()
    assert log.evaluate(at_bottom)


def test_a_form_answered_in_one_tab_disappears_from_the_other(page: Page, console: Console) -> None:
    other = page.context.new_page()
    open_console(other, console.new_link())  # a second tab: a link of its own
    expect_(other.locator('li.server[data-name="form"]')).to_be_visible()
    connect(page, "form")
    open_tool(page, "ask")
    page.locator("form#call-form button[type=submit]").click()
    expect_(other.locator("form.elicitation")).to_have_count(1)
    expect_(page.locator("form.elicitation")).to_have_count(1)

    other.locator('form.elicitation [name="name"]').fill("Bo")
    other.locator("form.elicitation button.accept").click()

    expect_(page.locator("form.elicitation")).to_have_count(0)
    expect_(other.locator("form.elicitation")).to_have_count(0)
    result = json.loads(page.locator("#result pre.text").text_content() or "")
    assert result == {"action": "accept", "content": {"name": "Bo", "subscribe": False}}
    other.close()
