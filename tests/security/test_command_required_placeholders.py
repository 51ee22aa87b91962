"""A hostile model answer gives `null` or an empty list for a required placeholder, hoping the
element disappears and the option before it takes the next element as its value: `sort -o
{out} {file}` with `out: null` would run `sort -o data.txt` and empty the file. A required
placeholder is never dropped: the call is refused, naming the tool and the argument. Real
`agent mcp call`, real `sort`."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.security.command_tools_helpers import call, make_project, save_commands_server

SORT = shutil.which("sort") or "sort"
DATA = "banana\napple\n"


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": ["string", "null"]}, None),
        ({}, None),
        ({"type": ["string", "array"], "items": {"type": "string"}}, []),
    ],
    ids=["null", "null-untyped", "empty-list"],
)
def test_a_required_placeholder_given_null_or_an_empty_list_is_refused_and_nothing_runs(
    schema: dict[str, Any], value: object, tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    (project / "data.txt").write_text(DATA)
    tool = {
        "command": [SORT, "-o", "{out}", "{file}"],
        "input_schema": {
            "type": "object",
            "properties": {"out": schema, "file": {"type": "string"}},
            "required": ["out", "file"],
        },
    }
    save_commands_server(agent_home, project, {"sort": tool})

    result = call(project, "sort", {"out": value, "file": "data.txt"})

    assert (project / "data.txt").read_text() == DATA
    assert result.returncode != 0
    shown = " ".join((result.stdout + result.stderr).split())
    assert "tool sort: argument 'out' is required, so it cannot be" in shown, shown
    assert "nothing was run" in shown
