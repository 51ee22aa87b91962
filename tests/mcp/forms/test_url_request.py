"""Which URLs a server may ask the person to open, and how each is shown."""

from __future__ import annotations

import pytest

from agent.mcp.forms.url_request import (
    MAX_URL_CHARS,
    RefusedUrlError,
    describe_url_request,
    host_lines,
    judge_url,
    url_request,
)


def test_an_https_url_is_offered_unchanged_with_its_host_on_a_line_of_its_own() -> None:
    url = "https://accounts.example.com/connect?session=abc&next=%2Fhome"
    judged = judge_url(url)
    assert judged.url == url
    assert host_lines(judged) == ["Host: accounts.example.com"]


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8080/cb", "http://localhost/x", "http://[::1]:9/"]
)
def test_plain_http_is_offered_only_to_this_machine(url: str) -> None:
    assert judge_url(url).url == url


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("javascript:alert(1)", "this URL has javascript:"),
        ("file:///etc/passwd", "this URL has file:"),
        ("data:text/html,<script>alert(1)</script>", "this URL has data:"),
        ("vscode://open?x=1", "this URL has vscode:"),
        ("//evil.example/x", "this URL has no scheme"),
        ("http://evil.example/login", "plain http to evil.example, another machine"),
        ("https:///evil.example", "names no host"),
    ],
)
def test_a_url_that_is_not_a_web_page_or_not_https_is_refused_and_said(url: str, said: str) -> None:
    with pytest.raises(RefusedUrlError, match=said):
        judge_url(url)


def test_a_unicode_host_is_shown_beside_the_ascii_name_the_browser_looks_up() -> None:
    judged = judge_url("https://p\u0430ypal.com/login")  # a Cyrillic a
    lines = host_lines(judged)
    assert lines[0] == "Host: p\u0430ypal.com"
    assert "the browser looks up xn--pypal-4ve.com" in lines[1]


def test_a_host_written_in_xn_form_is_shown_with_the_letters_it_reads_as() -> None:
    lines = host_lines(judge_url("https://xn--pypal-4ve.com/"))
    assert lines == [
        "Host: xn--pypal-4ve.com",
        "  written in ASCII form; as letters it reads p\u0430ypal.com",
    ]


def test_a_user_name_before_the_at_sign_is_called_out_with_the_real_host() -> None:
    lines = host_lines(judge_url("https://trusted.com@evil.example/"))
    assert lines[0] == "Host: evil.example"
    assert '"trusted.com" before the @ is a user name, not the host' in lines[1]
    assert "this page is on evil.example" in lines[1]


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/\u202eexe.txt",  # bidi override
        "https://exa\u200bmple.com/",  # zero-width space
        "https://example.com/a\x1b[2Jb",  # an escape sequence
        "https://example.com/a b",
        "https://example.com/\u3000",  # ideographic space
        "https://example.com/\nhttps://trusted.com/",
    ],
)
def test_controls_bidi_invisible_characters_and_spaces_refuse_a_url(url: str) -> None:
    with pytest.raises(RefusedUrlError, match="control, invisible or space characters"):
        judge_url(url)


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("https://evil.example\\@trusted.com/", "backslash"),
        ("https://%65vil.example/", "characters a host name cannot"),
        ("https://0x7f.1/", "a number that browsers read as another address"),
        ("https://2130706433/", "a number that browsers read as another address"),
        ("https://[not-an-address]/", "not a valid URL|not a valid address"),
    ],
)
def test_a_url_the_browser_would_read_with_another_host_is_refused(url: str, said: str) -> None:
    with pytest.raises(RefusedUrlError, match=said):
        judge_url(url)


def test_an_ip_address_host_is_offered_as_written() -> None:
    assert host_lines(judge_url("https://93.184.216.34/x")) == ["Host: 93.184.216.34"]


def test_a_url_over_the_size_cap_is_refused_with_its_length() -> None:
    url = "https://example.com/" + "a" * MAX_URL_CHARS
    with pytest.raises(RefusedUrlError, match=f"{len(url):,} characters long"):
        judge_url(url)


def test_the_whole_url_is_shown_wrapped_never_shortened_with_the_servers_words_marked() -> None:
    url = "https://example.com/" + "/".join(f"part{n}" for n in range(60))
    request = url_request("srv", "Sign in\nplease", url, "e1")
    lines = describe_url_request(request)
    start = lines.index("The URL, in full:") + 1
    pieces = [line.removeprefix("  ") for line in lines[start:] if line.startswith("  ")]
    assert "".join(pieces).startswith(url)
    assert "".join(pieces[: len(url) // 72 + 1]) == url
    assert lines[0].startswith("MCP server srv asks you to open a web page")
    assert lines[1:3] == ["  | Sign in", "  | please"]
    assert any(line == "Host: example.com" for line in lines)


def test_a_servers_name_and_message_reach_the_lines_only_sanitised() -> None:
    request = url_request("s\x1b[31m", "hi\x1b]0;title\x07", "https://example.com/", None)
    shown = "\n".join(describe_url_request(request))
    assert "\x1b" not in shown and "\x07" not in shown
