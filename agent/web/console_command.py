"""`agent mcp console`: the MCP console in the browser, served by a bridge on this computer.

The bridge serves this computer only: --host must be a loopback address, checked before
anything is bound. Starlette, uvicorn and the mcp SDK are imported only once the command runs
(cli.py imports this module lazily, and this module imports serve.py lazily).
"""

from __future__ import annotations

import sys

from agent.errors import AgentError
from agent.home import data_home
from agent.mcp.store import McpStore
from agent.project import find_project_dir
from agent.settings import load_settings

LOOPBACK_ONLY = (
    "agent mcp console serves this computer only: --host must be a loopback address such as "
    "127.0.0.1"
)


def console_command(store: McpStore, host: str, port: int, no_browser: bool) -> int:
    """Serve the console until Ctrl-C or SIGTERM; exit 2 for a host that is not loopback."""
    from agent.web.guard import loopback_bind_host

    bind_host = loopback_bind_host(host)
    if bind_host is None:
        print(LOOPBACK_ONLY, file=sys.stderr)
        return 2
    if not 0 <= port <= 65535:
        print("agent mcp console: --port must be between 0 and 65535", file=sys.stderr)
        return 2
    settings = load_settings()
    store.load()  # a broken configuration is reported before anything is bound
    from agent.web.serve import bind, serve

    try:
        sock = bind(bind_host, port)
    except OSError as error:
        raise AgentError(
            f"agent mcp console could not listen on {bind_host}:{port}: {error.strerror}"
        ) from None
    extra = host if host not in ("127.0.0.1", "localhost") else None
    serve(
        store,
        settings.mcp,
        sock=sock,
        extra_host=extra,
        open_browser=not no_browser,
        logs_dir=data_home(),
        project_dir=find_project_dir(),
    )
    return 0
