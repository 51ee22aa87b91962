"""Which credential file a hard link is another name of: real files and real links."""

from __future__ import annotations

import os
import time
from pathlib import Path

from agent.tools.credential_links import CredentialLinks


def make(path: Path, text: str = "secret\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_token_store_beside_a_big_sessions_folder_and_a_key_deep_in_ssh_are_found(
    tmp_path: Path,
) -> None:
    home, own = tmp_path / "home", tmp_path / "agent-home"
    for index in range(1500):  # more than one folder's walk looks at
        make(own / "sessions" / f"{index:04d}.jsonl")
    for index in range(3000):  # a big cache in a credential folder costs its bound only
        make(home / ".kube" / "cache" / "http" / f"{index:04d}")
    store = make(own / "oauth-tokens.json")
    deep = make(home / ".ssh" / "keys" / "work" / "id_rsa")
    project = tmp_path / "project"
    project.mkdir()
    for name, original in (("a.txt", store), ("b.txt", deep)):
        os.link(original, project / name)
    (project / "c.txt").write_text("mine\n")
    os.link(project / "c.txt", project / "d.txt")

    links = CredentialLinks([own], home)
    started = time.process_time()  # CPU time: a busy machine stretches wall time only
    assert links.linked_to(os.stat(project / "a.txt")) == str(store)
    took = time.process_time() - started
    assert links.linked_to(os.stat(project / "b.txt")) == "~/.ssh/keys/work/id_rsa"
    assert links.linked_to(os.stat(project / "d.txt")) is None
    assert took < 0.5, took  # found once: a few milliseconds on a quiet machine


def test_a_file_with_one_link_looks_nothing_up(tmp_path: Path) -> None:
    make(tmp_path / "home" / ".netrc")
    links = CredentialLinks([], tmp_path / "home")
    assert links.linked_to(os.stat(make(tmp_path / "notes.txt"))) is None
    assert links._known is None  # the home was never walked


def test_the_sandbox_hides_the_projects_other_names_of_a_credential_file(tmp_path: Path) -> None:
    """run_command's fence is made of paths: a hard link in the project to ~/.aws/credentials
    is one of them (bound over with an empty file), found because the credential file has more
    than one link; a project file linked only to another project file is not."""
    from agent.tools.sandbox import hidden_paths

    home, own, project = tmp_path / "home", tmp_path / "agent-home", tmp_path / "project"
    credentials = make(home / ".aws" / "credentials")
    store = make(own / "oauth-tokens.json")
    make(project / "docs" / "plain.txt")
    os.link(credentials, project / "docs" / "notes.txt")
    os.link(store, project / "data.json")
    os.link(project / "docs" / "plain.txt", project / "docs" / "copy.txt")

    hidden = hidden_paths(home, [own], project)

    assert project / "docs" / "notes.txt" in hidden
    assert project / "data.json" in hidden
    assert project / "docs" / "plain.txt" not in hidden
    assert project / "docs" / "copy.txt" not in hidden
