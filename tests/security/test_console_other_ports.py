"""Attack: another local server, on another port of 127.0.0.1, drives the console (issue 23).

Browsers scope cookies by host, never by port, and SameSite counts every port of 127.0.0.1 as
one site: any local server the browser visits after the console receives the console's cookie,
and its pages' requests to the console carry it. So the cookie alone must open nothing: every
API request and event stream also needs the page's key (delivered once, into the page opened
by the one-time link, and kept in its memory), and any request the browser marks as coming from
another site or another port of this one (`Sec-Fetch-Site`) is refused.

Real parts: `agent mcp console` in a subprocess with real fixture servers, Debian's Chromium,
and a real HTTP server on another port of 127.0.0.1 playing the neighbour.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from tests.web import console_helpers
from tests.web.console_browser import (  # noqa: F401  (the fixtures are used by name)
    WAIT_MS,
    Console,
    browser_fixture,
    connect,
    console_fixture,
    form_server_pids,
    open_console,
    page_fixture,
)
from tests.web.console_helpers import goes_on_to_the_console, page_key, running_console

if TYPE_CHECKING:
    from playwright.sync_api import Page

NO_KEY = "this page has no key for the console: open the link that agent mcp console printed\n"
OTHER_SITE = "refused: the browser says this request came from another site or port\n"
OTHER_SITE_LINK = (
    "refused: this link was opened from a page of another site or another port of this"
    " computer: paste it into the browser's address bar instead\n"
)
NAVIGATION = {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}


@dataclass
class Neighbour:
    """A local HTTP server on another port: serves `pages`, records every request's headers."""

    pages: dict[str, str]
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    def url(self, path: str) -> str:
        """The address of one of its pages."""
        return f"http://127.0.0.1:{self.port}{path}"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the test reads the recorded requests."""

    def do_GET(self) -> None:
        """Record the request, then serve the page (or 404)."""
        neighbour = self.server.neighbour
        headers = {name.lower(): value for name, value in self.headers.items()}
        neighbour.requests.append({"path": self.path, "headers": headers})
        page = neighbour.pages.get(self.path)
        body = (page or "not here").encode()
        self.send_response(200 if page is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, neighbour: Neighbour) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.neighbour = neighbour


@contextmanager
def neighbour_server(pages: dict[str, str]) -> Iterator[Neighbour]:
    """A Neighbour serving `pages` on a free port of 127.0.0.1 until the block ends."""
    neighbour = Neighbour(pages)
    server = _Server(neighbour)
    neighbour.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield neighbour
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def base_of(console: Console) -> str:
    """The console's origin, from its link."""
    parts = urlsplit(console.url)
    return f"{parts.scheme}://{parts.netloc}"


def stolen_cookie(page: Page, neighbour: Neighbour) -> str:
    """Visit the neighbour in the console's browser and return the console cookie it got."""
    visit = page.context.new_page()
    visit.goto(neighbour.url("/"))
    visit.close()
    cookies = [request["headers"].get("cookie", "") for request in neighbour.requests]
    found = [match[1] for value in cookies if (match := re.search(r"agent_console=([^;]+)", value))]
    assert found, f"the browser sent the neighbour no console cookie: {cookies}"
    return found[0]


