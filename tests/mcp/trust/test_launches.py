"""Launch trust: records of effective launches, what changed between two, and the keyed hashes."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from agent.errors import Problem, StoreError
from agent.mcp.config.definitions import StdioDefinition
from agent.mcp.config.variables import Expander
from agent.mcp.trust.launches import (
    MAX_TRUSTED_LAUNCHES,
    LaunchTrust,
    decode_trusted_launches,
    depends_on_project,
    load_or_create_key,
    remember,
)

PYTHON = sys.executable


def judge(project: Path, environ: dict[str, str] | None = None) -> LaunchTrust:
    env = {"PATH": os.environ["PATH"], "HOME": "/home/person", **(environ or {})}
    return LaunchTrust(Expander(env, "/home/person", str(project)), project)


def test_a_record_holds_no_environment_value_and_no_argument_taken_from_one(
    tmp_path: Path,
) -> None:
    definition = StdioDefinition(
        name="db",
        command=PYTHON,
        args=("--url", "${DB_URL}", "--root", "${workspaceFolder}"),
        env={"TOKEN": "${SECRET_TOKEN}", "MODE": "ro"},
    )
    secret_url, token = "postgres://u:pw-91c3@h/db", "tok-7f00aa"
    trust = judge(tmp_path, {"DB_URL": secret_url, "SECRET_TOKEN": token})

    record = trust.verdict(definition, ()).record
    text = json.dumps(record.to_json())

    assert secret_url not in text and token not in text and "ro" not in dict(record.env).values()
    assert record.project == str(tmp_path)
    assert record.executable == PYTHON
    assert [arg.text for arg in record.args] == ["--url", None, "--root", str(tmp_path)]
    assert sorted(dict(record.env)) == ["HOME", "MODE", "PATH", "TOKEN"]


def test_the_same_launch_is_trusted_and_each_difference_is_named(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    definition = StdioDefinition(
        name="s", command=PYTHON, args=("-m", "srv", "${KEY}"), env={"T": "${KEY}"}
    )
    trusted = remember((), judge(first, {"KEY": "one"}).verdict(definition, ()).record)

    same = judge(first, {"KEY": "one"}).verdict(definition, trusted)
    elsewhere = judge(second, {"KEY": "two", "USER": "x"}).verdict(definition, trusted)

    assert (same.trusted, same.changes) == (True, ())
    assert not elsewhere.trusted and elsewhere.previously_trusted
    assert elsewhere.trusted_in == str(first)
    assert elsewhere.headline() == (
        f"it runs in this project's folder, and you trusted it in {first}"
    )
    assert elsewhere.changes == (
        "its working directory is this project's folder",
        "argument 3 changed (set from an environment variable)",
        "environment: USER added",
        "environment: the value of T changed",
    )


def test_a_fixed_working_directory_without_workspace_references_is_project_independent() -> None:
    fixed = StdioDefinition(name="s", command="x", cwd="/srv")
    assert not depends_on_project(fixed)
    assert depends_on_project(StdioDefinition(name="s", command="x"))
    assert depends_on_project(StdioDefinition(name="s", command="x", cwd="${workspaceFolder}/a"))
    assert depends_on_project(
        StdioDefinition(name="s", command="x", cwd="/srv", env={"R": "${workspaceFolder}"})
    )
    # A relative cwd resolves where the chat runs: in the project.
    assert depends_on_project(StdioDefinition(name="s", command="x", cwd="tools"))
    assert not depends_on_project(StdioDefinition(name="s", command="x", cwd="~/srv"))


def test_each_trusted_launch_is_kept_once_newest_first_and_the_oldest_lapse(
    tmp_path: Path,
) -> None:
    definition = StdioDefinition(name="s", command=PYTHON)
    records = []
    for index in range(MAX_TRUSTED_LAUNCHES + 3):
        folder = tmp_path / f"p{index}"
        folder.mkdir()
        records.append(judge(folder).verdict(definition, ()).record)
    trusted: tuple = ()
    for record in records:
        trusted = remember(trusted, record)
    again = remember(trusted, records[-1])

    assert len(trusted) == MAX_TRUSTED_LAUNCHES
    assert trusted[0] == records[-1] and records[0] not in trusted
    assert again == trusted  # the same launch is not added twice


def test_the_key_is_created_once_readable_only_by_its_owner(tmp_path: Path) -> None:
    path = tmp_path / "data" / "trust.key"

    key = load_or_create_key(path)

    assert len(key) == 32 and load_or_create_key(path) == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["trust.key"]  # no temporary left


def test_a_damaged_key_is_an_error_that_says_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "trust.key"
    path.write_bytes(b"short")

    with pytest.raises(StoreError) as caught:
        load_or_create_key(path)

    assert str(caught.value) == (
        f"{path}: not a trust key (5 bytes, expected 32); delete it and agent makes a new one "
        "(every local MCP server then asks for trust again)"
    )


def test_records_round_trip_and_malformed_ones_are_named(tmp_path: Path) -> None:
    definition = StdioDefinition(name="s", command=PYTHON, args=("${K}", "x"))
    (tmp_path / "v").write_text("")  # the script python is given
    record = judge(tmp_path, {"K": "v"}).verdict(definition, ()).record
    problems: list[Problem] = []

    decoded = decode_trusted_launches(
        [record.to_json(), {**record.to_json(), "args": [{"value": 1}]}], "here", problems
    )

    assert decoded == (record,)
    assert problems == [
        Problem("here[1]", "expected project, command, executable, cwd, args and env")
    ]
