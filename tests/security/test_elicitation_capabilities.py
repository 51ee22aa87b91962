"""The client advertises exactly the elicitation it performs: forms and URL mode (a web page
shown in full and opened only after a yes), nothing the SDK might add. The hostile server
reports the capabilities it was sent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.pty_chat import AGENT, TIMEOUT, pty_env
from tests.security.dialog_servers import save_trusted_hostile_server


def test_the_client_advertises_form_and_url_elicitation_and_nothing_else(
    tmp_path: Path, agent_home: Path
) -> None:
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path))
    completed = subprocess.run(
        [AGENT, "mcp", "call", "hx", "capabilities", "--args", "{}"],
        capture_output=True,
        text=True,
        env=pty_env(agent_home, tmp_path),
        cwd=tmp_path,
        timeout=TIMEOUT,
        start_new_session=True,
    )
    assert completed.returncode == 0, completed.stderr
    advertised = json.loads(completed.stdout)
    assert advertised["elicitation"] == {"form": {}, "url": {}}