def test_a_local_process_holding_the_console_cookie_but_not_the_page_key_is_refused(
    page: Page, console: Console
) -> None:
    from playwright.sync_api import expect

    with neighbour_server({"/": "<!doctype html><p>a local dev server</p>"}) as neighbour:
        cookie = stolen_cookie(page, neighbour)
    # The neighbour's process replays it: right Host, the cookie, no Origin, no Sec-Fetch-*.
    port = urlsplit(console.url).port
    assert port is not None
    thief = console_helpers.Console(console.process, port, token="", cookie=cookie)
    tried = {
        "list servers": thief.request("GET", "/api/servers"),
        "connect": thief.post("/api/servers/form/connect", {}),
        "list tools": thief.post("/api/servers/form/list", {"kind": "tools"}),
        "call": thief.post("/api/servers/form/call", {"tool": "long", "arguments": {"size": 1}}),
        "send": thief.post(
            "/api/servers/form/send", {"message": {"id": 1, "method": "tools/list"}}
        ),
        "answer a form": thief.post("/api/elicitations/1", {"action": "decline"}),
    }
    stream = console_helpers.EventStream(thief)
    try:
        opened = stream.response.status == 200  # an open stream never ends: not read
        body = b"an open event stream" if opened else stream.response.read()
        tried["event stream"] = console_helpers.Answer(stream.response.status, {}, body)
    finally:
        stream.close()
    guessed = thief.request("GET", "/api/servers", headers={"X-Console-Key": cookie})

    refused = {name: (answer.status, answer.text) for name, answer in tried.items()}
    assert refused == dict.fromkeys(tried, (401, NO_KEY))
    assert (guessed.status, guessed.text) == (401, NO_KEY)  # the cookie is not the key
    assert form_server_pids(console.home) == []  # nothing was started
    expect(page.locator('li.server[data-name="form"] .state')).to_have_text("stopped")
    connect(page, "form")  # the page itself still works


def test_a_page_on_another_port_cannot_drive_the_console_with_the_browsers_cookie(
    page: Page, console: Console
) -> None:
    from playwright.sync_api import expect

    base = base_of(console)
    hostile = f"""<!doctype html><html><body>
<img src="{base}/api/servers">
<script src="{base}/api/events"></script>
<iframe name="sink"></iframe>
<iframe src="{base}/"></iframe>
<form id="post" method="post" action="{base}/api/servers/form/connect" enctype="text/plain"
 target="sink"><input name='{{"a":"' value='"}}'></form>
<script>
fetch("{base}/api/servers/form/connect",
      {{method: "POST", mode: "no-cors", credentials: "include", body: "{{}}"}});
fetch("{base}/api/servers", {{mode: "no-cors", credentials: "include"}});
document.getElementById("post").submit();
</script>
</body></html>"""
    # What the neighbour's page makes the browser ask the console for, each once.
    wanted = sorted(
        ["/api/servers", "/api/events", "/", *["/api/servers/form/connect"] * 2, "/api/servers"]
    )
    # The browser's own record (DevTools protocol) of each request and the status that came
    # back: it has it even for an answer the browser then kept from the page (ORB blocks a
    # text answer to an <img> or <script>, so the page and Playwright never see one).
    urls: dict[str, str] = {}  # request id -> URL, for requests to the console
    statuses: dict[str, int] = {}  # request id -> the console's status
    with neighbour_server({"/": hostile}) as neighbour:
        visit = page.context.new_page()
        devtools = page.context.new_cdp_session(visit)
        devtools.on("Network.requestWillBeSent", lambda e: _note_request(e, base, urls))
        devtools.on(
            "Network.responseReceivedExtraInfo",
            lambda e: statuses.__setitem__(e["requestId"], e["statusCode"]),
        )
        devtools.send("Network.enable")
        visit.goto(neighbour.url("/"))
        seen = lambda: sorted(urlsplit(url).path for url in urls.values())  # noqa: E731
        done = lambda: seen() == wanted and set(urls) <= set(statuses)  # noqa: E731
        _wait_until(visit, done, lambda: f"asked: {urls}, answered: {statuses}")
        answers = {(urlsplit(url).path, statuses[key]) for key, url in urls.items()}
        visit.close()
    sent_cookie = any(
        "agent_console=" in r["headers"].get("cookie", "") for r in neighbour.requests
    )

    assert sent_cookie  # the premise: the browser handed the neighbour the console's cookie
    # 403, not the 401 of a missing key: the GETs (img, script, frame) carry the cookie and no
    # Origin, so only Sec-Fetch-Site (`same-site`) refuses them before anything else is read.
    assert answers == {(path, 403) for path in wanted}
    assert form_server_pids(console.home) == []
    expect(page.locator('li.server[data-name="form"] .state')).to_have_text("stopped")
    connect(page, "form")


def _note_request(event: dict[str, Any], base: str, urls: dict[str, str]) -> None:
    """Keep a DevTools requestWillBeSent event's URL when it goes to the console."""
    url = event["request"]["url"]
    if url.startswith(base + "/"):
        urls[event["requestId"]] = url


