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

from tests import deadlines

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
        timeout=deadlines.PROCESS,
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
        "New and changed servers are disabled: run agent mcp enable filesystem github (one "
        "question trusts the local ones).\n"
        "The previous configuration is kept: agent mcp restore puts it back.\n"
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


def test_import_adds_and_replaces_the_named_servers_and_keeps_the_others(
    tmp_path: Path,
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    one = write_json(tmp_path / "one.json", {"mcpServers": {"fetch": {"command": "uvx"}}})

    result = agent("mcp", "import", str(one))

    assert result.stdout.splitlines()[1:3] == ["  added: fetch", "  unchanged: filesystem, github"]
    assert "removed" not in result.stdout
    assert list(json.loads(agent("mcp", "export").stdout)["mcpServers"]) == [
        "filesystem",
        "github",
        "fetch",
    ]


def test_import_replace_without_a_terminal_removes_nothing_unless_yes(
    tmp_path: Path, agent_home: Path
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    before = (agent_home / "mcp-servers.json").read_bytes()
    one = write_json(tmp_path / "one.json", {"mcpServers": {"fetch": {"command": "uvx"}}})

    refused = agent("mcp", "import", "--replace", str(one))
    unchanged = (agent_home / "mcp-servers.json").read_bytes()
    replaced = agent("mcp", "import", "--replace", "--yes", str(one))

    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr == (
        "agent: --replace would remove the 2 MCP servers the document does not name: "
        "filesystem, github, and there is no terminal to ask; nothing saved. Add --yes to "
        "remove them without asking, or leave out --replace to keep them\n"
    )
    assert unchanged == before
    assert replaced.stdout.splitlines()[1:3] == ["  added: fetch", "  removed: filesystem, github"]
    assert json.loads(agent("mcp", "export").stdout) == {
        "mcpServers": {"fetch": {"type": "stdio", "command": "uvx"}}
    }


@pytest.mark.parametrize("answer", ["n", "y"])
def test_import_replace_at_a_terminal_asks_listing_what_goes(
    answer: str, tmp_path: Path, agent_home: Path
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    before = (agent_home / "mcp-servers.json").read_bytes()
    one = write_json(tmp_path / "one.json", {"mcpServers": {"github": {"command": "gh-mcp"}}})
    child = pexpect.spawn(
        sys.executable, ["-m", "agent", "mcp", "import", "--replace", str(one)],
        encoding="utf-8", timeout=90,
    )  # fmt: skip
    child.expect_exact("Remove them? [y/N] ")
    shown = child.before or ""
    child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()

    assert shown.strip() == (
        "--replace removes the 1 MCP server the document does not name: filesystem (agent mcp "
        "restore brings them back)."
    )
    names = list(json.loads(agent("mcp", "export").stdout)["mcpServers"])
    if answer == "n":
        assert (child.exitstatus, names) == (1, ["filesystem", "github"])
        assert "Nothing saved." in (child.before or "")
        assert (agent_home / "mcp-servers.json").read_bytes() == before
    else:
        assert (child.exitstatus, names) == (0, ["github"])


def test_restore_puts_back_what_a_replace_removed_and_a_second_restore_undoes_it(
    tmp_path: Path, agent_home: Path
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    store = agent_home / "mcp-servers.json"
    first = store.read_bytes()
    one = write_json(tmp_path / "one.json", {"mcpServers": {"fetch": {"command": "uvx"}}})
    agent("mcp", "import", "--replace", "--yes", str(one))
    second = store.read_bytes()

    restored = agent("mcp", "restore")
    after_restore = store.read_bytes()
    undone = agent("mcp", "restore")

    backup = agent_home / "mcp-servers.backup.json"
    assert (restored.returncode, restored.stderr) == (0, "")
    assert restored.stdout == (
        f"Restored 2 MCP servers from {backup}\n"
        "  back: filesystem, github\n"
        "  gone: fetch\n"
        "The configuration it replaced is the backup now: agent mcp restore again undoes this.\n"
    )
    assert after_restore == first
    assert undone.stdout.splitlines()[1:3] == ["  back: fetch", "  gone: filesystem, github"]
    assert store.read_bytes() == second


def test_restore_keeps_the_present_state_of_a_server_both_configurations_have(
    tmp_path: Path, agent_home: Path
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    agent("mcp", "remove", "github")
    store = agent_home / "mcp-servers.json"
    saved = json.loads(store.read_text())
    saved["runtime"]["filesystem"]["enabled"] = True  # what enabling it since changed
    store.write_text(json.dumps(saved))

    result = agent("mcp", "restore")

    assert result.stdout.splitlines()[1] == "  back: github"
    runtime = json.loads(store.read_text())["runtime"]
    assert (runtime["filesystem"]["enabled"], runtime["github"]["enabled"]) == (True, False)


def test_restore_without_a_backup_says_when_one_is_kept(agent_home: Path) -> None:
    result = agent("mcp", "restore")

    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        "agent: there is no backup of the MCP configuration to restore: one is kept at every "
        "change (import, add, remove, edit)\n",
    )


def test_a_first_import_restored_leaves_no_server(agent_home: Path) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))

    result = agent("mcp", "restore")

    assert result.stdout.splitlines()[:2] == [
        f"Restored 0 MCP servers from {agent_home / 'mcp-servers.backup.json'}",
        "  gone: filesystem, github",
    ]
    assert json.loads(agent("mcp", "export").stdout) == {"mcpServers": {}}


def test_a_save_that_changes_nothing_keeps_the_backup_it_had(agent_home: Path) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    agent("mcp", "add", "fetch", "--", "uvx", "mcp-server-fetch")
    backup = (agent_home / "mcp-servers.backup.json").read_bytes()

    again = agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))

    assert again.stdout == "No changes; nothing saved.\n"
    assert (agent_home / "mcp-servers.backup.json").read_bytes() == backup


