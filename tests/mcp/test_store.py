"""mcp-servers.json: fingerprints, reconciliation, refusing what it cannot read, concurrency."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from agent.errors import ConcurrentEditError, DocumentError, Problem, StoreError, UnknownServerError
from agent.mcp.config.definitions import HttpDefinition, StdioDefinition, fingerprint
from agent.mcp.store import CachedTool, McpConfig, McpStore, SaveReport, ServerState

GITHUB = StdioDefinition(
    name="github",
    command="npx",
    args=("-y", "@modelcontextprotocol/server-github"),
    env={"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
)
FETCH = StdioDefinition(name="fetch", command="uvx", args=("mcp-server-fetch",))
CONTEXT7 = HttpDefinition(
    name="context7",
    url="https://mcp.context7.com/mcp",
    headers={"Authorization": "Bearer ${env:CONTEXT7_API_KEY}"},
)
SEARCH_TOOL = CachedTool(
    name="search",
    description="Search the docs",
    input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
    annotations={"readOnlyHint": True},
)


def _discovered(store: McpStore, definition: StdioDefinition | HttpDefinition) -> ServerState:
    """Give a saved server the state a discovery + trust would leave, as later issues do."""
    state = ServerState(
        enabled=True,
        enabled_tools=("search",),
        cached_tools=(SEARCH_TOOL,),
    )
    store.update_state(definition.name, fingerprint(definition), lambda _old: state)
    return state


# --- fingerprints ---------------------------------------------------------------------


def test_any_change_to_what_a_stdio_server_runs_changes_its_fingerprint() -> None:
    base = StdioDefinition(
        name="db", command="uvx", args=("mcp-server-sqlite",), cwd="/srv", env={"MODE": "ro"}
    )
    variants = [
        base,
        replace(base, command="/usr/local/bin/uvx"),
        replace(base, args=("mcp-server-sqlite", "--db-path", "x.db")),
        replace(base, args=()),
        replace(base, args=("mcp-server-sqlite ",)),
        replace(base, cwd="/srv/other"),
        replace(base, cwd=None),
        replace(base, env={"MODE": "rw"}),
        replace(base, env={"MOD": "ro"}),
        replace(base, env={"MODE": "ro", "EXTRA": ""}),
        replace(base, env={}),
        replace(base, name="db2"),
    ]

    assert len({fingerprint(v) for v in variants}) == len(variants)


def test_any_change_to_where_an_http_server_connects_changes_its_fingerprint() -> None:
    base = HttpDefinition(name="docs", url="https://h.example/mcp", headers={"X-Key": "k"})
    variants = [
        base,
        replace(base, url="https://h.example/mcp/"),
        replace(base, url="http://h.example/mcp"),
        replace(base, transport="sse"),
        replace(base, headers={"X-Key": "k2"}),
        replace(base, headers={"X-Api-Key": "k"}),
        replace(base, headers={}),
    ]

    assert len({fingerprint(v) for v in variants}) == len(variants)


def test_equal_definitions_have_equal_sha256_fingerprints() -> None:
    one = StdioDefinition(name="a", command="x", env={"A": "1", "B": "2"})
    same = StdioDefinition(name="a", command="x", env={"B": "2", "A": "1"})

    assert fingerprint(one) == fingerprint(same)
    assert len(fingerprint(one)) == 64
    assert int(fingerprint(one), 16) >= 0


# --- saving, loading, the file itself ---------------------------------------------------


def test_a_missing_file_is_an_empty_configuration_and_loading_creates_nothing(
    agent_home: Path,
) -> None:
    store = McpStore()

    assert store.load() == McpConfig()
    assert store.path == agent_home / "mcp-servers.json"
    assert not store.path.exists()


def test_a_saved_configuration_is_written_as_the_versioned_store_format() -> None:
    store = McpStore()

    store.replace_definitions([GITHUB, CONTEXT7])

    assert json.loads(store.path.read_text(encoding="utf-8")) == {
        "version": 6,
        "definitions": [
            {
                "name": "github",
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-github"],
                "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
            },
            {
                "name": "context7",
                "type": "streamable-http",
                "url": "https://mcp.context7.com/mcp",
                "headers": {"Authorization": "Bearer ${env:CONTEXT7_API_KEY}"},
            },
        ],
        "runtime": {
            name: {
                "enabled": False,
                "enabled_tools": [],
                "cached_tools": None,
                "trusted_launches": [],
                "tools_fresh_until": None,
                "new_tools": [],
                "defer": "auto",
                "declined_launches": [],
            }
            for name in ("github", "context7")
        },
    }


def test_the_store_file_is_readable_only_by_its_owner() -> None:
    store = McpStore()

    store.replace_definitions([GITHUB])
    store.merge_definitions([FETCH])

    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_a_saved_configuration_loads_back_equal_with_its_state() -> None:
    store = McpStore()
    store.replace_definitions([GITHUB, FETCH, CONTEXT7])
    state = _discovered(store, FETCH)

    assert McpStore().load() == McpConfig(
        (GITHUB, FETCH, CONTEXT7),
        {"github": ServerState(), "fetch": state, "context7": ServerState()},
    )


def test_saving_a_document_reports_what_it_added() -> None:
    store = McpStore()

    report = store.replace_definitions([GITHUB, FETCH])

    assert report == SaveReport(
        path=store.path,
        config=McpConfig((GITHUB, FETCH), {"github": ServerState(), "fetch": ServerState()}),
        added=("github", "fetch"),
    )


# --- reconciliation -------------------------------------------------------------------


def test_saving_reconciles_state_by_name_and_fingerprint() -> None:
    store = McpStore()
    docs = HttpDefinition(name="docs", url="https://docs.example/mcp")
    store.replace_definitions([GITHUB, FETCH, CONTEXT7, docs])
    github_state = _discovered(store, GITHUB)
    _discovered(store, FETCH)
    context7_state = _discovered(store, CONTEXT7)
    _discovered(store, docs)
    changed_fetch = replace(FETCH, args=("mcp-server-fetch", "--ignore-robots-txt"))
    new = StdioDefinition(
        name="memory", command="npx", args=("@modelcontextprotocol/server-memory",)
    )

    report = store.replace_definitions([CONTEXT7, changed_fetch, new, GITHUB])

    expected = McpConfig(
        (CONTEXT7, changed_fetch, new, GITHUB),
        {
            "context7": context7_state,
            "fetch": ServerState(),
            "memory": ServerState(),
            "github": github_state,
        },
    )
    assert report == SaveReport(
        path=store.path,
        config=expected,
        added=("memory",),
        changed=("fetch",),
        unchanged=("context7", "github"),
        removed=("docs",),
    )
    assert store.load() == expected


def test_a_changed_env_value_loses_state_and_cached_tools() -> None:
    store = McpStore()
    store.replace_definitions([GITHUB])
    _discovered(store, GITHUB)
    rotated = replace(GITHUB, env={"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_literal"})

    store.replace_definitions([rotated])

    assert store.load().state("github") == ServerState()


def test_a_version_2_store_is_read_with_its_definition_trust_dropped(tmp_path: Path) -> None:
    store = McpStore(tmp_path / "mcp-servers.json")
    legacy_state = {**_V2_STATE, "enabled": True, "trusted_fingerprint": "0" * 64}
    store.path.write_text(
        json.dumps(
            {"version": 2, "definitions": [_GOOD_DEFINITION], "runtime": {"a": legacy_state}}
        ),
        encoding="utf-8",
    )

    config = store.load()

    # Trust of a definition says nothing about what it runs here: each server asks once more.
    assert config.state("a") == ServerState(enabled=True)
    store.update_state("a", fingerprint(config.find("a")), lambda s: replace(s, enabled=False))
    assert json.loads(store.path.read_text(encoding="utf-8"))["version"] == 6


def test_a_version_3_store_is_read_as_never_fresh_with_nothing_new_and_written_as_6(
    tmp_path: Path,
) -> None:
    store = McpStore(tmp_path / "mcp-servers.json")
    state = {**_GOOD_STATE, "enabled": True, "enabled_tools": ["t"]}
    store.path.write_text(
        json.dumps({"version": 3, "definitions": [_GOOD_DEFINITION], "runtime": {"a": state}}),
        encoding="utf-8",
    )

    config = store.load()

    assert config.state("a") == ServerState(enabled=True, enabled_tools=("t",))
    store.update_state("a", fingerprint(config.find("a")), lambda s: replace(s, enabled=False))
    saved = json.loads(store.path.read_text(encoding="utf-8"))
    assert saved["version"] == 6
    assert saved["runtime"]["a"] == {
        **_GOOD_STATE, "enabled_tools": ["t"], "tools_fresh_until": None, "new_tools": [],
        "defer": "auto", "declined_launches": [],
    }  # fmt: skip


def test_a_version_4_store_is_read_with_its_tools_deferred_automatically(tmp_path: Path) -> None:
    store = McpStore(tmp_path / "mcp-servers.json")
    state = {**_GOOD_STATE, "enabled": True, "tools_fresh_until": None, "new_tools": []}
    store.path.write_text(
        json.dumps({"version": 4, "definitions": [_GOOD_DEFINITION], "runtime": {"a": state}}),
        encoding="utf-8",
    )

    assert store.load().state("a") == ServerState(enabled=True, defer="auto")


def test_a_server_deferral_mode_is_saved_and_read_back(tmp_path: Path) -> None:
    store = McpStore(tmp_path / "mcp-servers.json")
    store.replace_definitions([FETCH])

    store.update_state("fetch", fingerprint(FETCH), lambda s: replace(s, defer="on"))

    assert McpStore(store.path).load().state("fetch").defer == "on"
    saved = json.loads(store.path.read_text(encoding="utf-8"))
    assert saved["runtime"]["fetch"]["defer"] == "on"


def test_a_state_update_that_changes_nothing_leaves_the_file_alone() -> None:
    # Every server start rediscovers its tools; the same answer must not cost two fsyncs.
    store = McpStore()
    store.replace_definitions([FETCH])
    store.update_state("fetch", fingerprint(FETCH), lambda s: replace(s, enabled=True))
    before = store.path.stat()

    config = store.update_state("fetch", fingerprint(FETCH), lambda s: replace(s, enabled=True))

    after = store.path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert config.state("fetch").enabled is True


def test_state_learned_from_a_replaced_definition_is_refused() -> None:
    store = McpStore()
    store.replace_definitions([FETCH])
    old_fingerprint = fingerprint(FETCH)
    store.replace_definitions([replace(FETCH, command="pipx")])

    with pytest.raises(ConcurrentEditError) as caught:
        store.update_state("fetch", old_fingerprint, lambda s: replace(s, enabled=True))

    assert str(caught.value) == (
        "MCP server 'fetch' was changed by another command meanwhile; try again"
    )
    assert store.load().state("fetch") == ServerState()


# --- merge and remove -----------------------------------------------------------------


def test_merge_replaces_named_servers_in_place_and_appends_new_ones() -> None:
    store = McpStore()
    store.replace_definitions([GITHUB, FETCH])
    github_state = _discovered(store, GITHUB)
    _discovered(store, FETCH)
    changed_fetch = replace(FETCH, args=("mcp-server-fetch==2025.1",))

    report = store.merge_definitions([CONTEXT7, changed_fetch])

    assert report == SaveReport(
        path=store.path,
        config=McpConfig(
            (GITHUB, changed_fetch, CONTEXT7),
            {"github": github_state, "fetch": ServerState(), "context7": ServerState()},
        ),
        added=("context7",),
        changed=("fetch",),
        unchanged=("github",),
    )


def test_merging_a_name_that_collides_with_a_saved_one_is_refused() -> None:
    store = McpStore()
    store.replace_definitions([replace(CONTEXT7, name="Context 7")])
    before = store.path.read_bytes()

    with pytest.raises(DocumentError) as caught:
        store.merge_definitions([replace(CONTEXT7, name="context-7")])

    assert caught.value.problems == (
        Problem(
            "mcpServers", "'Context 7' and 'context-7' both normalise to 'context-7'; rename one"
        ),
    )
    assert store.path.read_bytes() == before


def test_remove_deletes_the_server_and_its_state() -> None:
    store = McpStore()
    store.replace_definitions([GITHUB, FETCH])
    _discovered(store, GITHUB)

    report = store.remove("github")

    assert report.removed == ("github",)
    assert store.load() == McpConfig((FETCH,), {"fetch": ServerState()})


def test_remove_finds_a_server_by_its_normalized_name() -> None:
    store = McpStore()
    store.replace_definitions([replace(CONTEXT7, name="Context 7"), FETCH])

    store.remove("context-7")

    assert store.load().definitions == (FETCH,)


def test_removing_an_unknown_server_names_the_configured_ones_and_changes_nothing() -> None:
    store = McpStore()
    store.replace_definitions([GITHUB, FETCH])
    before = store.path.read_bytes()

    with pytest.raises(UnknownServerError) as caught:
        store.remove("gitlab")

    assert str(caught.value) == "no MCP server named 'gitlab' (configured: github, fetch)"
    assert store.path.read_bytes() == before


def test_removing_from_an_empty_store_says_none_are_configured() -> None:
    with pytest.raises(UnknownServerError) as caught:
        McpStore().remove("gitlab")

    assert str(caught.value) == "no MCP server named 'gitlab' (configured: none are configured)"


def test_replace_with_an_outdated_expectation_is_refused() -> None:
    store = McpStore()
    store.replace_definitions([GITHUB])
    seen = store.load().definitions
    store.merge_definitions([FETCH])  # another process saved meanwhile
    before = store.path.read_bytes()

    with pytest.raises(ConcurrentEditError):
        store.replace_definitions([CONTEXT7], expected=seen)

    assert store.path.read_bytes() == before


# --- a store we cannot understand is never overwritten ----------------------------------

_ADVICE = "fix it by hand or move it away; agent will not overwrite it"
_GOOD_DEFINITION = {"name": "a", "type": "stdio", "command": "x"}
_GOOD_STATE = {
    "enabled": False,
    "enabled_tools": [],
    "cached_tools": None,
    "trusted_launches": [],
}
_V5_STATE = {**_GOOD_STATE, "tools_fresh_until": None, "new_tools": [], "defer": "auto"}
_V2_STATE = {**{k: v for k, v in _GOOD_STATE.items() if k != "trusted_launches"}}
_V2_STATE["trusted_fingerprint"] = None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"version": 2, "definitions": [', "not valid JSON ("),
        (b"\xff\xfe not utf-8", "not valid JSON ("),
        (b"", "not valid JSON ("),
        (b"[]", f"expected a JSON object; {_ADVICE}"),
        (
            b'{"version": 1, "servers": {}}',
            f"version 1 is not supported (this agent reads versions 2, 3, 4, 5 and 6); {_ADVICE}",
        ),
        (
            b'{"definitions": [], "runtime": {}}',
            "version null is not supported (this agent reads versions 2, 3, 4, 5 and 6); "
            + _ADVICE,
        ),
        (
            b'{"version": "2", "definitions": [], "runtime": {}}',
            f'version "2" is not supported (this agent reads versions 2, 3, 4, 5 and 6); {_ADVICE}',
        ),
        (
            json.dumps({"version": 2, "definitions": {}, "runtime": [], "extra": 1}).encode(),
            "malformed: extra: unknown key; definitions: expected a list; "
            f"runtime: expected an object; {_ADVICE}",
        ),
        (
            json.dumps(
                {
                    "version": 2,
                    "definitions": [
                        {"name": "a", "type": "stdio", "command": "x", "url": "https://h"},
                        {"type": "stdio", "command": "y"},
                        {"name": "b", "command": "y", "disabled": True},
                    ],
                    "runtime": {},
                }
            ).encode(),
            "malformed: definitions[0]: has both command and url; a server is a local command "
            "or a URL, not both; definitions[1]: expected an object with a string name; "
            "definitions[2]: definitions[2].disabled: ignored (it does not change what runs); "
            f"{_ADVICE}",
        ),
        (
            json.dumps(
                {
                    "version": 3,
                    "definitions": [_GOOD_DEFINITION],
                    "runtime": {
                        "a": {**_GOOD_STATE, "enabled": "yes", "trusted_launches": [{"cwd": 1}]},
                        "ghost": _GOOD_STATE,
                    },
                }
            ).encode(),
            "malformed: runtime.a.enabled: expected true or false; "
            "runtime.a.trusted_launches[0]: expected project, command, executable, cwd, args "
            "and env; runtime.ghost: state for a server that has no "
            f"definition; {_ADVICE}",
        ),
        (
            json.dumps(
                {
                    "version": 3,
                    "definitions": [_GOOD_DEFINITION],
                    "runtime": {"a": {**_GOOD_STATE, "cached_tools": [{"name": "t"}]}},
                }
            ).encode(),
            "malformed: runtime.a.cached_tools[0]: expected name, description, input_schema, "
            f"annotations; {_ADVICE}",
        ),
        (
            json.dumps(
                {
                    "version": 5,
                    "definitions": [_GOOD_DEFINITION],
                    "runtime": {"a": {**_V5_STATE, "defer": "sometimes"}},
                }
            ).encode(),
            f"malformed: runtime.a.defer: expected one of auto, on, off; {_ADVICE}",
        ),
        (
            json.dumps(
                {"version": 3, "definitions": [_GOOD_DEFINITION], "runtime": {"a": {}}}
            ).encode(),
            "malformed: runtime.a: expected exactly the keys ['cached_tools', 'enabled', "
            f"'enabled_tools', 'trusted_launches']; {_ADVICE}",
        ),
    ],
    ids=[
        "truncated",
        "not-utf8",
        "empty",
        "array",
        "old-version",
        "no-version",
        "string-version",
        "wrong-shapes",
        "bad-definitions",
        "bad-runtime",
        "bad-cached-tool",
        "bad-defer-mode",
        "missing-state-keys",
    ],
)
def test_a_store_that_cannot_be_understood_refuses_to_load_and_is_never_overwritten(
    content: bytes, message: str
) -> None:
    store = McpStore()
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(content)

    with pytest.raises(StoreError) as caught:
        store.load()
    with pytest.raises(StoreError):
        store.replace_definitions([GITHUB])
    with pytest.raises(StoreError):
        store.merge_definitions([GITHUB])
    with pytest.raises(StoreError):
        store.remove("a")

    assert str(caught.value).startswith(f"{store.path}: {message}")
    assert str(caught.value).endswith(_ADVICE)
    assert store.path.read_bytes() == content


# --- two writers in separate processes ----------------------------------------------------

_WRITER = """
import sys
from agent.mcp.config.definitions import StdioDefinition
from agent.mcp.store import McpStore

