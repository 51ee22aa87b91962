"""Attack: a server's secret in the media type of what it returns (a blob's, an image's): a
protocol field, kept as it was by masking, but written into the notes the model and the
terminal read ("[resource: ..., application/x-dump+SECRET, 3 bytes]"). Through the real
`agent mcp call`, whose text is what the model gets (tool_result_from_mcp); stdio and HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.inputs_helpers import run_agent
from tests.security.leaky_servers import SERVER, Leaky, leaky_server


@pytest.fixture(params=["stdio", "http"])
def leaky(request: pytest.FixtureRequest, agent_home: Path, tmp_path: Path) -> Iterator[Leaky]:
    with leaky_server(request.param, agent_home, tmp_path / "home") as server:
        yield server


def test_a_secret_in_a_media_type_never_reaches_the_notes_on_a_result(
    leaky: Leaky, tmp_path: Path
) -> None:
    called = run_agent(
        ["mcp", "call", SERVER, "query", "--args", '{"sql": "x"}'], leaky.env, tmp_path
    )

    assert called.returncode == 0, called.stderr
    assert leaky.secret not in called.stdout + called.stderr
    assert "[resource: note://dump, application/x-dump+***, 3 bytes]" in called.stdout
    assert "called 'image/x-***'" in called.stdout