# --- add ----------------------------------------------------------------------------------


def test_add_saves_a_local_server_with_its_arguments_after_the_double_dash(
    agent_home: Path,
) -> None:
    result = agent(
        "mcp", "add", "fs", "-e", "ROOT=${HOME}", "--", "npx", "-y", "@m/server-fs", "--ro"
    )

    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        f"Added fs to {agent_home / 'mcp-servers.json'}: npx -y @m/server-fs --ro  (env: ROOT)\n"
        "New and changed servers are disabled: run agent mcp enable fs (it asks first whether "
        "to trust what it runs).\n"
        "The previous configuration is kept: agent mcp restore puts it back.\n"
    )
    assert json.loads(agent("mcp", "export").stdout)["mcpServers"]["fs"] == {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "@m/server-fs", "--ro"],
        "env": {"ROOT": "${HOME}"},
    }


def test_add_saves_a_remote_server_with_its_headers(agent_home: Path) -> None:
    result = agent(
        "mcp", "add", "docs", "https://docs.example/mcp", "-H", "Authorization: Bearer ${TOKEN}",
        "--header", "X-Team:platform",
    )  # fmt: skip

    assert (result.returncode, result.stdout.splitlines()[0]) == (
        0,
        f"Added docs to {agent_home / 'mcp-servers.json'}: https://docs.example/mcp  "
        "(headers: Authorization, X-Team)",
    )
    assert json.loads(agent("mcp", "export").stdout)["mcpServers"]["docs"] == {
        "type": "streamable-http",
        "url": "https://docs.example/mcp",
        "headers": {"Authorization": "Bearer ${TOKEN}", "X-Team": "platform"},
    }


def test_add_refuses_a_name_that_exists_unless_replace(agent_home: Path) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    before = (agent_home / "mcp-servers.json").read_bytes()

    refused = agent("mcp", "add", "GitHub", "--", "gh-mcp")
    unchanged = (agent_home / "mcp-servers.json").read_bytes()
    replaced = agent("mcp", "add", "github", "--replace", "https://api.githubcopilot.com/mcp/")

    assert (refused.returncode, refused.stdout, refused.stderr) == (
        1,
        "",
        "agent: an MCP server named 'github' is configured already; nothing saved. Add "
        "--replace to replace it (its trust and tools start over), or choose another name\n",
    )
    assert unchanged == before
    assert replaced.stdout.startswith("Replaced github in ")
    assert json.loads(agent("mcp", "export").stdout)["mcpServers"]["github"] == {
        "type": "streamable-http",
        "url": "https://api.githubcopilot.com/mcp/",
    }


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["bad\nname", "--", "uvx"], "the name holds control, invisible or line-break "
         "characters (\\n); rename the server using printable characters only"),
        (["x", "ftp://h.example/mcp"], "the URL: must start with http:// or https://"),
        (["x", "https://u:p@h.example/"], "the URL: embedded credentials are not allowed; send "
         "them in headers instead"),
        (["x", "--", ""], "the command: must not be empty"),
        (["x", "-e", "A=1", "-e", "A=2", "--", "uvx"], "--env A is given twice"),
    ],
    ids=["name", "scheme", "credentials", "empty-command", "env-twice"],
)  # fmt: skip
def test_bad_add_input_is_a_clear_error_and_saves_nothing(
    args: list[str], error: str, agent_home: Path
) -> None:
    result = agent("mcp", "add", *args)

    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        f"agent: {error}; nothing saved\n",
    )
    assert not (agent_home / "mcp-servers.json").exists()


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

    assert result.stdout.splitlines()[-2] == (
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


def test_import_of_one_new_local_server_names_it_in_the_next_step(agent_home: Path) -> None:
    result = agent("mcp", "import", "-", stdin='{"mcpServers": {"Local DB": {"command": "uvx"}}}')

    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        f"Saved 1 MCP server to {agent_home / 'mcp-servers.json'}\n"
        "  added: Local DB\n"
        "New and changed servers are disabled: run agent mcp enable 'Local DB' (it asks first "
        "whether to trust what it runs).\n"
        "The previous configuration is kept: agent mcp restore puts it back.\n"
    )


