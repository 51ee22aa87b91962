"""The client advertises only the elicitation it performs: forms, not URL mode (which it
would decline every time). The hostile server reports the capabilities it was sent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.pty_chat import AGENT, TIMEOUT, pty_env
from tests.security.dialog_servers import save_trusted_hostile_server


def test_the_client_advertises_form_elicitation_and_not_url_elicitation(
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
    assert advertised["elicitation"] == {"form": {}}
