"""Which file an interpreter runs, read from its arguments as the interpreter reads them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.errors import ServerStartError
from agent.mcp.config.definitions import StdioDefinition
from agent.mcp.config.interpreter_scripts import Script, find_script
from agent.mcp.config.launch import StdioLaunch, expand_definition
from agent.mcp.config.variables import Expander


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("server.py", "mod.py", "pkg/__init__.py", "pkg/sub/__init__.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "pkg/sub/__main__.py").write_text("")
    (tmp_path / "ns/tool").mkdir(parents=True)
    (tmp_path / "ns/tool/__main__.py").write_text("")
    (tmp_path / "build").mkdir()
    (tmp_path / "build/index.js").write_text("")
    return tmp_path


@pytest.mark.parametrize(
    ("program", "args", "expected"),
    [
        ("python3", ["server.py"], "server.py"),
        ("python3.12", ["-u", "server.py"], "server.py"),
        ("python", ["-W", "ignore", "-X", "utf8", "server.py"], "server.py"),
        ("python", ["-Wignore", "-B", "server.py"], "server.py"),
        ("python", ["-m", "mod"], "mod.py"),
        ("python", ["-um", "mod"], "mod.py"),
        ("python", ["-m", "pkg.sub"], "pkg/sub/__main__.py"),
        ("python", ["-m", "ns.tool"], "ns/tool/__main__.py"),
        ("node", ["build/index.js"], "build/index.js"),
        ("node", ["build/index"], "build/index.js"),
        ("node", ["build"], "build/index.js"),
        ("node", ["--enable-source-maps", "-r", "server.py", "build/index.js"], "build/index.js"),
        ("node", ["--require=pre.js", "build/index.js"], "build/index.js"),
        ("bash", ["-e", "-o", "pipefail", "run.sh"], "run.sh"),
        ("ruby", ["-rjson", "x.rb"], "x.rb"),
        ("uv", ["run", "--with", "mcp", "server.py"], "server.py"),
        ("uv", ["run", "python", "-u", "server.py"], "server.py"),
        ("uv", ["run", "-m", "mod"], "mod.py"),
    ],
)
def test_the_script_is_the_file_the_interpreter_is_given(
    project: Path, program: str, args: list[str], expected: str
) -> None:
    found = find_script(f"/usr/bin/{program}", args, str(project))
    assert found is not None and found.path == str(project / expected)


@pytest.mark.parametrize(
    ("program", "args"),
    [
        ("npm", ["start"]),
        ("npm", ["--silent", "run", "serve"]),
        ("pnpm", ["test"]),
        ("bun", ["run", "start"]),
        ("bun", ["install"]),
    ],
)
def test_a_package_json_script_is_covered_by_the_project_package_json(
    project: Path, program: str, args: list[str]
) -> None:
    """`npm start` runs what package.json says: a pull that rewrites it asks again."""
    found = find_script(f"/usr/bin/{program}", args, str(project))
    assert found == Script(str(project / "package.json"), required=False)


def test_node_preloads_given_as_paths_are_recorded_with_the_script(project: Path) -> None:
    (project / "pre.js").write_text("", encoding="utf-8")
    args = ["-r", "./pre.js", "--import=file:///abs/l.mjs", "--require", "pkg", "x.js"]
    found = find_script("/usr/bin/node", args, str(project))
    assert found is not None and found.path == str(project / "x.js")
    assert found.preloads == (str(project / "pre.js"), "/abs/l.mjs")


@pytest.mark.parametrize(
    ("program", "args"),
    [
        ("python3", ["-c", "print(1)"]),
        ("python3", ["-"]),
        ("python3", ["--version"]),
        ("python3", ["--url", "server.py"]),  # python refuses an unknown option: nothing runs
        ("node", ["-e", "1", "build/index.js"]),
        ("node", ["--eval=1"]),
        ("bash", ["-c", "echo hi"]),
        ("bash", ["-s"]),
        ("deno", ["task", "start"]),
        ("deno", ["run", "https://example.com/x.ts"]),
        ("git", ["log"]),
    ],
)
def test_code_given_as_text_or_no_file_has_no_script(
    project: Path, program: str, args: list[str]
) -> None:
    assert find_script(f"/usr/bin/{program}", args, str(project)) is None


def test_a_module_python_finds_elsewhere_is_the_file_that_would_shadow_it(project: Path) -> None:
    found = find_script("/usr/bin/python3", ["-m", "mcp_server_fetch"], str(project))
    assert found == Script(str(project / "mcp_server_fetch.py"), required=False)


def test_an_interpreter_behind_env_or_a_link_is_known(project: Path) -> None:
    (project / "py").symlink_to("/usr/bin/python3")
    by_env = find_script("/usr/bin/env", ["-u", "X", "A=1", "python3", "server.py"], str(project))
    by_link = find_script(str(project / "py"), ["server.py"], str(project))
    assert by_env == by_link == Script(str(project / "server.py"))


def test_npx_runs_the_projects_bin_file_through_its_link(project: Path) -> None:
    bin_file = project / "node_modules/@acme/srv/dist/cli.js"
    bin_file.parent.mkdir(parents=True)
    bin_file.write_text("")
    (project / "node_modules/@acme/srv/package.json").write_text(
        json.dumps({"bin": {"acme-srv": "dist/cli.js"}})
    )
    (project / "node_modules/.bin").mkdir()
    (project / "node_modules/.bin/acme-srv").symlink_to("../@acme/srv/dist/cli.js")
    nested = project / "src"
    nested.mkdir()

    for args in (["-y", "acme-srv"], ["--yes", "acme-srv@1.2.0", "--flag"]):
        assert find_script("/usr/bin/npx", args, str(nested)) == Script(str(bin_file))
    by_package = find_script("/usr/bin/npx", ["-y", "@acme/srv@latest"], str(project))
    assert by_package == Script(str(bin_file))
    absent = find_script("/usr/bin/npx", ["-y", "other"], str(project))
    assert absent == Script(str(project / "node_modules/.bin/other"), required=False)


def test_a_missing_script_of_a_server_names_the_server_and_the_file(project: Path) -> None:
    definition = StdioDefinition(name="fx", command="/usr/bin/python3", args=("gone.py",))
    expander = Expander(environ={}, user_home=str(project), workspace_folder=str(project))

    with pytest.raises(ServerStartError) as raised:
        expand_definition(definition, expander)

    assert str(raised.value).startswith(
        f"MCP server 'fx': its script {project / 'gone.py'} is missing; restore it"
    )


def test_a_script_path_from_the_environment_is_never_shown(project: Path) -> None:
    definition = StdioDefinition(name="fx", command="/usr/bin/python3", args=("${SRV}/x.py",))
    secret = str(project / "tok-19fa")
    expander = Expander(environ={"SRV": secret}, user_home="/", workspace_folder=str(project))

    with pytest.raises(ServerStartError) as raised:
        expand_definition(definition, expander)

    assert secret not in str(raised.value)
    assert "its script (named by a value from the environment) is missing" in str(raised.value)


def test_the_spawn_checks_the_script_again_after_trust_judged_it(project: Path) -> None:
    definition = StdioDefinition(name="fx", command="/usr/bin/python3", args=("server.py",))
    expander = Expander(environ={}, user_home=str(project), workspace_folder=str(project))
    launch = expand_definition(definition, expander)
    assert isinstance(launch, StdioLaunch)
    assert launch.script == str(project / "server.py") and launch.changed_file() is None

    (project / "server.py").write_text("import os  # planted between the question and the start\n")

    assert launch.changed_file() == ("script", str(project / "server.py"))


def test_a_script_swapped_for_a_fifo_is_a_change_not_a_hang(project: Path) -> None:
    definition = StdioDefinition(name="fx", command="/usr/bin/python3", args=("server.py",))
    expander = Expander(environ={}, user_home=str(project), workspace_folder=str(project))
    launch = expand_definition(definition, expander)
    assert isinstance(launch, StdioLaunch)

    (project / "server.py").unlink()
    os.mkfifo(project / "server.py")

    assert launch.changed_file() == ("script", str(project / "server.py"))
    with pytest.raises(ServerStartError, match=r"server\.py is not a regular file"):
        expand_definition(definition, expander)


def test_a_package_module_records_the_package_inits_python_runs_first(project: Path) -> None:
    (project / "pkg/m.py").write_text("", encoding="utf-8")  # the fixture made pkg/sub
    found = find_script("/usr/bin/python3", ["-m", "pkg.sub"], str(project))
    inits = (str(project / "pkg/__init__.py"), str(project / "pkg/sub/__init__.py"))
    assert found == Script(str(project / "pkg/sub/__main__.py"), preloads=inits)
    found = find_script("/usr/bin/python3", ["-m", "pkg.m"], str(project))
    assert found == Script(str(project / "pkg/m.py"), preloads=inits[:1])


@pytest.mark.parametrize(
    "args",
    [["-S", "python3 server.py"], ["--split-string=python3 server.py"], ["-Spython3 -u server.py"]],
)
def test_env_split_string_runs_the_script_it_names(project: Path, args: list[str]) -> None:
    found = find_script("/usr/bin/env", args, str(project))
    assert found is not None and found.path == str(project / "server.py")


def test_a_compiled_package_init_python_would_load_first_is_recorded(project: Path) -> None:
    """Found by review: pkg/__init__.cpython-311-x86_64-linux-gnu.so beside __init__.py runs
    instead of it (extension modules come first), so its appearing must change the record."""
    before = find_script("/usr/bin/python3", ["-m", "pkg.sub"], str(project))
    compiled = project / "pkg" / "__init__.cpython-311-x86_64-linux-gnu.so"
    compiled.write_bytes(b"\x7fELF")
    after = find_script("/usr/bin/python3", ["-m", "pkg.sub"], str(project))
    assert before is not None and after is not None
    assert str(compiled) in after.preloads and before.preloads != after.preloads
