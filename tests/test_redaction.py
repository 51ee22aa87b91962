"""Secrets and their parts, redacted in every form they take in text."""

from __future__ import annotations

import base64
import json

from agent.redaction import Redactor, secret_parts


def test_a_value_yields_the_secrets_embedded_in_it() -> None:
    assert secret_parts("postgres://app:pa55word@db/x?sslkey=k3y-value") == [
        "postgres://app:pa55word@db/x?sslkey=k3y-value",
        "pa55word",
        "k3y-value",
    ]
    assert secret_parts("sid=abc123; theme=dark") == ["sid=abc123; theme=dark", "abc123", "dark"]
    assert secret_parts("Bearer tok-1234") == ["Bearer tok-1234", "tok-1234"]
    basic = base64.b64encode(b"ada:hunter22").decode()
    assert secret_parts(f"Basic {basic}") == [f"Basic {basic}", basic, "ada:hunter22", "hunter22"]
    assert secret_parts("https://ghp_token123@github.com/o/r") == [
        "https://ghp_token123@github.com/o/r",
        "ghp_token123",
    ]
    assert secret_parts("on") == []


def test_every_form_of_a_secret_is_masked_in_one_pass() -> None:
    secret = 'pa"ss/wörd'
    redactor = Redactor([secret, "ss/w"])
    text = f"raw {secret} json {json.dumps(secret)} ascii {json.dumps(secret, ensure_ascii=False)}"
    assert redactor.redact(text + " url pa%22ss%2Fw%C3%B6rd") == (
        'raw *** json "***" ascii "***" url ***'
    )


def test_text_cut_inside_a_secret_loses_the_secrets_beginning_too() -> None:
    redactor = Redactor(["s3cret-value"])
    assert redactor.redact_cut("password=s3cret-value, again s3cr") == "password=***, again "
    assert redactor.clip("x" * 10 + "s3cret-value", 14) == "x" * 10 + " [cut]"


def test_a_secret_as_pythons_repr_writes_it_is_masked() -> None:
    # repr escapes ' where the text holds both quote kinds, and writes control characters as
    # \x01: forms neither the raw nor the JSON one matches (an error quoting a server's line).
    secret = "pa'ss\"w0rd\x01-canary-5120"
    redactor = Redactor([secret])
    for shown in (repr("TOKEN=" + secret), repr({"v": secret}), repr([secret + "'x"])):
        assert "canary-5120" not in redactor.redact(shown), shown
