"""`agent mcp ...` as a person runs it: the real command in a subprocess, AGENT_HOME in tmp."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

SECRET = "canary-5e1f0c-never-print"

CLAUDE_DESKTOP = {
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
        },
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
        },
    }
}

CANONICAL_CLAUDE_DESKTOP = """{
  "mcpServers": {
    "filesystem": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/me/Desktop"
      ]
    },
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"
      }
    }
  }
}
"""


def agent(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed app as a person would; AGENT_HOME comes from the test's environment."""
    return subprocess.run(
        [sys.executable, "-m", "agent", *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def write_json(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


# --- import and export --------------------------------------------------------------------


def test_import_saves_the_document_and_export_prints_it_canonically(
    tmp_path: Path, agent_home: Path
) -> None:
    source = write_json(tmp_path / "claude_desktop_config.json", CLAUDE_DESKTOP)

    imported = agent("mcp", "import", str(source))
    exported = agent("mcp", "export")

    store = agent_home / "mcp-servers.json"
    assert (imported.returncode, imported.stderr) == (0, "")
    assert imported.stdout == (
        f"Saved 2 MCP servers to {store}\n"
        "  added: filesystem, github\n"
        "New and changed servers stay disabled until their tools are discovered.\n"
    )
    assert (exported.returncode, exported.stdout, exported.stderr) == (
        0,
        CANONICAL_CLAUDE_DESKTOP,
        "",
    )
    assert stat.S_IMODE(store.stat().st_mode) == 0o600


def test_export_is_byte_stable_through_import_and_export(tmp_path: Path) -> None:
    vscode = tmp_path / "mcp.json"
    vscode.write_text(
        '{\n  // team servers\n  "servers": {\n'
        '    "docs": {"type": "http", "url": "https://docs.example/mcp", '
        '"headers": {"Authorization": "Bearer ${env:DOCS_TOKEN}"},},\n'
        '    "db": {"command": "uvx", "args": ["mcp-server-sqlite"],'
        ' "cwd": "${workspaceFolder}"},\n'
        "  },\n}\n",
        encoding="utf-8",
    )
    assert agent("mcp", "import", str(vscode)).returncode == 0
    first = agent("mcp", "export").stdout
    (tmp_path / "exported.json").write_text(first, encoding="utf-8")

    assert agent("mcp", "import", str(tmp_path / "exported.json")).returncode == 0
    second = agent("mcp", "export").stdout

    assert second == first
    assert json.loads(first) == {
        "mcpServers": {
            "docs": {
                "type": "streamable-http",
                "url": "https://docs.example/mcp",
                "headers": {"Authorization": "Bearer ${env:DOCS_TOKEN}"},
            },
            "db": {
                "type": "stdio",
                "command": "uvx",
                "args": ["mcp-server-sqlite"],
                "cwd": "${workspaceFolder}",
            },
        }
    }


def test_import_reads_standard_input_for_a_dash() -> None:
    result = agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))

    assert result.returncode == 0
    assert agent("mcp", "export").stdout == CANONICAL_CLAUDE_DESKTOP


def test_import_replaces_the_whole_configuration(tmp_path: Path) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    other = write_json(tmp_path / "other.json", {"mcpServers": {"fetch": {"command": "uvx"}}})

    result = agent("mcp", "import", str(other))

    assert result.stdout.splitlines()[1:3] == ["  added: fetch", "  removed: filesystem, github"]
    assert json.loads(agent("mcp", "export").stdout) == {
        "mcpServers": {"fetch": {"type": "stdio", "command": "uvx"}}
    }


def test_import_merge_adds_and_replaces_only_the_named_servers(tmp_path: Path) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    addition = write_json(
        tmp_path / "more.json",
        {
            "servers": {
                "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
                "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]},
            }
        },
    )

    result = agent("mcp", "import", "--merge", str(addition))

    assert result.returncode == 0
    assert result.stdout.splitlines()[1:4] == [
        "  added: fetch",
        "  changed: github",
        "  unchanged: filesystem",
    ]
    assert json.loads(agent("mcp", "export").stdout) == {
        "mcpServers": {
            "filesystem": CANONICAL_SERVERS["filesystem"],
            "github": {"type": "streamable-http", "url": "https://api.githubcopilot.com/mcp/"},
            "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]},
        }
    }


CANONICAL_SERVERS = json.loads(CANONICAL_CLAUDE_DESKTOP)["mcpServers"]


def test_import_says_once_where_literal_secrets_are_stored(
    tmp_path: Path, agent_home: Path
) -> None:
    source = write_json(
        tmp_path / "cursor.json",
        {
            "mcpServers": {
                "github": {"command": "npx", "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": SECRET}},
                "remote": {
                    "url": "https://mcp.example.com/mcp",
                    "headers": {"Authorization": f"Bearer {SECRET}", "X-Env": "${X}"},
                },
            }
        },
    )

    result = agent("mcp", "import", str(source))

    assert result.stdout.splitlines()[-1] == (
        "Note: the values of env GITHUB_PERSONAL_ACCESS_TOKEN (github), header Authorization "
        f"(remote) are stored as written in {agent_home / 'mcp-servers.json'} (readable only by "
        "you). To keep them out of that file, write ${VAR} references and set the variables in "
        "your environment."
    )
    assert SECRET not in result.stdout + result.stderr


