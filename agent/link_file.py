"""The file a browser is handed instead of a secret link (the console's, a login's).

A browser launcher's argv is readable by every local user (/proc/PID/cmdline): with the link
in it, another user could use it first: open the console's one-time link and own the console,
or finish an OAuth login (its state and PKCE challenge) with their own account. So, as Jupyter
does, the link goes into a small HTML redirect page that only we can read (0600, in a 0700
directory of ours), and the launcher gets `file:///...` of that page.
"""

from __future__ import annotations

import contextlib
import html
import os
import stat
import tempfile
import threading
import webbrowser
from pathlib import Path

from agent.errors import AgentError

CONSOLE_FOLDER = "console-links"
LOGIN_FOLDER = "login-links"

_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="refresh" content="0;url={link}">
<title>{title}</title></head>
<body><p><a href="{link}">{text}</a></p></body></html>
"""


def private_folder(parent: Path, name: str = CONSOLE_FOLDER) -> Path:
    """`parent`/`name`, created 0700; refused unless it is our own real directory."""
    folder = parent / name
    problem = f"{folder} is not a directory of yours: remove it and try again"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        found = os.lstat(folder)
    except OSError as error:
        raise AgentError(f"{folder} could not be made: {error.strerror}") from None
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid():
        raise AgentError(problem)
    os.chmod(folder, 0o700)  # an older or hand-made one may be open to others
    return folder


def write_link_file(
    parent: Path,
    link: str,
    *,
    folder: str = CONSOLE_FOLDER,
    title: str = "agent mcp console",
    text: str = "Open the agent MCP console",
) -> Path:
    """A new 0600 HTML page in `parent`/`folder` that sends the browser on to `link`."""
    descriptor, name = tempfile.mkstemp(  # 0600, O_EXCL: never someone else's file
        prefix="open-", suffix=".html", dir=private_folder(parent, folder)
    )
    with os.fdopen(descriptor, "w", encoding="utf-8") as page:
        page.write(
            _PAGE.format(
                link=html.escape(link, quote=True),
                title=html.escape(title),
                text=html.escape(text),
            )
        )
    return Path(name)


def open_link_file(path: Path) -> None:
    """Start the browser on the page; never wait for it (it may wait for us)."""
    threading.Thread(target=webbrowser.open, args=(path.as_uri(),), daemon=True).start()


def remove_link_file(path: Path) -> None:
    """Remove the page (its link is used or no longer valid); one already gone is fine."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
