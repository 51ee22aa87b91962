"""Server names and the model-facing tool names built from them."""

from __future__ import annotations

import re

import pytest

from agent.mcp.config.names import (
    ToolNameCollisionError,
    is_provider_safe,
    model_tool_name,
    model_tool_names,
    normalize_server_name,
)

PROVIDER_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@pytest.mark.parametrize(
    ("name", "normalized"),
    [
        (" Context 7 ", "context-7"),
        ("GitHub", "github"),
        ("brave-search", "brave-search"),
        ("  My  Server!! ", "my-server"),
        ("GitHub__Copilot", "github_copilot"),  # keeps `__` unambiguous in tool names
        ("a -- b", "a-b"),
        ("ＡＢＣ", "abc"),  # NFKC: full-width letters are letters
        ("--", ""),
    ],
)
def test_server_names_normalize_to_lowercase_hyphenated_words(name: str, normalized: str) -> None:
    assert normalize_server_name(name) == normalized


def test_a_tool_name_is_prefixed_with_the_normalized_server_name() -> None:
    assert model_tool_name(" Context 7 ", "resolve_library") == "mcp__context-7__resolve_library"


def test_characters_providers_reject_are_mapped_to_underscores() -> None:
    name = model_tool_name("files", "read.file/v2 ✓")

    assert name == "mcp__files__read_file_v2__"
    assert PROVIDER_RULE.fullmatch(name)


def test_an_over_long_name_is_shortened_to_64_characters_with_a_stable_hash_suffix() -> None:
    tool = "a_really_long_tool_name_that_keeps_going_and_going"

    name = model_tool_name("Sequential Thinking Server", tool)

    # A literal: the suffix must not change between runs or versions, or saved selections break.
    assert name == "mcp__sequential-thinking-server__a_really_long_tool_nam_74328ebb"
    assert len(name) == 64
    assert PROVIDER_RULE.fullmatch(name)


def test_over_long_names_differing_only_past_the_cut_stay_distinct() -> None:
    server = "Sequential Thinking Server"
    tools = [
        "a_really_long_tool_name_that_keeps_going_and_going",
        "a_really_long_tool_name_that_keeps_going_and_going_2",
    ]

    assert model_tool_names(server, tools) == {
        tools[0]: "mcp__sequential-thinking-server__a_really_long_tool_nam_74328ebb",
        tools[1]: "mcp__sequential-thinking-server__a_really_long_tool_nam_b9b8fedf",
    }


def test_a_name_of_exactly_64_characters_is_kept_whole() -> None:
    tool = "t" * (64 - len("mcp__srv__"))

    assert model_tool_name("srv", tool) == f"mcp__srv__{tool}"


@pytest.mark.parametrize(
    ("server", "tool"),
    [
        ("Context 7", "resolve-library-id"),
        ("ünïcödé", "naïve tool"),
        ("x" * 80, "y" * 80),
        ("server.with.dots", "tool:with:colons"),
    ],
)
def test_every_model_tool_name_satisfies_the_provider_rule(server: str, tool: str) -> None:
    name = model_tool_name(server, tool)

    assert PROVIDER_RULE.fullmatch(name)
    assert is_provider_safe(name)


def test_is_provider_safe_rejects_what_providers_reject() -> None:
    assert [is_provider_safe(n) for n in ["ok_name-1", "", "a.b", "x" * 65, "x" * 64]] == [
        True,
        False,
        False,
        False,
        True,
    ]


def test_two_tools_that_map_to_the_same_name_are_an_error_naming_both() -> None:
    with pytest.raises(ToolNameCollisionError) as caught:
        model_tool_names("Context 7", ["get.item", "list", "get_item"])

    assert str(caught.value) == (
        "server 'Context 7': tools 'get.item' and 'get_item' both become the model tool name "
        "'mcp__context-7__get_item'; rename one of them on the server"
    )


def test_distinct_tools_map_one_to_one() -> None:
    assert model_tool_names("github", ["create_issue", "search code"]) == {
        "create_issue": "mcp__github__create_issue",
        "search code": "mcp__github__search_code",
    }
