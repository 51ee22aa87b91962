"""Who may use the console bridge: only this person, from this computer, through the page.

Whoever can call the bridge can run the configured programs, so every request passes these
checks before it is routed (the contract's checks 1-8), and a failure is answered in plain
text with nothing else done:
1. the client is on the loopback address;
2. the Host header names the bridge itself (a DNS-rebinding page sends its own name);
3. an Origin header, if any, is the bridge's own (another site's page sends its own);
4. Sec-Fetch-Site, if any, says the request came from the page itself or from the person
   (a page on another site, or on another port of 127.0.0.1, is named by the browser);
5. the session cookie, set only by opening the one-time token link, is present (not for /open);
6. an API request or event stream carries the page key in its header (see PageKey below);
7. a POST body is JSON, and at most MAX_BODY bytes (read with a cap, never whole first);
8. a token bucket bounds the rate of the requests that carry the key.
Every response carries headers that keep the page from being framed, sniffed or scripted.

Why a key besides the cookie: browsers scope cookies by host, never by port, so every other
server on 127.0.0.1 the browser visits is handed the console's cookie, and a local process can
replay it with no Origin and no Sec-Fetch-Site at all. The key never travels by cookie: it is
written once into the page that the one-time link opens, the page's script keeps it in memory
only and sends it in a header, and no URL ever serves it again.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "agent_console"
KEY_HEADER = "x-console-key"
API_PREFIX = "/api/"
MAX_BODY = 1024 * 1024
RATE_PER_SECOND = 50.0
RATE_BURST = 200.0
NO_COOKIE = "open the link that agent mcp console printed"
NO_KEY = "this page has no key for the console: open the link that agent mcp console printed"
OTHER_SITE = "refused: the browser says this request came from another site or port"
# A link clicked in a page on another port (a terminal in the browser, say) is refused too:
# pasted into the address bar, the same link is the person's own navigation.
OTHER_SITE_LINK = (
    "refused: this link was opened from a page of another site or another port of this"
    " computer: paste it into the browser's address bar instead"
)
USED_LINK = "this console link was already used: run agent mcp console again for a new one"
WRONG_LINK = "this console link is not valid: open the link that agent mcp console printed"
SECURITY_HEADERS = (
    (
        "content-security-policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("cache-control", "no-store"),
    ("x-frame-options", "DENY"),
    # A window another page opened on the console leaves that page's reach once the console
    # is in it (that page could otherwise still navigate it away, key and all); and no other
    # page may embed any of the console's answers.
    ("cross-origin-opener-policy", "same-origin"),
    ("cross-origin-resource-policy", "same-origin"),
)


def is_loopback_client(host: str | None) -> bool:
    """Whether a client address is this computer's loopback (127.0.0.0/8 or ::1)."""
    if not host:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def loopback_bind_host(host: str) -> str | None:
    """The address to bind for `--host`, or None when it is not a loopback IPv4 address."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # a name: it could resolve anywhere, now or later
    if isinstance(address, ipaddress.IPv4Address) and address.is_loopback:
        return str(address)
    return None


def allowed_hosts(port: int, extra_host: str | None) -> frozenset[str]:
    """The Host header values that name the bridge itself."""
    names = {"127.0.0.1", "localhost", *([extra_host] if extra_host else [])}
    return frozenset(f"{name}:{port}" for name in names)


def allowed_origins(hosts: frozenset[str]) -> frozenset[str]:
    """The Origin header values of the bridge's own page."""
    return frozenset(f"http://{host}" for host in hosts)


@dataclass
class TokenBucket:
    """At most `rate` requests a second on average, `burst` at once."""

    rate: float = RATE_PER_SECOND
    burst: float = RATE_BURST
    tokens: float = RATE_BURST
    stamp: float = field(default_factory=time.monotonic)

    def take(self) -> bool:
        """Spend one token; False when none is left."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Session:
    """The one-time token, the session cookie it is exchanged for, and the page key."""

    def __init__(self) -> None:
        self.token = secrets.token_urlsafe(32)
        self.cookie = secrets.token_urlsafe(32)
        self.key = secrets.token_urlsafe(32)  # one per console run: every page opened gets it
        self.token_used = False
        self._lock = threading.Lock()  # new_token runs on the terminal's thread

    def open(self, token: str) -> bool:
        """Spend the token: True once for the right one; False (the reason kept for
        `open_refusal`) when it is wrong or already used."""
        with self._lock:
            if self.token_used:
                return False
            if not hmac.compare_digest(token.encode(), self.token.encode()):
                return False
            self.token_used = True
            return True

    def new_token(self) -> str:
        """A fresh one-time token for a new link; any earlier one stops working."""
        with self._lock:
            self.token = secrets.token_urlsafe(32)
            self.token_used = False
            return self.token

    def open_refusal(self) -> str:
        """Why /open refused: the link was used, or is not this console's."""
        return USED_LINK if self.token_used else WRONG_LINK

    def has_cookie(self, header: str | None) -> bool:
        """Whether a Cookie header carries the session cookie (compared in constant time).

        Any of the header's cookies by that name may be it: another server on 127.0.0.1 can
        set one for a longer path, which the browser sends first (cookie tossing), and it must
        not lock the page out. A guessed value gains nothing: the page key is needed too."""
        wanted = self.cookie.encode()
        return any(hmac.compare_digest(v.encode(), wanted) for v in cookie_values(header, COOKIE))

    def has_key(self, header: str | None) -> bool:
        """Whether the key header holds the page key (compared in constant time)."""
        return header is not None and hmac.compare_digest(header.encode(), self.key.encode())


