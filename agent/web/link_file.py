"""The file the browser is handed instead of the console's one-time link.

A browser launcher's argv is readable by every local user (/proc/PID/cmdline): with the link
in it, another user could open the link first and own the console. So, as Jupyter does, the
link goes into a small HTML redirect page that only we can read (0600, in a 0700 directory
of ours), and the launcher gets `file:///...` of that page. The file holds nothing a server
sent: only our own address and token.
"""

from __future__ import annotations

import contextlib
import html
import os
import stat
import tempfile
from pathlib import Path

from agent.errors import AgentError

FOLDER = "console-links"

_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="refresh" content="0;url={link}">
<title>agent mcp console</title></head>
<body><p><a href="{link}">Open the agent MCP console</a></p></body></html>
"""


def private_folder(parent: Path) -> Path:
    """`parent`/console-links, created 0700; refused unless it is our own real directory."""
    folder = parent / FOLDER
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


def write_link_file(parent: Path, link: str) -> Path:
    """A new 0600 HTML page under `parent` that sends the browser on to `link`."""
    descriptor, name = tempfile.mkstemp(  # 0600, O_EXCL: never someone else's file
        prefix="console-open-", suffix=".html", dir=private_folder(parent)
    )
    with os.fdopen(descriptor, "w", encoding="utf-8") as page:
        page.write(_PAGE.format(link=html.escape(link, quote=True)))
    return Path(name)


def remove_link_file(path: Path) -> None:
    """Remove the page (the console is stopping); one already gone is fine."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
