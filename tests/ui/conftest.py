"""The chat UI runs on asyncio (prompt_toolkit and the spinner's timers need it)."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
