"""Why a launch written relative to the project asks in each project, said as what it reads
there: the words a person checks at a glance in the one trust question of a new project."""

from __future__ import annotations

from pathlib import Path

from agent.mcp.trust.project_folder import beyond_the_folder, why_here


def test_a_package_runner_says_it_looks_in_the_projects_node_modules(tmp_path: Path) -> None:
    project = str(tmp_path)
    assert why_here("npx", ("-y", "@modelcontextprotocol/server-everything"), project, project) == (
        "npx looks in this project's node_modules first"
    )
    assert why_here("/usr/bin/pnpm", ("dlx", "pkg"), project, project) == (
        "pnpm looks in this project's node_modules first"
    )


def test_python_m_a_relative_program_and_a_relative_script_each_say_what_they_read(
    tmp_path: Path,
) -> None:
    project = str(tmp_path)
    (tmp_path / "server.py").write_text("")
    assert why_here("python3", ("-m", "mcp_server_time"), project, project) == (
        "python3 -m looks for its module in this project's folder first"
    )
    assert why_here("./bin/serve", (), project, project) == (
        "it runs ./bin/serve from this project's folder"
    )
    assert why_here("/usr/bin/python3", ("server.py",), project, project) == (
        "it reads server.py from this project's folder"
    )
    assert why_here("/usr/bin/python3", ("/opt/server.py",), project, project) == (
        "it starts in this project's folder and may read what is there"
    )
    assert why_here("/usr/bin/tool", (), "/opt/tool", project) == (
        "its launch names this project's folder"
    )


def test_only_the_move_to_another_folder_goes_without_saying() -> None:
    changes = (
        "its working directory is this project's folder",
        "argument server.py resolves to another file",
        "environment: TOKEN added",
    )
    assert beyond_the_folder(changes) == [
        "argument server.py resolves to another file",
        "environment: TOKEN added",
    ]
