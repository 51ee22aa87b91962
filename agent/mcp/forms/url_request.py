"""URL-mode elicitation: a server asks the person to open a web page (MCP 2025-11-25 on).

Pure logic: whether a URL may be offered at all, and the lines every front end shows. The
person's yes is consent to open the page, nothing more: the server learns only the answer,
and the page itself does the rest (an OAuth grant, a payment) out of band.

What a hostile server could try, and what stops it here:
- a scheme that runs or reads something (`javascript:`, `file:`, `data:`, a custom handler):
  only https opens, or plain http to this machine (`agent.loopback`);
- a look-alike host (`pаypal.com` with a Cyrillic a): the host stands on a line of its own,
  and a name with non-ASCII letters is shown beside its ASCII (`xn--`) form, which is what the
  browser really looks up;
- a user name before the host (`https://trusted.com@evil.example/`): called out, with the
  host the browser will really reach;
- control, bidi, zero-width or space characters (which reorder or hide parts of what is
  shown): refused, since a valid URL percent-encodes them;
- a URL too long to read on a screen: refused over MAX_URL_CHARS.
The URL is never shortened: every character is shown, wrapped, and exactly that string is what
the browser is given.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from agent.loopback import is_loopback_host
from agent.text import plural, sanitize, sanitize_line

# Longer than any real sign-in or payment link, short enough to read on one screen.
MAX_URL_CHARS = 2048
URL_LINE_CHARS = 72  # the URL's pieces, each on a line of its own
# Anything a URL spells percent-encoded: controls, bidi and invisible marks (text.py's set shows
# them as escapes; here they refuse the URL), and every kind of space.
_NOT_IN_A_URL = re.compile(r"\s")
# A host as the browser reads it: letters, digits, hyphens and dots once in ASCII form; an IP
# literal in brackets is checked apart. Anything else (a `%65` escape, a backslash) is where
# Python's URL parser and the browser's disagree about which host is meant.
_HOST_NAME = re.compile(r"[a-z0-9-]+(\.[a-z0-9-]+)*\.?")
# WHATWG URL parsing reads a host whose last label is a number (`0x7f.1`, `2130706433`) as an
# IPv4 address: shown as a name, it would not be the machine the browser reaches.
_NUMERIC_LABEL = re.compile(r"(0x[0-9a-f]*|[0-9]+)")


@dataclass(frozen=True)
class JudgedUrl:
    """A URL that may be offered to the person: made only by `judge_url`."""

    url: str  # exactly as the server sent it: what is shown and what the browser gets
    host: str  # as written (Unicode for an international name), lower case
    ascii_host: str  # what the browser looks up: the `xn--` form of a non-ASCII name
    port: int | None
    user_part: str | None  # text before an @ in the authority: not the host


class RefusedUrlError(ValueError):
    """A URL that is never offered (the text says why, in words for the person)."""


@dataclass(frozen=True)
class UrlRequest:
    """What a server asks, its URL judged fit to offer: open it, for the reason in `message`."""

    server: str
    message: str
    judged: JudgedUrl
    elicitation_id: str | None = None

    @property
    def url(self) -> str:
        """The URL exactly as the server sent it."""
        return self.judged.url


def url_request(server: str, message: str, url: str, elicitation_id: str | None) -> UrlRequest:
    """The request to show, or RefusedUrlError when its URL is never offered."""
    return UrlRequest(server, message, judge_url(url), elicitation_id)


def judge_url(url: str) -> JudgedUrl:
    """The URL checked for offering, or RefusedUrlError saying why it is not offered."""
    if len(url) > MAX_URL_CHARS:
        raise RefusedUrlError(
            f"its URL is "
            f"{plural(len(url), 'character')} long, over the {MAX_URL_CHARS} this client shows"
        )
    hidden = sanitize(url) != url or _NOT_IN_A_URL.search(url) is not None
    if hidden:
        raise RefusedUrlError(
            "its URL holds control, invisible or space characters, which could hide or "
            f"reorder what is shown: {_clip(sanitize_line(url))}"
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise RefusedUrlError(f"its URL is not a valid URL: {_clip(url)}") from None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in ("https", "http"):
        said = f"{scheme}:" if scheme else "no scheme"
        raise RefusedUrlError(
            f"only https web pages (or http on this machine) are opened; this URL has {said}"
        )
    if not host:
        raise RefusedUrlError(f"its URL names no host: {_clip(url)}")
    if "\\" in url:
        # Browsers read a backslash as a slash: `https://evil.example\\@trusted.com/` is a page
        # on evil.example, while the parser here sees trusted.com.
        raise RefusedUrlError(
            f"its URL holds a backslash, which browsers read as a slash: {_clip(url)}"
        )
    ascii_host = _checked_host(parts.netloc, host)
    if scheme == "http" and not is_loopback_host(host):
        raise RefusedUrlError(
            f"its URL is plain http to {ascii_host}, another machine: only https is opened there"
        )
    user_part = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else None
    return JudgedUrl(url, host, ascii_host, port, user_part)


def _checked_host(netloc: str, host: str) -> str:
    """The host's ASCII form, or RefusedUrlError when the browser could read another host."""
    if netloc.rpartition("@")[2].startswith("["):
        if not is_ip_literal(host):
            raise RefusedUrlError(f"its host is not a valid address: {sanitize_line(host)}")
        return host
    ascii_host = _ascii_host(host)
    if _HOST_NAME.fullmatch(ascii_host) is None:
        raise RefusedUrlError(
            f"its host holds characters a host name cannot: {_clip(sanitize_line(host))}"
        )
    last = ascii_host.rstrip(".").rpartition(".")[2]
    if _NUMERIC_LABEL.fullmatch(last) and not _is_ipv4(ascii_host):
        raise RefusedUrlError(
            f"its host {ascii_host} is a number that browsers read as another address"
        )
    return ascii_host