writer, rounds = sys.argv[1], int(sys.argv[2])
store = McpStore()
for round in range(rounds):
    store.merge_definitions(
        [StdioDefinition(name=f"{writer}-{round}", command="server", args=(writer, str(round)))]
    )
"""


def test_concurrent_writers_in_separate_processes_lose_no_update() -> None:
    writers, rounds = 4, 15
    McpStore().replace_definitions([GITHUB])

    processes = [
        subprocess.Popen([sys.executable, "-c", _WRITER, f"w{index}", str(rounds)])
        for index in range(writers)
    ]
    codes = [process.wait(timeout=60) for process in processes]

    config = McpStore().load()
    assert codes == [0] * writers
    assert sorted(d.name for d in config.definitions) == sorted(
        ["github"] + [f"w{w}-{r}" for w in range(writers) for r in range(rounds)]
    )
    # Each writer's own servers stay in the order it saved them.
    for w in range(writers):
        mine = [d.name for d in config.definitions if d.name.startswith(f"w{w}-")]
        assert mine == [f"w{w}-{r}" for r in range(rounds)]
    assert set(config.runtime) == {d.name for d in config.definitions}
    leftovers = sorted(p.name for p in McpStore().path.parent.iterdir())
    # The backup is the one file a save leaves beside the store (no temporary file stays).
    assert leftovers == ["mcp-servers.backup.json", "mcp-servers.json", "mcp-servers.json.lock"]
    assert os.access(McpStore().path, os.R_OK)


def test_a_loaded_store_sees_saves_made_through_another_instance(tmp_path: Path) -> None:
    path = tmp_path / "mcp-servers.json"
    reader, writer = McpStore(path), McpStore(path)
    assert reader.load() == McpConfig()
    writer.replace_definitions([StdioDefinition(name="one", command="a")])
    assert [d.name for d in reader.load().definitions] == ["one"]
    writer.merge_definitions([StdioDefinition(name="two", command="b")])
    assert [d.name for d in reader.load().definitions] == ["one", "two"]


def test_a_version_5_store_is_read_with_no_launch_declined(tmp_path: Path) -> None:
    store = McpStore(tmp_path / "mcp-servers.json")
    state = {**_V5_STATE, "enabled": True}
    store.path.write_text(
        json.dumps({"version": 5, "definitions": [_GOOD_DEFINITION], "runtime": {"a": state}}),
        encoding="utf-8",
    )

    assert store.load().state("a") == ServerState(enabled=True)
