"""A commands server in the configuration commands: imported, listed and exported as written
(the real `agent` binary)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.security.command_tools_helpers import agent

DOCUMENT = {
    "mcpServers": {
        "git": {
            "type": "commands",
            "cwd": "${workspaceFolder}",
            "tools": {
                "log": {
                    "description": "Recent commits",
                    "command": ["git", "log", "--oneline", "-n", "{count}"],
                    "input_schema": {
                        "type": "object",
                        "properties": {"count": {"type": "integer"}},
                        "required": ["count"],
                    },
                    "timeout": 10,
                    "allow_dash": [],
                },
                "py": {"command": [sys.executable, "-V"], "input_schema": {"type": "object"}},
            },
        }
    }
}


def test_a_commands_server_is_imported_listed_and_exported_as_written(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps(DOCUMENT))

    imported = agent("mcp", "import", str(path), cwd=tmp_path)
    listed = agent("mcp", "list", cwd=tmp_path)
    exported = agent("mcp", "export", cwd=tmp_path)

    assert imported.returncode == 0, imported.stderr
    row = listed.stdout.splitlines()[1].split()
    assert row[:6] == ["git", "commands", "no", "no", "not", "discovered"]
    assert listed.stdout.splitlines()[1].endswith(f"tools: log (git), py ({sys.executable})")
    expected = json.loads(json.dumps(DOCUMENT))
    del expected["mcpServers"]["git"]["tools"]["log"]["allow_dash"]  # empty: left out
    assert json.loads(exported.stdout) == expected