def is_ip_literal(host: str) -> bool:
    """True for an IPv6 address (what a bracketed host must be)."""
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def _is_ipv4(host: str) -> bool:
    """True for a dotted-quad IPv4 address as the browser would print it (no leading zeros)."""
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def _ascii_host(host: str) -> str:
    """The name the browser looks up: each non-ASCII label in its `xn--` form."""
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        raise RefusedUrlError(
            f"its host is not a valid international name: {sanitize_line(host)}"
        ) from None


def _unicode_host(ascii_host: str) -> str | None:
    """The Unicode spelling of a host written in `xn--` form, or None if it has none."""
    if "xn--" not in ascii_host:
        return None
    try:
        return ascii_host.encode("ascii").decode("idna")
    except UnicodeError:
        return None


def _clip(text: str, limit: int = 200) -> str:
    """A refused URL quoted in a notice: a refusal need not show all of it."""
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more)"


def url_lines(url: str, width: int = URL_LINE_CHARS) -> list[str]:
    """The whole URL in pieces of `width` characters (a URL has no spaces to break at)."""
    shown = sanitize_line(url)  # a judged URL is unchanged by this; kept for any other caller
    return [shown[start : start + width] for start in range(0, len(shown), width)] or [""]


def host_lines(judged: JudgedUrl) -> list[str]:
    """The host on a line of its own: its ASCII form beside a Unicode one, the port, and a
    user name before an @ called out."""
    port = f" (port {judged.port})" if judged.port is not None else ""
    unicode = _unicode_host(judged.ascii_host)
    if judged.host != judged.ascii_host:
        lines = [
            f"Host: {sanitize_line(judged.host)}{port}",
            f"  its letters are not all ASCII: the browser looks up {judged.ascii_host}; "
            "a look-alike of another name would show here",
        ]
    elif unicode is not None:
        lines = [
            f"Host: {judged.ascii_host}{port}",
            f"  written in ASCII form; as letters it reads {sanitize_line(unicode)}",
        ]
    else:
        lines = [f"Host: {judged.ascii_host}{port}"]
    if judged.user_part is not None:
        lines.append(
            f'  Careful: "{sanitize_line(judged.user_part)}" before the @ is a user name, not the '
            f"host; this page is on {judged.ascii_host}"
        )
    if is_loopback_host(judged.host):
        lines.append("  (a page on this machine)")
    return lines


def describe_url_request(request: UrlRequest) -> list[str]:
    """The lines above the question: who asks, the server's whole message (marked as its
    words), the whole URL and its host, and what a yes does."""
    server = sanitize_line(request.server)
    lines = [f"MCP server {server} asks you to open a web page. Its message, every line of it:"]
    lines.extend(f"  | {line}" for line in sanitize(request.message).split("\n"))
    lines.append("The URL, in full:")
    lines.extend(f"  {piece}" for piece in url_lines(request.url))
    lines.extend(host_lines(request.judged))
    lines.append(
        f"Yes opens it in your browser and tells MCP server {server} you agreed; "
        "nothing opens otherwise."
    )
    return lines


def url_refusal(server: str, reason: str) -> str:
    """The one-line notice for a URL request declined unseen."""
    return f"Declined a web page from MCP server {sanitize_line(server)}: {reason}."


def declined_without_asking(request: UrlRequest) -> str:
    """The one-line notice when nobody can be asked (agent -p): which host it wanted."""
    return (
        f"Declined a web page on {request.judged.ascii_host} from MCP server "
        f"{sanitize_line(request.server)}: nobody is here to say yes (nothing was opened)."
    )