def test_import_shows_notices_for_ignored_fields_on_stderr(tmp_path: Path) -> None:
    source = write_json(
        tmp_path / "cline.json",
        {"mcpServers": {"a": {"command": "x", "disabled": False, "autoApprove": []}}},
    )

    result = agent("mcp", "import", str(source))

    assert result.returncode == 0
    assert result.stderr == (
        "note: mcpServers.a.disabled: ignored (it does not change what runs)\n"
        "note: mcpServers.a.autoApprove: ignored (it does not change what runs)\n"
    )


def test_a_rejected_import_changes_nothing_and_lists_each_error_on_its_own_line(
    tmp_path: Path, agent_home: Path
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    store = agent_home / "mcp-servers.json"
    before = store.read_bytes()
    bad = write_json(
        tmp_path / "bad.json",
        {
            "servers": {
                "github": {"type": "http", "url": "https://user:pass@api.github.com/mcp"},
                "fetch": {"command": "uvx", "headers": {"A": "b"}},
                "ok": {"command": "uvx"},
            }
        },
    )

    result = agent("mcp", "import", str(bad))

    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        f"agent: {bad}: servers.github.url: embedded credentials are not allowed; send them in "
        "headers instead",
        f"agent: {bad}: servers.fetch.headers: not allowed on a stdio server (headers belongs to "
        "HTTP servers)",
    ]
    assert store.read_bytes() == before


def test_a_rejected_merge_changes_nothing(agent_home: Path) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    store = agent_home / "mcp-servers.json"
    before = store.read_bytes()

    result = agent("mcp", "import", "--merge", "-", stdin='{"mcpServers": {"x": {}}}')

    assert (result.returncode, result.stderr) == (
        1,
        "agent: <stdin>: mcpServers.x: has neither command (a local server) nor url (a remote "
        "server)\n",
    )
    assert store.read_bytes() == before


def test_a_rejected_first_import_creates_no_store(agent_home: Path) -> None:
    result = agent("mcp", "import", "-", stdin='{"command": "npx"}')

    assert result.returncode == 1
    assert not (agent_home / "mcp-servers.json").exists()


def test_importing_a_missing_file_is_an_error(tmp_path: Path) -> None:
    result = agent("mcp", "import", str(tmp_path / "nope.json"))

    assert (result.returncode, result.stderr) == (
        1,
        f"agent: {tmp_path / 'nope.json'}: no such file\n",
    )


