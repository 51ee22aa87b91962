"""Filling a command tool's command line: the rules of issue 13, through the real module."""

from __future__ import annotations

import pytest

from agent.mcp.config.command_template import Part, parse_element
from agent.mcp.programs.command_line import CommandArgumentError, fill_command


def test_strings_fill_as_themselves_and_numbers_and_booleans_as_json_text() -> None:
    command = ["git", "log", "-n", "{count}", "--follow={follow}", "{path}", "{ratio}"]

    argv = fill_command(command, {"count": 5, "follow": True, "path": "a b.txt", "ratio": 0.5})

    assert argv == ["git", "log", "-n", "5", "--follow=true", "a b.txt", "0.5"]


def test_an_array_fills_one_element_per_item_where_it_is_the_whole_element() -> None:
    argv = fill_command(["rg", "--", "{patterns}", "."], {"patterns": ["a", 2, False]})

    assert argv == ["rg", "--", "a", "2", "false", "."]


def test_an_element_whose_argument_is_absent_or_null_is_dropped() -> None:
    command = ["rg", "--max-count={max}", "{glob}", "{pattern}"]

    assert fill_command(command, {"pattern": "x"}) == ["rg", "x"]
    assert fill_command(command, {"pattern": "x", "max": None, "glob": "*.py"}) == [
        "rg",
        "*.py",
        "x",
    ]


def test_an_array_inside_a_longer_element_is_refused() -> None:
    with pytest.raises(CommandArgumentError, match="'files' is a list; a list can only fill"):
        fill_command(["cat", "--files={files}"], {"files": ["a", "b"]})


def test_an_object_value_is_refused() -> None:
    with pytest.raises(CommandArgumentError, match="'spec': a dict cannot fill a command line"):
        fill_command(["x", "{spec}"], {"spec": {"a": 1}})


def test_a_dash_after_literal_text_is_the_definitions_own_and_is_allowed() -> None:
    assert fill_command(["x", "v{name}"], {"name": "-y"}) == ["x", "v-y"]
    assert fill_command(["x", "--name={name}"], {"name": "y"}) == ["x", "--name=y"]


def test_in_an_element_that_starts_with_a_dash_a_value_starting_with_one_is_refused() -> None:
    with pytest.raises(CommandArgumentError, match="argument 'flag' starts with '-'"):
        fill_command(["x", "-{flag}"], {"flag": "-output=/etc/x"})
    with pytest.raises(CommandArgumentError, match="argument 'name' starts with '-'"):
        fill_command(["x", "--name={name}"], {"name": "-y"})
    assert fill_command(["x", "-{flag}"], {"flag": "v"}) == ["x", "-v"]


def test_after_a_literal_double_dash_values_may_start_with_a_dash() -> None:
    assert fill_command(["rg", "--", "{pattern}"], {"pattern": "-foo"}) == ["rg", "--", "-foo"]
    with pytest.raises(CommandArgumentError, match="argument 'p' starts with '-'"):
        fill_command(["rg", "{p}", "--"], {"p": "-foo"})


def test_a_not_finite_number_is_refused() -> None:
    with pytest.raises(CommandArgumentError, match="'n' is not a finite number"):
        fill_command(["x", "{n}"], {"n": float("nan")})


def test_a_value_that_makes_an_element_start_with_a_dash_is_refused_unless_allowed() -> None:
    with pytest.raises(CommandArgumentError, match="argument 'b' starts with '-'"):
        fill_command(["x", "{a}{b}"], {"a": "", "b": "-rf"})
    with pytest.raises(CommandArgumentError, match="argument 'b' starts with '-'"):
        fill_command(["x", "{a}{b}"], {"a": "", "b": "-rf"}, allow_dash=["a"])
    with pytest.raises(CommandArgumentError, match="argument 'a' starts with '-'"):
        fill_command(["x", "{a}-{b}"], {"a": "", "b": "rf"})
    with pytest.raises(CommandArgumentError, match="argument 'n' starts with '-'"):
        fill_command(["x", "{n}"], {"n": -1})
    assert fill_command(["x", "{n}"], {"n": -1}, allow_dash=["n"]) == ["x", "-1"]


def test_double_braces_are_literal_braces_and_other_braces_are_text() -> None:
    assert parse_element("{{{name}}}") == (Part(text="{"), Part(placeholder="name"), Part(text="}"))
    assert fill_command(["jq", "{a: .b}", "{{x}}"], {}) == ["jq", "{a: .b}", "{x}"]


def test_null_or_an_empty_list_for_a_required_argument_is_refused_not_dropped() -> None:
    command = ["sort", "-o", "{out}", "{files}"]
    with pytest.raises(CommandArgumentError, match="'out' is required, so it cannot be null"):
        fill_command(command, {"out": None, "files": ["a"]}, required=["out", "files"])
    with pytest.raises(CommandArgumentError, match="'files' is required, so it cannot be an empty"):
        fill_command(command, {"out": "o", "files": []}, required=["out", "files"])
    assert fill_command(["ls", "{files}"], {"files": []}) == ["ls"]  # optional: dropped
