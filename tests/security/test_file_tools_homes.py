"""The built-in file tools never read or list agent's own folders (settings, trust records,
sessions, logs), even when the project directory holds them or links into them.

Attack: a hostile model answer asks read_file / list_files for the config or data home that
sits inside the project (AGENT_HOME in the project, or agent started in the home directory).
"""

from __future__ import annotations

from pathlib import Path

from tests.security.inputs_helpers import agent_env, one_shot, tool_results

SECRET = "sk-HOME-SECRET-123"


def read(call_id: str, path: str) -> dict[str, object]:
    return {"id": call_id, "name": "read_file", "arguments": {"path": path}}


def test_read_file_and_list_files_refuse_an_agent_home_inside_the_project_and_links_to_it(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    home = project / ".agent-home"
    home.mkdir(parents=True)
    (home / "secret.txt").write_text(f"token {SECRET}\n")
    (project / "notes.txt").symlink_to(home / "secret.txt")
    (project / "config-link").symlink_to(home, target_is_directory=True)
    (project / "README.md").write_text("# hello\n")
    turns = [
        {
            "tool_calls": [
                read("c1", ".agent-home/secret.txt"),
                read("c2", "notes.txt"),
                read("c3", "config-link/secret.txt"),
                {"id": "c4", "name": "list_files", "arguments": {"glob": "**/*"}},
                {"id": "c5", "name": "list_files", "arguments": {"glob": ".agent-home/*"}},
            ]
        },
        {"text": "done"},
    ]
    (tmp_path / "person").mkdir()
    env = agent_env(tmp_path / "person", home)

    done, requests = one_shot(turns, "read the secrets", env, project)

    assert done.returncode == 0, done.stderr
    results = tool_results(requests[1])
    refusal = "is inside agent's own settings and data folder, which the file tools never read"
    assert results["c1"] == f"Error: '.agent-home/secret.txt' {refusal}"
    assert results["c2"] == f"Error: 'notes.txt' {refusal}"
    assert results["c3"] == f"Error: 'config-link/secret.txt' {refusal}"
    assert results["c4"].splitlines() == [
        "README.md",
        "[agent's own settings and data folder .agent-home is not listed]",
    ]
    assert results["c5"].startswith("no files match '.agent-home/*'")
    assert SECRET not in str(requests)


def test_started_in_the_home_directory_the_file_tools_skip_the_platform_folders_of_agent(
    tmp_path: Path,
) -> None:
    person = tmp_path / "person"
    config = person / ".config" / "agent"
    config.mkdir(parents=True)
    (config / "secret.txt").write_text(SECRET)
    cache = person / ".cache" / "agent"
    cache.mkdir(parents=True)
    (cache / "cached.txt").write_text(SECRET)
    data = person / ".local" / "share" / "agent"
    data.mkdir(parents=True)
    (data / "prompt-history").write_text(SECRET)
    (person / "todo.txt").write_text("buy milk\n")
    turns = [
        {
            "tool_calls": [
                read("c1", ".config/agent/secret.txt"),
                read("c2", ".cache/agent/cached.txt"),
                read("c3", ".local/share/agent/prompt-history"),
                read("c4", "todo.txt"),
                {"id": "c5", "name": "list_files", "arguments": {}},
            ]
        },
        {"text": "done"},
    ]

    done, requests = one_shot(turns, "look around", agent_env(person, None), person)

    assert done.returncode == 0, done.stderr
    results = tool_results(requests[1])
    refusal = "is inside agent's own settings and data folder, which the file tools never read"
    assert results["c1"] == f"Error: '.config/agent/secret.txt' {refusal}"
    assert results["c2"] == f"Error: '.cache/agent/cached.txt' {refusal}"
    assert results["c3"] == f"Error: '.local/share/agent/prompt-history' {refusal}"
    assert results["c4"] == "buy milk\n"
    listed = results["c5"].splitlines()
    assert "todo.txt" in listed
    assert not [line for line in listed if line.startswith((".config/agent", ".local/share/agent"))]
    assert SECRET not in str(requests)