def test_import_of_remote_servers_only_needs_no_trust_step(agent_home: Path) -> None:
    one = agent("mcp", "import", "-", stdin='{"servers": {"docs": {"url": "https://d.example"}}}')
    two = agent(
        "mcp",
        "import",
        "--merge",
        "-",
        stdin='{"servers": {"a": {"url": "https://a.example"}, "b": {"url": "https://b.example"}}}',
    )

    assert one.stdout.splitlines()[-2] == (
        "New and changed servers are disabled: run agent mcp enable docs."
    )
    assert two.stdout.splitlines()[-2] == (
        "New and changed servers are disabled: run agent mcp enable a b."
    )


def test_importing_the_saved_configuration_again_saves_nothing(
    tmp_path: Path, agent_home: Path
) -> None:
    source = write_json(tmp_path / "claude_desktop_config.json", CLAUDE_DESKTOP)
    agent("mcp", "import", str(source))
    store = agent_home / "mcp-servers.json"
    before = (store.read_bytes(), store.stat().st_ino, store.stat().st_mtime_ns)

    replaced = agent("mcp", "import", str(source))
    merged = agent("mcp", "import", "--merge", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    canonical = agent("mcp", "import", "-", stdin=CANONICAL_CLAUDE_DESKTOP)

    for result in (replaced, merged, canonical):
        assert (result.returncode, result.stdout, result.stderr) == (
            0,
            "No changes; nothing saved.\n",
            "",
        )
    assert (store.read_bytes(), store.stat().st_ino, store.stat().st_mtime_ns) == before


def test_merging_a_subset_of_the_saved_servers_unchanged_saves_nothing(agent_home: Path) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    subset = {"mcpServers": {"github": CLAUDE_DESKTOP["mcpServers"]["github"]}}

    result = agent("mcp", "import", "--merge", "-", stdin=json.dumps(subset))

    assert (result.returncode, result.stdout) == (0, "No changes; nothing saved.\n")


def test_importing_an_empty_document_says_it_is_empty(tmp_path: Path, agent_home: Path) -> None:
    blank = tmp_path / "blank.json"
    blank.write_text("  \n\t\n", encoding="utf-8")

    from_dev_null = agent("mcp", "import", "-")
    from_blank_file = agent("mcp", "import", str(blank))

    assert (from_dev_null.returncode, from_dev_null.stderr) == (
        1,
        "agent: <stdin>: empty document\n",
    )
    assert (from_blank_file.returncode, from_blank_file.stderr) == (
        1,
        f"agent: {blank}: empty document\n",
    )
    assert not (agent_home / "mcp-servers.json").exists()


def test_importing_servers_without_a_wrapper_shows_how_to_wrap_them() -> None:
    result = agent(
        "mcp",
        "import",
        "-",
        stdin='{"github": {"command": "npx", "args": ["-y", "server-github"]}}',
    )

    assert (result.returncode, result.stderr) == (
        1,
        'agent: <stdin>: looks like servers without a wrapper; write {"mcpServers": {"github": '
        "{...}}}\n",
    )


def test_importing_a_fragment_pasted_from_a_readme_suggests_wrapping_it() -> None:
    result = agent("mcp", "import", "-", stdin='"github": {"command": "npx"}\n')

    assert (result.returncode, result.stderr) == (
        1,
        "agent: <stdin>: not valid JSON at line 1 column 9: Extra data; if this is a fragment, "
        'wrap it in {"mcpServers": { ... }}\n',
    )


def test_importing_a_misspelt_field_names_it_with_a_suggestion() -> None:
    result = agent(
        "mcp",
        "import",
        "-",
        stdin='{"mcpServers": {"filesystem": {"comand": "npx", "args": ["-y", "server-fs"]}}}',
    )

    assert (result.returncode, result.stderr) == (
        1,
        "agent: <stdin>: mcpServers.filesystem.comand: unknown field (did you mean command?)\n",
    )


def test_importing_a_whole_command_line_in_command_saves_it_with_a_notice() -> None:
    result = agent("mcp", "import", "-", stdin='{"mcpServers": {"x": {"command": "npx -y foo"}}}')

    assert (result.returncode, result.stderr) == (
        0,
        "note: mcpServers.x.command: contains spaces; if these are arguments, put them in args\n",
    )
    assert json.loads(agent("mcp", "export").stdout) == {
        "mcpServers": {"x": {"type": "stdio", "command": "npx -y foo"}}
    }


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
        "NAME TRANSPORT ENABLED TRUSTED TOOLS AUTH TARGET",
        "github stdio no no not discovered n/a npx -y @modelcontextprotocol/server-github (env: "
        "GITHUB_PERSONAL_ACCESS_TOKEN, LOG)",
        "remote streamable-http no n/a not discovered header https://mcp.example.com/mcp?api_key=***"
        "&v=*** (headers: Authorization)",
        "legacy sse no n/a not discovered none http://localhost:8000/sse",
    ]
    enabled_column = lines[0].index("ENABLED")
    assert [line[enabled_column:].split()[0] for line in lines] == ["ENABLED", "no", "no", "no"]


