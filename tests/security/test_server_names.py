"""A server name cannot hold line breaks, controls, bidi or invisible characters.

The attack: a shared MCP document names a server "fx\\nagent: server trusted" (or hides a
U+202E or a zero-width space in it). The name is printed in dialogs, listings and errors,
where it would draw a line of ours or read as another server's name. Import refuses it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

AGENT = str(Path(sys.executable).with_name("agent"))

HOSTILE_NAMES = {
    "fx\nagent: server trusted": "\\n",
    "fx\ragent: server trusted": "\\x0d",
    "fx\u2028agent": "\\u2028",
    "fx\x85agent": "\\x85",
    "gh\u202ebuhtig": "\\u202e",
    "git\u200bhub": "\\u200b",
    "fx\x1b[2J": "\\x1b",
    "fx\U000e0041": "\\U000e0041",
    "\u3164": "\\u3164",
}


@pytest.mark.parametrize("merge", [False, True], ids=["import", "import --merge"])
@pytest.mark.parametrize("name", list(HOSTILE_NAMES), ids=list(HOSTILE_NAMES.values()))
def test_importing_a_server_name_with_an_unprintable_character_is_refused_and_saves_nothing(
    name: str, merge: bool, agent_home: Path, tmp_path: Path
) -> None:
    document = tmp_path / "servers.json"
    document.write_text(json.dumps({"mcpServers": {name: {"command": "echo"}}}))

    done = subprocess.run(
        [AGENT, "mcp", "import", str(document), *(["--merge"] if merge else [])],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 1
    escaped = HOSTILE_NAMES[name]
    # One line naming the document and the field path, the name spelled with JSON escapes.
    assert done.stderr == (
        f"agent: {document}: mcpServers[{json.dumps(name)}]: the name holds control, "
        f"invisible or line-break characters ({escaped}); rename the server using printable "
        "characters only\n"
    )
    assert not (agent_home / "mcp-servers.json").exists()


def test_a_printable_unicode_server_name_is_still_accepted(
    agent_home: Path, tmp_path: Path
) -> None:
    document = tmp_path / "servers.json"
    document.write_text(json.dumps({"mcpServers": {"Café Ü": {"command": "echo"}}}))

    done = subprocess.run(
        [AGENT, "mcp", "import", str(document)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    saved = json.loads((agent_home / "mcp-servers.json").read_text())["definitions"]
    assert [definition["name"] for definition in saved] == ["Café Ü"]