def test_a_corrupt_store_refuses_every_command_and_stays_byte_identical(
    agent_home: Path,
) -> None:
    agent_home.mkdir()
    store = agent_home / "mcp-servers.json"
    store.write_bytes(b'{"version": 2, "definitions": [')

    results = [
        agent("mcp", "list"),
        agent("mcp", "export"),
        agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP)),
        agent("mcp", "remove", "github"),
    ]

    assert [r.returncode for r in results] == [1, 1, 1, 1]
    for result in results:
        assert result.stderr.startswith(f"agent: {store}: not valid JSON (")
        assert result.stderr.endswith(
            "fix it by hand or move it away; agent will not overwrite it\n"
        )
    assert store.read_bytes() == b'{"version": 2, "definitions": ['


# --- list -------------------------------------------------------------------------------


def test_list_shows_servers_without_any_env_header_or_query_values(tmp_path: Path) -> None:
    source = write_json(
        tmp_path / "servers.json",
        {
            "mcpServers": {
                "github": {
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-github"],
                    "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": SECRET, "LOG": SECRET},
                },
                "remote": {
                    "url": f"https://mcp.example.com/mcp?api_key={SECRET}&v=1",
                    "headers": {"Authorization": f"Bearer {SECRET}"},
                },
                "legacy": {"type": "sse", "url": "http://localhost:8000/sse"},
            }
        },
    )
    agent("mcp", "import", str(source))

    result = agent("mcp", "list")

    assert (result.returncode, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert [" ".join(line.split()) for line in lines] == [
        "NAME TRANSPORT TARGET ENABLED TRUSTED TOOLS",
        "github stdio npx -y @modelcontextprotocol/server-github (env: "
        "GITHUB_PERSONAL_ACCESS_TOKEN, LOG) no no not discovered",
        "remote streamable-http https://mcp.example.com/mcp?api_key=***&v=*** (headers: "
        "Authorization) no n/a not discovered",
        "legacy sse http://localhost:8000/sse no n/a not discovered",
    ]
    enabled_column = lines[0].index("ENABLED")
    assert [line[enabled_column:].split()[0] for line in lines] == ["ENABLED", "no", "no", "no"]
    assert SECRET not in result.stdout + result.stderr


def test_list_quotes_arguments_and_escapes_control_characters() -> None:
    agent(
        "mcp",
        "import",
        "-",
        stdin=json.dumps(
            {
                "mcpServers": {
                    "evil\u001b[31m": {"command": "my server", "args": ["a b", "\u001b[2J"]}
                }
            }
        ),
    )

    result = agent("mcp", "list")

    assert "\x1b" not in result.stdout
    assert " ".join(result.stdout.splitlines()[1].split()) == (
        "evil\\x1b[31m stdio 'my server' 'a b' '\\x1b[2J' no no not discovered"
    )


def test_list_with_nothing_configured_says_how_to_import() -> None:
    result = agent("mcp", "list")

    assert (result.returncode, result.stdout) == (
        0,
        "No MCP servers configured. Import a document with: agent mcp import FILE\n",
    )


# --- remove -----------------------------------------------------------------------------


def test_remove_deletes_one_server(agent_home: Path) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))

    result = agent("mcp", "remove", "github")

    assert (result.returncode, result.stdout) == (
        0,
        f"Removed github from {agent_home / 'mcp-servers.json'}\n",
    )
    assert list(json.loads(agent("mcp", "export").stdout)["mcpServers"]) == ["filesystem"]


def test_removing_an_unknown_server_is_an_error_naming_the_configured_ones(
    agent_home: Path,
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    before = (agent_home / "mcp-servers.json").read_bytes()

    result = agent("mcp", "remove", "gitlab")

    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        "agent: no MCP server named 'gitlab' (configured: filesystem, github)\n",
    )
    assert (agent_home / "mcp-servers.json").read_bytes() == before


# --- edit -------------------------------------------------------------------------------