def test_list_puts_the_wide_target_column_last_so_narrow_terminals_wrap_only_it() -> None:
    agent(
        "mcp",
        "import",
        "-",
        stdin=json.dumps(
            {"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-filesystem", "/a"]}}}
        ),
    )

    result = agent("mcp", "list")

    assert result.stdout == (
        "NAME  TRANSPORT  ENABLED  TRUSTED  TOOLS           TARGET\n"
        "fs    stdio      no       no       not discovered  npx -y server-filesystem /a\n"
    )
    assert SECRET not in result.stdout + result.stderr


def test_list_quotes_arguments_and_escapes_control_characters() -> None:
    agent(
        "mcp",
        "import",
        "-",
        stdin=json.dumps(
            {
                "mcpServers": {
                    # A name with control characters is refused (tests/security).
                    "evil": {"command": "my server", "args": ["a b", "\u001b[2J"]}
                }
            }
        ),
    )

    result = agent("mcp", "list")

    assert "\x1b" not in result.stdout
    assert " ".join(result.stdout.splitlines()[1].split()) == (
        "evil stdio no no not discovered 'my server' 'a b' '\\x1b[2J'"
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
        f"Removed github from {agent_home / 'mcp-servers.json'}\n"
        "The previous configuration is kept: agent mcp restore puts it back.\n",
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
        "agent: no MCP server named 'gitlab' (configured: filesystem, github); nothing removed\n",
    )
    assert (agent_home / "mcp-servers.json").read_bytes() == before


def test_remove_deletes_several_servers_at_once_keeping_the_others_state(
    tmp_path: Path, agent_home: Path
) -> None:
    three = {"mcpServers": {**CLAUDE_DESKTOP["mcpServers"], "fetch": {"command": "uvx"}}}
    agent("mcp", "import", str(write_json(tmp_path / "three.json", three)))
    store = agent_home / "mcp-servers.json"
    fetch_state = json.loads(store.read_text())["runtime"]["fetch"]

    result = agent("mcp", "remove", "github", "filesystem")

    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f"Removed filesystem, github from {store}\n"
        "The previous configuration is kept: agent mcp restore puts it back.\n",
        "",
    )
    saved = json.loads(store.read_text())
    assert [d["name"] for d in saved["definitions"]] == ["fetch"]
    assert saved["runtime"] == {"fetch": fetch_state}


