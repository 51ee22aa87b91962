"""Started in the home directory (no git root: the home is the project), a hostile model answer
asks the built-in file tools for the person's keys: `~/.ssh`, `~/.aws`, `.netrc`, the GitHub
CLI's token and the like. read_file needs no approval, so they would go to the model without
a question. The file tools refuse well-known credential files and folders wherever the
project is (in a project too, and through links), say which rule refused, and list_files
leaves them out. The real `agent -p` with the scripted model."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.security.inputs_helpers import agent_env, one_shot, tool_results

SECRET = "sk-CREDENTIAL-CANARY-77"
# Where tools keep keys and tokens, relative to the home directory.
CREDENTIALS = (
    ".ssh/id_ed25519",
    ".aws/credentials",
    ".gnupg/private-keys-v1.d/key.key",
    ".netrc",
    ".config/gh/hosts.yml",
    ".docker/config.json",
    ".kube/config",
    ".azure/msal_token_cache.json",
    ".config/gcloud/application_default_credentials.json",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".password-store/mail.gpg",
    ".env",
    "work/app/.env.local",
    "work/app/.aws/config",
    "work/app/deploy/.netrc",
)


def read(call_id: str, path: str) -> dict[str, object]:
    return {"id": call_id, "name": "read_file", "arguments": {"path": path}}


def plant_secrets(person: Path, relatives: Sequence[str]) -> None:
    """A file holding SECRET at each path, relative to the person's home."""
    for relative in relatives:
        (person / relative).parent.mkdir(parents=True, exist_ok=True)
        (person / relative).write_text(f"secret {SECRET}\n")


def read_each(relatives: Sequence[str]) -> list[dict[str, object]]:
    """One read_file call a path, with ids r0, r1, ... in order."""
    return [read(f"r{index}", relative) for index, relative in enumerate(relatives)]


def look_around(
    person: Path, tmp_path: Path, calls: list[dict[str, object]]
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`agent -p` started in the person's home, the model answering with `calls`."""
    turns = [{"tool_calls": calls}, {"text": "done"}]
    return one_shot(turns, "look around", agent_env(person, tmp_path / "ah"), person)


def assert_each_refused(results: dict[str, str], relatives: Sequence[str]) -> None:
    """The read_each calls were all refused as credential files."""
    for index, relative in enumerate(relatives):
        assert results[f"r{index}"].startswith(f"Error: {relative!r} is a credential file"), (
            relative,
            results[f"r{index}"],
        )


def test_started_in_the_home_directory_the_file_tools_refuse_credential_files_and_folders(
    tmp_path: Path,
) -> None:
    person = tmp_path / "person"
    plant_secrets(person, CREDENTIALS)
    (person / "todo.txt").write_text("buy milk\n")
    (person / "work" / "app" / "main.py").write_text("print('hi')\n")
    (person / "work" / "app" / ".env.example").write_text("API_KEY=\n")
    (person / "notes.txt").symlink_to(person / ".ssh" / "id_ed25519")
    (person / "keys").symlink_to(person / ".aws", target_is_directory=True)
    calls = read_each(CREDENTIALS)
    calls += [
        read("link", "notes.txt"),
        read("dirlink", "keys/credentials"),
        read("dir", ".ssh"),
        read("todo", "todo.txt"),
        read("example", "work/app/.env.example"),
        {"id": "all", "name": "list_files", "arguments": {"glob": "**/*", "limit": 2000}},
        {"id": "ssh", "name": "list_files", "arguments": {"glob": ".ssh/*"}},
    ]

    done, requests = look_around(person, tmp_path, calls)

    assert done.returncode == 0, done.stderr
    results = tool_results(requests[1])
    assert_each_refused(results, CREDENTIALS)
    assert results["r0"] == (
        "Error: '.ssh/id_ed25519' is a credential file or folder (.ssh), which the file tools "
        "never read: keys and tokens must not reach the model; the person can share what is "
        "needed"
    )
    assert results["link"].startswith("Error: 'notes.txt' is a credential file or folder (.ssh)")
    assert results["dirlink"].startswith("Error: 'keys/credentials' is a credential file")
    assert results["dir"].startswith("Error: '.ssh' is a credential file or folder (.ssh)")
    assert results["todo"] == "buy milk\n"
    assert results["example"] == "API_KEY=\n"
    listed = results["all"].splitlines()
    assert "todo.txt" in listed
    assert "work/app/main.py" in listed
    assert "work/app/.env.example" in listed
    for relative in CREDENTIALS:
        assert relative not in listed
    assert "notes.txt" not in listed  # a link to a key is left out like the key
    assert "[credential files and folders are not listed]" in listed
    assert results["ssh"].startswith("no files match '.ssh/*'")
    assert SECRET not in str(requests)


# On a case-insensitive file system (macOS, Windows by default) `.SSH/id_ed25519` opens
# ~/.ssh/id_ed25519; git's credential store also lives at ~/.config/git/credentials.
OTHER_SPELLINGS = (
    ".SSH/id_ed25519",
    ".Aws/credentials",
    ".NETRC",
    ".Env",
    "app/.ENV.local",
    ".Config/GH/hosts.yml",
    ".config/git/credentials",
)


def test_credential_names_in_another_case_and_gits_xdg_store_are_refused_and_not_listed(
    tmp_path: Path,
) -> None:
    person = tmp_path / "person"
    plant_secrets(person, OTHER_SPELLINGS)
    (person / ".config" / "git" / "config").write_text("[user]\n\tname = Me\n")
    calls = read_each(OTHER_SPELLINGS)
    calls += [
        read("gitconfig", ".config/git/config"),
        {"id": "all", "name": "list_files", "arguments": {"glob": "**/*", "limit": 2000}},
    ]

    done, requests = look_around(person, tmp_path, calls)

    assert done.returncode == 0, done.stderr
    results = tool_results(requests[1])
    assert_each_refused(results, OTHER_SPELLINGS)
    assert results["gitconfig"] == "[user]\n\tname = Me\n"
    listed = results["all"].splitlines()
    assert ".config/git/config" in listed
    for relative in OTHER_SPELLINGS:
        assert relative not in listed
    assert SECRET not in str(requests)
