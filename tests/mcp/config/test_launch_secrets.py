"""Which env values count as secrets: the rule redaction is built on."""

from __future__ import annotations

from agent.mcp.config.launch_secrets import env_secrets, without_ordinary

INHERITED = {"HOME": "/home/ada", "PATH": "/usr/bin:/bin", "USER": "ada"}


def test_plain_words_and_numbers_under_ordinary_names_are_not_secrets() -> None:
    env = {"FORMAT": "text", "LEVEL": "debug", "PORT": "8080", "VERSION": "3.11"}
    assert env_secrets(env, INHERITED) == []


def test_a_name_that_says_secret_makes_even_a_plain_word_a_secret() -> None:
    env = {"DB_PASSWORD": "sunshine", "API_KEY": "text", "GITHUB_TOKEN": "12345678"}
    assert env_secrets(env, INHERITED) == ["sunshine", "text", "12345678"]


def test_a_value_that_looks_like_a_credential_is_a_secret_whatever_its_name() -> None:
    env = {"DSN_HOST": "db.internal", "OPTS": "postgres://app:Pa55-word@db/x"}
    assert env_secrets(env, INHERITED) == [
        "db.internal",
        "postgres://app:Pa55-word@db/x",
        "Pa55-word",
    ]


def test_values_the_child_inherits_anyway_are_never_secrets() -> None:
    env = {"HOME_COPY": "/home/ada", "SEARCH": "/usr/bin:/bin", "SECRET_USER": "ada"}
    assert env_secrets(env, INHERITED) == []
    assert without_ordinary(["/home/ada", "tok-1234"], INHERITED) == ["tok-1234"]
