"""Every test gets its own config and data home, so nothing touches the real ones; async tests
run on asyncio, the backend the app uses."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def agent_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """AGENT_HOME for this test (and every process it starts); created on first write."""
    home = tmp_path / "agent-home"
    monkeypatch.setenv("AGENT_HOME", str(home))
    return home


@pytest.fixture
def anyio_backend() -> str:
    """@pytest.mark.anyio tests run on asyncio only (prompt_toolkit and the mcp SDK need it)."""
    return "asyncio"