def test_removing_several_servers_with_an_unknown_name_removes_none_and_names_each_unknown(
    agent_home: Path,
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    before = (agent_home / "mcp-servers.json").read_bytes()

    result = agent("mcp", "remove", "github", "gitlab", "fetch")

    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        "agent: no MCP servers named 'gitlab', 'fetch' (configured: filesystem, github); "
        "nothing removed\n",
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
        "New and changed servers are disabled: run agent mcp enable filesystem (it asks first "
        "whether to trust what it runs).\n"
        "The previous configuration is kept: agent mcp restore puts it back.\n"
    )
    assert seen.read_text() == CANONICAL_CLAUDE_DESKTOP
    assert agent("mcp", "export").stdout == edited


def test_an_edit_that_changes_only_layout_saves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent_home: Path
) -> None:
    agent("mcp", "import", "-", stdin=json.dumps(CLAUDE_DESKTOP))
    store = agent_home / "mcp-servers.json"
    before = (store.read_bytes(), store.stat().st_ino)
    scripted_editor(tmp_path, monkeypatch, writes=json.dumps(CLAUDE_DESKTOP))

    result = agent("mcp", "edit")

    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "No changes; nothing saved.\n",
        "",
    )
    assert (store.read_bytes(), store.stat().st_ino) == before


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
        sys.executable, ["-m", "agent", "mcp", "edit"], encoding="utf-8", timeout=deadlines.EXPECT
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
        results = [
            (p.wait(deadlines.PROCESS), p.stderr.read() if p.stderr else b"") for p in processes
        ]
        for process in processes:
            if process.stderr:
                process.stderr.close()
        assert results == [(0, b"")] * writers

    names = list(json.loads(agent("mcp", "export").stdout)["mcpServers"])
    assert sorted(names) == sorted(f"w{w}-{r}" for w in range(writers) for r in range(rounds))


# --- help -------------------------------------------------------------------------------

NAME_HELP = "NAME a server name as shown by agent mcp list"


@pytest.mark.parametrize(
    ("action", "description", "takes_a_name"),
    [
        (
            "list",
            "List configured servers: name, transport, enabled, trusted, tools and the command "
            "line or URL. Env and header values are never printed, only their names.",
            False,
        ),
        (
            "export",
            "Print the configuration as a canonical mcpServers document (JSON), ready to import "
            "elsewhere or keep under version control.",
            False,
        ),
        (
            "edit",
            "Edit the configuration as an mcpServers document in $VISUAL or $EDITOR. It is saved "
            "only when valid; on errors you may edit again, and quitting saves nothing.",
            False,
        ),
        (
            "remove",
            "Delete servers and their saved state from the configuration. If any name is "
            "unknown, nothing is removed. The previous configuration is kept for agent mcp "
            "restore.",
            True,
        ),
        (
            "enable",
            "Offer the servers' selected tools to the model, discovering their tools first. "
            "Local servers not trusted here are listed in one question, each with exactly what "
            "it runs; a yes trusts and starts them. Trust is asked only on a terminal, never "
            "read from a pipe. If any name is unknown, nothing changes.",
            True,
        ),
        (
            "disable",
            "Stop offering the servers' tools to the model. Their tools, selection and trust are "
            "kept. If any name is unknown, nothing changes.",
            True,
        ),
        (
            "trust",
            "Review a local server's exact command line and trust it. On yes, the server starts "
            "and its tools are discovered. Changing the definition withdraws the trust.",
            True,
        ),
        (
            "restart",
            "Start a server afresh and refresh its tools. Use it after a server went offline or "
            "changed its tools.",
            True,
        ),
        (
            "inspect",
            "Start a server and show its version, protocol, capabilities, instructions, tools, "
            "resources and prompts. A local server that is not trusted asks before it starts.",
            True,
        ),
        (
            "call",
            "Call one tool by hand and print its result. Without --args, on a terminal, asks for "
            "each argument; the arguments are checked against the tool's schema first.",
            True,
        ),
    ],
)
def test_each_mcp_action_help_describes_it_and_its_server_name(
    action: str, description: str, takes_a_name: bool
) -> None:
    result = agent("mcp", action, "--help")

    paragraphs = result.stdout.split("\n\n")
    assert result.returncode == 0
    assert paragraphs[0].startswith(f"usage: agent mcp {action} [-h]")
    assert " ".join(paragraphs[1].split()) == description
    assert (NAME_HELP in " ".join(result.stdout.split())) == takes_a_name


def test_remove_help_shows_that_it_takes_several_names() -> None:
    result = agent("mcp", "remove", "--help")

    assert result.stdout.splitlines()[0] == "usage: agent mcp remove [-h] NAME [NAME ...]"