def _wait_until(page: Page, done: Callable[[], bool], say: Callable[[], str]) -> None:
    """Let the page run until `done()` holds, for at most WAIT_MS (polled every 50 ms)."""
    for _ in range(WAIT_MS // 50):
        if done():
            return
        page.wait_for_timeout(50)
    assert done(), say()


def test_the_console_page_still_connects_lists_calls_and_streams_events(
    page: Page, console: Console
) -> None:
    from playwright.sync_api import expect

    assert page.url == base_of(console) + "/"  # the used link is out of the address bar
    assert page.locator('meta[name="console-key"]').count() == 0  # the key is only in memory
    expect(page.locator("#stream-state")).to_have_text("live")
    connect(page, "form")
    expect(page.locator("#tools li.item")).to_have_count(6)
    page.locator('#tools li.item[data-name="long"]').click()
    page.locator('form#call-form [name="size"]').fill("3")
    page.locator("form#call-form button[type=submit]").click()
    expect(page.locator("#result pre.text")).to_have_text("xxxEND")
    # The log comes through the event stream: the call and its answer.
    request = page.locator("#log li.entry.sent.kind-request", has_text="tools/call")
    expect(request).to_have_count(1)
    answer = f'#log li.entry.received.kind-response[data-id="{request.get_attribute("data-id")}"]'
    expect(page.locator(answer)).to_have_count(1)


def test_a_reloaded_page_has_no_key_and_an_old_link_opens_nothing_after_a_new_one(
    page: Page, console: Console
) -> None:
    """A reload loses the key (it was in the page only); a new link comes from the terminal
    alone, and printing one ends any earlier link that was never used."""
    from playwright.sync_api import expect

    expect(page.locator("#stream-state")).to_have_text("live")  # the first page's own asks
    answers: list[int] = []
    page.on("response", lambda r: answers.append(r.status) if "/api/" in r.url else None)
    page.reload()
    expect(page.locator("#stream-state")).to_have_text("no key")
    assert answers == []  # the keyless page asks the API nothing

    unused = console.new_link()
    newest = console.new_link()
    visit = page.context.new_page()
    visit.goto(unused)
    expect(visit.locator("body")).to_have_text(
        "this console link is not valid: open the link that agent mcp console printed"
    )
    visit.close()
    open_console(page, newest)
    expect(page.locator("#stream-state")).to_have_text("live")
    connect(page, "form")


def test_a_link_clicked_in_a_page_on_another_port_is_refused_with_what_to_do_instead(
    page: Page, console: Console
) -> None:
    """A terminal in the browser (on another port of 127.0.0.1) shows the link as a link:
    clicked, it is refused without being spent, and the refusal says to paste it."""
    from playwright.sync_api import expect

    link = console.new_link()
    with neighbour_server({"/": f'<!doctype html><a href="{link}">the link</a>'}) as neighbour:
        visit = page.context.new_page()
        visit.goto(neighbour.url("/"))
        visit.get_by_text("the link").click()
        expect(visit.locator("body")).to_have_text(OTHER_SITE_LINK.strip())
        open_console(visit, link)  # pasted into the address bar
        expect(visit.locator("#stream-state")).to_have_text("live")
        visit.close()


def test_a_page_on_another_port_keeps_no_hold_on_a_console_window_it_opened(
    page: Page, console: Console
) -> None:
    """A neighbour opens a window on the console (refused) and keeps the reference; the
    person pastes the link there, as the refusal says. The console must leave that window's
    browsing group: the reference could not read it (another origin), but could still send it
    elsewhere, and the page and its key would be gone."""
    from playwright.sync_api import expect

    link = console.new_link()
    target = f"{base_of(console)}/"
    opener = f"""<!doctype html><button id="open">open</button><script>
document.getElementById("open").onclick = () => {{ window.held = window.open("{target}"); }};
</script>"""
    with neighbour_server({"/": opener}) as neighbour:
        visit = page.context.new_page()
        visit.goto(neighbour.url("/"))
        with visit.expect_popup() as opened:
            visit.locator("#open").click()
        popup = opened.value
        expect(popup.locator("body")).to_have_text(OTHER_SITE.strip())
        open_console(popup, link)  # pasted into its address bar
        expect(popup.locator("#stream-state")).to_have_text("live")
        held = visit.evaluate("window.held.closed")
        visit.close()

    assert held is True  # the neighbour's reference no longer reaches the console's window


# --- the same rules over plain HTTP, header by header --------------------------------------


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[console_helpers.Console]:
    """A console with no servers, its link opened (so it holds the cookie and the key)."""
    home = tmp_path_factory.mktemp("other-ports") / "home"
    home.mkdir()
    with running_console(home) as opened:
        yield opened


@pytest.mark.parametrize("site", ["same-site", "cross-site"])
@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/api/servers"), ("GET", "/api/events"), ("GET", "/")]
)
def test_a_request_marked_as_from_another_port_or_site_is_refused_with_cookie_and_key(
    bridge: console_helpers.Console, site: str, method: str, path: str
) -> None:
    answer = bridge.request(method, path, headers={"Sec-Fetch-Site": site, **NAVIGATION})
    posted = bridge.post_with({"Sec-Fetch-Site": site}, "/api/servers/fx/connect")

    assert (answer.status, answer.text) == (403, OTHER_SITE)
    assert (posted.status, posted.text) == (403, OTHER_SITE)


