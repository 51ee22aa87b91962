"""Opening a server's web page in the person's browser, after their yes.

Python's webbrowser is the system's way: $BROWSER when set, else xdg-open and its kin, each
started with the URL as one argument of a list, never through a shell. It takes a UrlRequest,
so only a URL `judge_url` let through can reach it. The browser is started in a worker thread
(a console browser would run until it is closed) and given a few seconds to say whether one
was found; a browser still starting by then counts as started.
"""

from __future__ import annotations

import anyio
import anyio.to_thread

from agent.mcp.forms.url_request import UrlRequest

_START_SECONDS = 5.0


async def open_in_browser(request: UrlRequest) -> bool:
    """Start the browser on the request's URL, exactly as sent; False when none was found."""
    import webbrowser

    with anyio.move_on_after(_START_SECONDS):
        started: bool = await anyio.to_thread.run_sync(
            webbrowser.open, request.url, abandon_on_cancel=True
        )
        return started
    return True


def opened_line(request: UrlRequest, started: bool) -> str:
    """What the person is told once they said yes."""
    if started:
        return f"Opened {request.judged.ascii_host} in your browser."
    return (
        "No browser could be started (set $BROWSER to one); open the URL above yourself "
        f"if you still want the page on {request.judged.ascii_host}."
    )
