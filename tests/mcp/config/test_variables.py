"""${VAR} references: checked when saved, expanded only when a server starts."""

from __future__ import annotations

import pytest

from agent.errors import ExpansionError
from agent.mcp.config.variables import Expander, has_references, reference_problems

SECRET = "canary-7f3a9-do-not-print"


def test_env_references_in_both_spellings_are_expanded() -> None:
    expander = Expander({"TOKEN": "abc123"}, user_home="/home/me", workspace_folder="/work/p")

    assert [
        expander.expand("Bearer ${TOKEN}", "servers.a.headers.Authorization"),
        expander.expand("Bearer ${env:TOKEN}", "servers.a.headers.Authorization"),
    ] == ["Bearer abc123", "Bearer abc123"]


def test_builtin_variables_are_expanded() -> None:
    expander = Expander({}, user_home="/home/me", workspace_folder="/work/project")

    assert expander.expand("${userHome}/data:${workspaceFolder}/db", "servers.db.args[1]") == (
        "/home/me/data:/work/project/db"
    )


def test_several_references_and_plain_text_in_one_value() -> None:
    expander = Expander(
        {"HOST": "mcp.example.com", "KEY": "k1"}, user_home="/h", workspace_folder="/w"
    )

    assert expander.expand("https://${HOST}/mcp?key=${env:KEY}&v=$2", "servers.a.url") == (
        "https://mcp.example.com/mcp?key=k1&v=$2"
    )


def test_text_without_references_is_unchanged() -> None:
    expander = Expander({"HOME": "/root"}, user_home="/h", workspace_folder="/w")

    assert expander.expand("$HOME stays; so does {HOME}", "servers.a.args[0]") == (
        "$HOME stays; so does {HOME}"
    )


def test_an_expanded_value_is_not_expanded_again() -> None:
    expander = Expander({"A": "${B}", "B": SECRET}, user_home="/h", workspace_folder="/w")

    assert expander.expand("${A}", "servers.a.env.X") == "${B}"


def test_a_missing_variable_names_the_variable_and_the_place_but_no_value() -> None:
    expander = Expander(
        {"OTHER_SECRET": SECRET, "GITHUB": SECRET}, user_home="/h", workspace_folder="/w"
    )

    with pytest.raises(ExpansionError) as caught:
        expander.expand(
            f"{SECRET} ${{env:GITHUB_TOKEN}}", "servers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN"
        )

    assert str(caught.value) == (
        "servers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN: environment variable GITHUB_TOKEN is "
        "not set; set it before starting agent, or change the server definition (agent mcp edit)"
    )


def test_an_empty_variable_is_set() -> None:
    expander = Expander({"EMPTY": ""}, user_home="/h", workspace_folder="/w")

    assert expander.expand("[${EMPTY}]", "servers.a.args[0]") == "[]"


def test_an_input_reference_cannot_be_expanded() -> None:
    expander = Expander({}, user_home="/h", workspace_folder="/w")

    with pytest.raises(ExpansionError) as caught:
        expander.expand("${input:token}", "servers.a.env.T")

    assert str(caught.value) == "servers.a.env.T: unsupported reference ${input:token}"


def test_reference_problems_explain_each_unusable_reference() -> None:
    assert reference_problems("${input:key} ${1BAD} ${env:OK} ${OK} ${userHome} ${") == [
        "${input:key} asks VS Code to prompt for a value, which agent cannot do; use a literal "
        "value or an environment variable reference such as ${env:NAME}",
        "${1BAD} is not a supported reference; use ${NAME} or ${env:NAME} for an environment "
        "variable",
        "unclosed ${ (a reference looks like ${NAME})",
    ]


def test_has_references_finds_only_braced_references() -> None:
    assert [has_references(t) for t in ["${A}", "x${env:B}y", "$A", "plain", "${"]] == [
        True,
        True,
        False,
        False,
        False,
    ]