def scripted_editor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writes: str | None, exit_code: int = 0
) -> Path:
    """Point VISUAL at a script that records the draft it was given and writes `writes`."""
    seen = tmp_path / "editor-saw.json"
    script = tmp_path / "editor.py"
    script.write_text(
        "import pathlib, sys\n"
        "draft = pathlib.Path(sys.argv[-1])\n"
        f"pathlib.Path({str(seen)!r}).write_text(draft.read_text())\n"
        f"replacement = {writes!r}\n"
        "if replacement is not None:\n"
        "    draft.write_text(replacement)\n"
        f"sys.exit({exit_code})\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("VISUAL", shlex.join([sys.executable, str(script)]))
    return seen


def test_edit_opens_the_canonical_document_and_saves_a_valid_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent_home: Path
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    edited = CANONICAL_CLAUDE_DESKTOP.replace('"/Users/me/Desktop"', '"/Users/me/Documents"')
    seen = scripted_editor(tmp_path, monkeypatch, writes=edited)

    result = agent("mcp", "edit")

    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        f"Saved 2 MCP servers to {agent_home / 'mcp-servers.json'}\n"
        "  changed: filesystem\n"
        "  unchanged: github\n"
        "New and changed servers stay disabled until their tools are discovered.\n"
    )
    assert seen.read_text() == CANONICAL_CLAUDE_DESKTOP
    assert agent("mcp", "export").stdout == edited


@pytest.mark.parametrize(("variable", "unset"), [("VISUAL", "EDITOR"), ("EDITOR", "VISUAL")])
def test_edit_without_changes_saves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent_home: Path, variable: str, unset: str
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    before = (agent_home / "mcp-servers.json").read_bytes()
    seen = scripted_editor(tmp_path, monkeypatch, writes=None)
    monkeypatch.setenv(variable, os.environ["VISUAL"])
    monkeypatch.delenv(unset, raising=False)

    result = agent("mcp", "edit")

    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "No changes; nothing saved.\n",
        "",
    )
    assert (agent_home / "mcp-servers.json").read_bytes() == before
    assert seen.read_text() == CANONICAL_CLAUDE_DESKTOP


def test_edit_of_an_empty_configuration_can_add_the_first_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = scripted_editor(
        tmp_path, monkeypatch, writes='{"servers": {"fetch": {"command": "uvx"}}}'
    )

    result = agent("mcp", "edit")

    assert result.returncode == 0
    assert seen.read_text() == '{\n  "mcpServers": {}\n}\n'
    assert json.loads(agent("mcp", "export").stdout) == {
        "mcpServers": {"fetch": {"type": "stdio", "command": "uvx"}}
    }


def test_an_invalid_edit_without_a_terminal_shows_the_errors_and_saves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent_home: Path
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    before = (agent_home / "mcp-servers.json").read_bytes()
    scripted_editor(
        tmp_path,
        monkeypatch,
        writes='{"mcpServers": {"github": {"command": "npx", "url": "ftp://x"}, "b": {}}}',
    )

    result = agent("mcp", "edit")

    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        "edited document: mcpServers.github: has both command and url; a server is a local "
        "command or a URL, not both",
        "edited document: mcpServers.b: has neither command (a local server) nor url (a remote "
        "server)",
        "Nothing saved.",
    ]
    assert (agent_home / "mcp-servers.json").read_bytes() == before


def edit_at_a_terminal(answer: str) -> tuple[int, str]:
    """Run `agent mcp edit` on a pseudo-terminal, answer the first "Edit again?" question."""
    child = pexpect.spawn(
        sys.executable, ["-m", "agent", "mcp", "edit"], encoding="utf-8", timeout=15
    )
    child.expect_exact("Edit again? [Y/n] ")
    shown = child.before or ""
    child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus or 0, shown + (child.before or "")


