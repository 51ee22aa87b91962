"""`agent mcp console`: bind the bridge on this computer's loopback, print the one-time link,
open it in the browser (and a new link for each line typed in the terminal), and serve until
Ctrl-C or SIGTERM; then stop every server it started.
"""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import uvicorn

from agent.errors import AgentError
from agent.link_file import open_link_file, remove_link_file, write_link_file
from agent.mcp.runtime import McpRuntime
from agent.mcp.store import McpStore
from agent.mcp.trust.question import DenyTrust
from agent.settings import McpLimits
from agent.web.console_app import build_app
from agent.web.console_hub import ConsoleHub
from agent.web.console_service import ConsoleService
from agent.web.elicitations import PageElicitation
from agent.web.guard import GuardMiddleware, Session, allowed_hosts
from agent.web.link_requests import watch_for_link_requests
from agent.web.stop_signals import StopSignals

NEW_LINK_HINT = "Press Enter here for a new link (a reloaded page or a new tab needs one)."
GRACEFUL_SECONDS = 3  # open event streams are ended first; this bounds the rest


class _Server(uvicorn.Server):
    """uvicorn's server, ending the event streams when it stops. Signals are not its own
    (StopSignals handles them for the whole run, and uvicorn would raise the one that stopped
    it again afterwards, turning a requested stop into an error exit)."""

    def __init__(self, config: uvicorn.Config, hub: ConsoleHub) -> None:
        super().__init__(config)
        self.hub = hub

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    def request_stop(self) -> None:
        """Stop serving (from a signal handler): uvicorn's loop looks at this flag."""
        self.should_exit = True

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.hub.close()  # event streams never end by themselves
        await super().shutdown(sockets)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: one the system picks)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Inherited by each accepted connection: uvicorn writes an answer's head and body
    # separately, and Nagle's algorithm would hold the body for the client's delayed ACK
    # (about 40 ms on every request).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(False)
    return sock


def _config(app: GuardMiddleware) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        http="h11",
        ws="none",
        lifespan="off",
        log_config=None,
        access_log=False,
        proxy_headers=False,  # the client's address is the socket's, never a header
        server_header=False,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )


def open_in_browser(url: str, folder: Path) -> Path | None:
    """Open the console in the browser through a private file holding `url` (never `url`
    itself: a launcher's argv is readable by every local user); return the file. Without a
    file the browser is not opened: the printed link still works."""
    try:
        path = write_link_file(folder, url)
    except (AgentError, OSError) as error:
        reason = str(error) if isinstance(error, AgentError) else error.strerror
        print(f"Not opening the browser: {reason}. Open the link above.", file=sys.stderr)
        return None
    open_link_file(path)  # in a thread: the bridge must not wait for the browser
    return path


def serve(
    store: McpStore,
    limits: McpLimits,
    *,
    sock: socket.socket,
    extra_host: str | None,
    open_browser: bool,
    logs_dir: Path,
    project_dir: Path,
) -> None:
    """Run the bridge on `sock` until Ctrl-C or SIGTERM; every server started is stopped."""
    port = sock.getsockname()[1]
    host = sock.getsockname()[0]
    session = Session()
    hub = ConsoleHub()
    forms = PageElicitation(hub, limits.tool_timeout_seconds)

    async def main() -> None:
        async with McpRuntime(
            store,
            limits,
            logs_dir=logs_dir,
            project_dir=project_dir,
            trust=DenyTrust(),  # trust is the terminal's: `agent mcp trust NAME`
            elicitation=forms,
            observe=hub.observe,
            observe_stderr=hub.observe_stderr,
            watch_traffic=True,  # hand-written requests wait for their answers
        ) as runtime:
            service = ConsoleService(runtime, hub)
            app = build_app(service, forms, session, allowed_hosts(port, extra_host))
            server = _Server(_config(app), hub)
            stops.on_stop = server.request_stop
            if stops.asked:  # the signal came while the servers were being set up
                server.request_stop()
            links.hand_out(session.token)
            _serve_new_links(lambda: links.hand_out(session.new_token()))
            async with anyio.create_task_group() as group:
                group.start_soon(service.watch_states)
                await server.serve(sockets=[sock])
                group.cancel_scope.cancel()

    links = _Links(f"http://{host}:{port}/open?token=", logs_dir if open_browser else None)
    stops = StopSignals(cleanup=links.remove_files)
    try:
        with stops.installed():
            anyio.run(main)
    finally:
        links.remove_files()
    print("Console stopped.", file=sys.stderr, flush=True)


class _Links:
    """The console's one-time links: printed, handed to the browser through private files
    (in `folder`, when the browser is to be opened), the files removed at the end."""

    def __init__(self, prefix: str, folder: Path | None) -> None:
        self._prefix, self._folder = prefix, folder
        self._files: list[Path] = []

    def hand_out(self, token: str) -> None:
        """Print the link for `token` and open the browser on it. Runs on the main thread at
        first, then on the terminal's (a new link on request)."""
        url = self._prefix + token
        print(f"Console: {url}", flush=True)
        if self._folder is not None and (opened := open_in_browser(url, self._folder)):
            self._files.append(opened)

    def remove_files(self) -> None:
        """Remove every link file handed to the browser."""
        for path in list(self._files):  # the terminal's thread may add one meanwhile
            remove_link_file(path)


def _serve_new_links(hand_out: Callable[[], None]) -> None:
    """Hand out a new link whenever Enter is pressed in the console's terminal."""
    # No stdin at all (started with it closed): its descriptor may be any file or socket
    # opened since, so there is nothing to read for requests.
    if sys.stdin is None:
        return
    if sys.stdin.isatty():
        print(NEW_LINK_HINT, file=sys.stderr, flush=True)
    watch_for_link_requests(hand_out, sys.stdin.fileno())
