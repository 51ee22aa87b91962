"""URI templates (RFC 6570 levels 1-3): variables and expansion, with the RFC's own examples."""

from __future__ import annotations

import pytest

from agent.mcp.catalog.uri_template import expand, variables

VALUES = {"var": "value", "hello": "Hello World!", "path": "/foo/bar", "x": "1024", "y": "768"}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{+hello}", "Hello%20World!"),
        ("{+path}/here", "/foo/bar/here"),
        ("X{#var}", "X#value"),
        ("map?{x,y}", "map?1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("X{.var}", "X.value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{?x,y}", "?x=1024&y=768"),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{var:3}", "val"),
        ("{undefined}", ""),
        ("{?x,undefined}", "?x=1024"),
    ],
)
def test_expansion_follows_the_rfc_examples(template: str, expected: str) -> None:
    assert expand(template, VALUES) == expected


def test_variables_are_listed_once_in_order() -> None:
    assert variables("test://static/resource/{id}") == ["id"]
    assert variables("fixture://{a}/{+b}{?c,a*}{#d:3}") == ["a", "b", "c", "d"]
    assert variables("no variables") == []


def test_a_value_stays_inside_its_variable() -> None:
    # A value typed by the person or chosen by the model cannot reach other resources:
    # separators are encoded unless the template's author wrote {+var} or {#var}.
    assert expand("fixture://greeting/{name}", {"name": "../notes/1?x=y#z"}) == (
        "fixture://greeting/..%2Fnotes%2F1%3Fx%3Dy%23z"
    )
    assert expand("file:///srv/{/name}", {"name": "../../etc/passwd"}) == (
        "file:///srv//..%2F..%2Fetc%2Fpasswd"
    )