def cookie_values(header: str | None, name: str) -> list[str]:
    """Every value of cookie `name` in a Cookie header, in the order sent."""
    found = []
    for part in (header or "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            found.append(value)
    return found


def request_problem(
    scope: Scope, session: Session, hosts: frozenset[str]
) -> tuple[int, str] | None:
    """Checks 1-6 on a request's scope: the status and text of the refusal, or None."""
    client = scope.get("client")
    if not is_loopback_client(client[0] if client else None):
        return 403, "not from this computer"
    headers = _headers(scope)
    if headers.get("host") not in hosts:
        return 403, "wrong Host header"
    origin = headers.get("origin")
    if origin is not None and origin not in allowed_origins(hosts):
        return 403, "foreign Origin"
    path = scope.get("path", "")
    opening = scope.get("method") == "GET" and path == "/open"
    if not _fetch_site_allowed(headers, opening):
        return 403, OTHER_SITE_LINK if opening else OTHER_SITE
    if not opening and not session.has_cookie(headers.get("cookie")):
        return 401, NO_COOKIE
    if path.startswith(API_PREFIX) and not session.has_key(headers.get(KEY_HEADER)):
        return 401, NO_KEY
    return None


def _fetch_site_allowed(headers: dict[str, str], opening: bool) -> bool:
    """Whether the browser's Sec-Fetch-Site lets the request through.

    Absent (a program, an old browser: the key decides), `same-origin` (the page itself) and
    `none` (the person typed or pasted the address) pass; `same-site` (another port of
    127.0.0.1) and `cross-site` do not. One exception: the one-time link, opened as a whole
    page, may come from another site, since the private file:// page the browser is handed
    is one (Chromium sends `cross-site`, mode `navigate`, dest `document` for it); the token
    then decides.
    """
    site = headers.get("sec-fetch-site")
    if site is None or site in ("same-origin", "none"):
        return True
    top_level = (headers.get("sec-fetch-mode"), headers.get("sec-fetch-dest")) == (
        "navigate",
        "document",
    )
    return opening and site == "cross-site" and top_level


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name; a repeated header that a check reads counts
    as wrong (a second Host must not hide behind a good first one), so it is kept as an empty
    value."""
    found: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        found[name] = "" if name in found and name in _SINGLE else value
    return found


_SINGLE = frozenset(
    {"host", "origin", "sec-fetch-site", "sec-fetch-mode", "sec-fetch-dest", KEY_HEADER}
)


class GuardMiddleware:
    """The checks, the rate bucket, the body cap and the security headers, around the app."""

    def __init__(self, app: App, session: Session, hosts: frozenset[str]) -> None:
        self.app = app
        self.session = session
        self.hosts = hosts
        self.bucket = TokenBucket()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no websockets, no lifespan: uvicorn runs with both off
        send = _with_headers(send)
        problem = request_problem(scope, self.session, self.hosts)
        # Only requests with the page's key spend the rate: any web site may send the browser
        # to /open, and any local server is handed the cookie that loads the page, so those
        # would otherwise starve the page's own requests (the key's requests do the work).
        keyed = scope.get("path", "").startswith(API_PREFIX)
        if problem is None and keyed and not self.bucket.take():
            await _json(send, 429, {"error": "too many requests"})
            return
        if problem is None and scope["method"] == "POST":
            problem = _content_type_problem(scope)
            if problem is None:
                body, problem = await _read_capped(scope, receive)
                if problem is None:
                    receive = _replay(body, receive)
        if problem is not None:
            await _text(send, *problem)
            return
        await self.app(scope, receive, send)


def _content_type_problem(scope: Scope) -> tuple[int, str] | None:
    content_type = _headers(scope).get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        return 415, "send JSON (Content-Type: application/json)"
    return None


async def _read_capped(scope: Scope, receive: Receive) -> tuple[bytes, tuple[int, str] | None]:
    """The body, read up to MAX_BODY bytes: a bigger one is refused as soon as it is known."""
    too_big = (413, f"the body is over {MAX_BODY} bytes")
    length = _headers(scope).get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        return b"", too_big if length.isdigit() else (400, "bad Content-Length")
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"", (400, "the request ended early")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return b"", too_big
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), None


def _replay(body: bytes, original: Receive) -> Receive:
    """The body already read, then the client's own messages (it going away)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await original()

    return receive


def _with_headers(send: Send) -> Send:
    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [
                (name, value)
                for name, value in message.get("headers", [])
                if name.decode("latin-1").lower() not in dict(SECURITY_HEADERS)
            ]
            headers.extend((name.encode(), value.encode()) for name, value in SECURITY_HEADERS)
            message["headers"] = headers
        await send(message)

    return send_with_headers


async def _text(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await _respond(send, status, b"text/plain; charset=utf-8", body)


async def _json(send: Send, status: int, value: object) -> None:
    await _respond(send, status, b"application/json", json.dumps(value).encode())


async def _respond(send: Send, status: int, content_type: bytes, body: bytes) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
