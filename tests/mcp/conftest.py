"""Runtime tests run on asyncio, the loop the app itself uses."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
