"""A hostile server's completion values in the console: markup in a suggested value is shown
as text in the page (never parsed as HTML), a value with a line break is never offered, and
the bridge checks the request's fields. Real `agent mcp console`, real
completing_prompt_server.py --hostile, Debian's Chromium and plain HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tests.fixtures.mcp_fixtures import save_trusted_stdio_server, server_command
from tests.fixtures.servers.completing_prompt_server import HOSTILE_VALUES
from tests.web.console_browser import (  # noqa: F401  (the fixtures are used by name)
    Console,
    browser_fixture,
    page_fixture,
)
from tests.web.console_helpers import running_console
from tests.web.test_console_prompt_completion import (  # noqa: F401
    expect_,
    kitchen_console_fixture,
    open_order,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page


def test_markup_in_a_suggested_value_is_shown_as_text_and_runs_nothing(
    console: Console, page: Page
) -> None:
    title = page.title()
    open_order(page, "evil")
    dish = page.locator('form#call-form input[name="dish"]')
    dish.press_sequentially("<")
    offered = page.locator("form#call-form .completions button.completion")
    expect_(offered).to_have_text(list(HOSTILE_VALUES))
    assert (
        page.locator("form#call-form .completions img, form#call-form .completions b").count() == 0
    )
    offered.first.click()
    expect_(dish).to_have_value(HOSTILE_VALUES[0])
    page.wait_for_timeout(300)
    assert page.title() == title and console.dialogs == []


def test_the_bridge_offers_no_value_with_a_line_break_and_checks_its_fields(
    agent_home: Path,
) -> None:
    import os

    command = server_command("completing_prompt_server.py", "--hostile")
    save_trusted_stdio_server(agent_home, "evil", command, os.environ, selected=None)
    with running_console(agent_home) as bridge:
        assert bridge.post("/api/servers/evil/connect", {}).status == 200
        path = "/api/servers/evil/complete"
        answer = bridge.post(path, {"prompt": "order", "argument": "dish", "value": ""})
        assert answer.status == 200, answer.text
        values = answer.json()["values"]
        assert "two\nlines" not in values and set(HOSTILE_VALUES) <= set(values)
        assert answer.json()["total"] == len(values)  # the dropped value is not "more"
        for body, field in [
            ({"argument": "dish"}, "prompt"),
            ({"prompt": "order", "argument": 3}, "argument"),
            ({"prompt": "order", "argument": "dish", "value": None}, "value"),
            ({"prompt": "order", "argument": "dish", "context": {"cuisine": 1}}, "context"),
        ]:
            refused = bridge.post(path, body)
            assert refused.status == 400 and refused.json()["error"].startswith(f"{field}:")
        unknown = bridge.post("/api/servers/nobody/complete", {"prompt": "p", "argument": "a"})
        assert unknown.status == 404
