"""`agent mcp login` never puts the authorization URL on the browser's command line.

Every local user can read /proc/PID/cmdline. The authorization URL carries the login's state
and PKCE challenge: another user who reads it can finish the login with their own account,
and the person's agent then holds the other user's tokens (their account becomes the
person's). As the console does (test_console_browser_link.py), the browser is handed a
private file that leads to the URL. The fake browser here records its argv and what it found
at that path, then follows it to the callback like a real one.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import FOLLOW_REDIRECT, running_oauth_server


def recording_follower(directory: Path) -> tuple[Path, Path]:
    """A $BROWSER that records its argv and the file it was given, then follows it."""
    record = directory / "browser-record.json"
    script = directory / "recording-follower"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, runpy, stat, sys\n"
        "from pathlib import Path\n"
        "from urllib.parse import unquote, urlsplit\n"
        "seen = {'argv': sys.argv[1:]}\n"
        "path = Path(unquote(urlsplit(sys.argv[1]).path))\n"
        "if sys.argv[1].startswith('file://') and path.is_file():\n"
        "    seen['mode'] = stat.S_IMODE(path.stat().st_mode)\n"
        "    seen['folder_mode'] = stat.S_IMODE(path.parent.lstat().st_mode)\n"
        "    seen['owners'] = [path.stat().st_uid, path.parent.lstat().st_uid]\n"
        "    seen['folder_is_link'] = path.parent.is_symlink()\n"
        "    seen['page'] = path.read_text(encoding='utf-8')\n"
        f"Path({str(record)!r}).write_text(json.dumps(seen), encoding='utf-8')\n"
        f"sys.argv = [{str(FOLLOW_REDIRECT)!r}, sys.argv[1]]\n"
        f"runpy.run_path({str(FOLLOW_REDIRECT)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script, record


def test_the_browser_gets_a_private_file_that_leads_to_the_authorization_url(
    tmp_path: Path,
) -> None:
    browser, record = recording_follower(tmp_path)
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)

        login = cli.run("mcp", "login", "fx", browser=browser)
        [asked] = server.state()["authorize_requests"]

    assert login.returncode == 0, login.stderr
    seen = json.loads(record.read_text())
    [argument] = seen["argv"]
    assert argument.startswith("file:///"), argument
    assert asked["state"] not in argument and asked["code_challenge"] not in argument
    assert "authorize" not in argument
    assert (seen["mode"], seen["folder_mode"]) == (0o600, 0o700)
    assert seen["owners"] == [os.getuid(), os.getuid()] and not seen["folder_is_link"]
    # The page leads to the URL the login printed (and the browser went there: it logged in).
    [shown] = [line.strip() for line in login.stdout.splitlines() if "/authorize?" in line]
    assert (
        f'<meta http-equiv="refresh" content="0;url={shown.replace("&", "&amp;")}">'
        in (seen["page"])
    )
    assert parse_qs(urlsplit(shown).query)["state"] == [asked["state"]]
    # Once the login is over the file is gone: the URL is of no use to anyone after it.
    assert not Path(unquote(urlsplit(argument).path)).exists()
    assert stat.S_ISDIR(os.lstat(Path(unquote(urlsplit(argument).path)).parent).st_mode)