def alternating_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *drafts: str) -> None:
    """Point VISUAL at a script that writes drafts[0] on its first run, drafts[1] on the next."""
    script = tmp_path / "editor.py"
    script.write_text(
        "import pathlib, sys\n"
        f"runs = pathlib.Path({str(tmp_path / 'runs')!r})\n"
        "run = len(runs.read_text()) if runs.exists() else 0\n"
        "runs.write_text('x' * (run + 1))\n"
        f"pathlib.Path(sys.argv[-1]).write_text({list(drafts)!r}[run])\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("VISUAL", shlex.join([sys.executable, str(script)]))


def test_an_invalid_edit_at_a_terminal_can_be_edited_again_and_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    alternating_editor(
        tmp_path,
        monkeypatch,
        '{"mcpServers": {"fetch": {"command": "uvx", "url": "https://h.example"}}}',
        '{"mcpServers": {"fetch": {"command": "uvx"}}}',
    )

    status, output = edit_at_a_terminal("y")

    assert status == 0
    assert (
        "edited document: mcpServers.fetch: has both command and url; a server is a local "
        "command or a URL, not both" in output
    )
    assert json.loads(agent("mcp", "export").stdout) == {
        "mcpServers": {"fetch": {"type": "stdio", "command": "uvx"}}
    }


def test_declining_to_edit_again_at_a_terminal_saves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent_home: Path
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    before = (agent_home / "mcp-servers.json").read_bytes()
    alternating_editor(tmp_path, monkeypatch, '{"mcpServers": {"x": {}}}', "{}")

    status, output = edit_at_a_terminal("n")

    assert status == 1
    assert output.rstrip().endswith("Nothing saved.")
    assert (agent_home / "mcp-servers.json").read_bytes() == before
    assert (tmp_path / "runs").read_text() == "x"


def test_an_editor_that_fails_leaves_the_store_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent_home: Path
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    before = (agent_home / "mcp-servers.json").read_bytes()
    scripted_editor(tmp_path, monkeypatch, writes='{"mcpServers": {}}', exit_code=3)

    result = agent("mcp", "edit")

    assert (result.returncode, result.stderr) == (
        1,
        f"agent: editor {sys.executable!r} exited with status 3; nothing saved\n",
    )
    assert (agent_home / "mcp-servers.json").read_bytes() == before


def test_a_missing_editor_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VISUAL", "/nonexistent/editor --wait")

    result = agent("mcp", "edit")

    assert (result.returncode, result.stderr) == (
        1,
        "agent: editor '/nonexistent/editor' not found; check VISUAL or EDITOR\n",
    )


def test_edit_refuses_to_overwrite_a_save_made_while_editing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    other = write_json(tmp_path / "other.json", {"mcpServers": {"fetch": {"command": "uvx"}}})
    script = tmp_path / "racing_editor.py"
    script.write_text(
        "import pathlib, subprocess, sys\n"
        "subprocess.run([sys.executable, '-m', 'agent', 'mcp', 'import', '--merge',"
        f" {str(other)!r}], check=True, capture_output=True)\n"
        "pathlib.Path(sys.argv[-1]).write_text('{\"mcpServers\": {}}')\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("VISUAL", shlex.join([sys.executable, str(script)]))

    result = agent("mcp", "edit")

    assert result.returncode == 1
    assert result.stderr.endswith(
        "the MCP configuration changed while you were editing; run the command again to edit "
        "the current version\n"
    )
    assert list(json.loads(agent("mcp", "export").stdout)["mcpServers"]) == [
        "filesystem",
        "github",
        "fetch",
    ]


# --- two people saving at once ------------------------------------------------------------


def test_concurrent_merge_imports_from_separate_processes_lose_no_update(tmp_path: Path) -> None:
    writers, rounds = 4, 3
    for round in range(rounds):
        documents = [
            write_json(
                tmp_path / f"w{w}-{round}.json",
                {"mcpServers": {f"w{w}-{round}": {"command": "server", "args": [str(w)]}}},
            )
            for w in range(writers)
        ]
        processes = [
            subprocess.Popen(
                [sys.executable, "-m", "agent", "mcp", "import", "--merge", str(document)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for document in documents
        ]
        results = [(p.wait(timeout=30), p.stderr.read() if p.stderr else b"") for p in processes]
        for process in processes:
            if process.stderr:
                process.stderr.close()
        assert results == [(0, b"")] * writers

    names = list(json.loads(agent("mcp", "export").stdout)["mcpServers"])
    assert sorted(names) == sorted(f"w{w}-{r}" for w in range(writers) for r in range(rounds))