@pytest.mark.parametrize("site", ["same-origin", "none"])
def test_the_pages_own_requests_and_the_persons_own_navigations_pass(
    bridge: console_helpers.Console, site: str
) -> None:
    answer = bridge.request("GET", "/api/servers", headers={"Sec-Fetch-Site": site})

    assert (answer.status, answer.json()) == (200, {"servers": []})


def test_a_wrong_key_is_refused_and_the_page_at_slash_carries_no_key(
    bridge: console_helpers.Console,
) -> None:
    wrong = bridge.request("GET", "/api/servers", headers={"X-Console-Key": "guess"})
    twice = bridge.request(
        "GET", "/api/servers", headers={"X-Console-Key": f"{bridge.key}, {bridge.key}"}
    )
    page = bridge.request("GET", "/")

    assert (wrong.status, wrong.text) == (401, NO_KEY)
    assert (twice.status, twice.text) == (401, NO_KEY)
    assert page_key(page) == ""  # the slot is there, empty: a reload gets no key


def test_the_link_opens_as_a_page_from_another_site_only(agent_home: Path) -> None:
    """The private file:// page is another site to the browser (Chromium: cross-site,
    navigate, document): the link must open from it, yet never as an image or script of
    another site, nor from another port; a refused try does not spend the token."""
    agent_home.mkdir(parents=True, exist_ok=True)
    with running_console(agent_home, opened=False) as console:
        link = f"/open?token={console.token}"
        as_image = console.request(
            "GET", link, headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "image"}
        )
        from_a_port = console.request(
            "GET", link, headers={"Sec-Fetch-Site": "same-site", **NAVIGATION}
        )
        as_page = console.request(
            "GET", link, headers={"Sec-Fetch-Site": "cross-site", **NAVIGATION}
        )

    assert (as_image.status, as_image.text) == (403, OTHER_SITE_LINK)
    assert (from_a_port.status, from_a_port.text) == (403, OTHER_SITE_LINK)
    assert goes_on_to_the_console(as_page)


def test_requests_without_the_key_never_spend_the_pages_request_rate(
    bridge: console_helpers.Console,
) -> None:
    """Any web site may navigate a window (a popup the person let it open) to /open, since the
    link must open from the private file:// page: measured in Chromium, a popup so driven makes
    3000 navigations to /open?token=WRONG in 6 s. And a local process holding the cookie that
    browsers hand every local server may load the page without its key. Neither opens anything;
    nor may they use up the rate the page's own requests need."""
    cross_site = {"Sec-Fetch-Site": "cross-site", **NAVIGATION}
    wrong_links = bridge.repeat("GET", "/open?token=wrong", 600, cross_site, key=False)
    keyless_pages = bridge.repeat("GET", "/", 600, key=False)
    answer = bridge.request("GET", "/api/servers")

    assert (set(wrong_links), set(keyless_pages)) == ({403}, {200})
    assert (answer.status, answer.json()) == (200, {"servers": []})
