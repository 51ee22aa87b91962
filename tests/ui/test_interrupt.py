"""Ctrl-C (a real SIGINT to this process) cancels the scope it was given, and only while it runs."""

from __future__ import annotations

import asyncio
import os
import signal

import anyio
import anyio.lowlevel
import pytest

from agent.ui.interrupt import ctrl_c_cancels

pytestmark = pytest.mark.anyio


async def test_ctrl_c_cancels_the_running_scope_and_is_ignored_after_it_in_the_chat() -> None:
    reached_end = False
    with anyio.fail_after(10):
        with ctrl_c_cancels(ignore_after=True) as scope:
            os.kill(os.getpid(), signal.SIGINT)
            await anyio.sleep_forever()  # only the signal can end this
        assert scope.cancelled_caught
        try:
            os.kill(os.getpid(), signal.SIGINT)  # between scopes: ignored, no KeyboardInterrupt
            await anyio.lowlevel.checkpoint()
            reached_end = True
        finally:
            asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)
    assert reached_end


async def test_a_scope_that_ends_on_its_own_was_not_cancelled_and_gives_sigint_back() -> None:
    with ctrl_c_cancels(ignore_after=False) as scope:
        await anyio.lowlevel.checkpoint()

    assert not scope.cancelled_caught
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
