"""Attack: a file in the project that is a hard link to a credential file elsewhere. The name
is innocent (`docs/notes.txt`) and a token file holds no private key for the content rule to
see, so read_file (no approval), `@path`, list_files and search_files handed the model
~/.aws/credentials, ~/.netrc, ~/.config/gh/hosts.yml or agent's own OAuth token store, and
edit_file's "not found" answered guesses at them. A hostile repository cannot ship a hard link
to the person's files, but a person's own tooling makes them (`cp -al`, backup tools, a
dotfiles manager that links instead of copying), and a shared machine's other user can link a
file they can read. Such a file (st_nlink > 1 with the (st_dev, st_ino) of a known credential
file of the home or of agent's folders) is refused by name of what it is, never by its content.
The real `agent -p` with the scripted model; real hard links (the same file system as the
fake home)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.security.inputs_helpers import agent_env, one_shot, tool_results

SECRET = "aws_secret_access_key = HARDLINK-CANARY-6021"
REASON = (
    "which the file tools never {verb}: keys and tokens must not reach the model; the person "
    "can share what is needed"
)
# project path -> (the credential file's path under home or agent's home, its content)
LINKS = {
    "docs/notes.txt": ("home/.aws/credentials", f"[default]\n{SECRET}-aws\n"),
    "notes/netrc.txt": ("home/.netrc", f"machine api.example.com password {SECRET}-netrc\n"),
    "config/hosts.yml": ("home/.config/gh/hosts.yml", f"github.com:\n  oauth_token: {SECRET}-gh\n"),
    "data/tokens.json": ("agent-home/oauth-tokens.json", json.dumps({"token": f"{SECRET}-oauth"})),
    "docs/deploy.txt": ("home/.ssh/id_ed25519", f"not a pem at all {SECRET}-ssh\n"),
    "docs/key.txt": ("home/deploy.pem", f"an EC2 key pair saved in the home {SECRET}-pem\n"),
    # What the sandbox hides beside them: other agents' logins, shell histories.
    "notes/claude.json": ("home/.claude/.credentials.json", json.dumps({"token": SECRET})),
    "notes/history.txt": ("home/.bash_history", f"export GITHUB_TOKEN={SECRET}-history\n"),
    # The project's own secrets by name, under another name in the project.
    "docs/env.txt": ("project/.env", f"API_TOKEN={SECRET}-env\n"),
    "web/npm.txt": ("project/web/.npmrc", f"//registry.npmjs.org/:_authToken={SECRET}-npm\n"),
}
SHOWN = {
    "docs/notes.txt": "~/.aws/credentials",
    "notes/netrc.txt": "~/.netrc",
    "config/hosts.yml": "~/.config/gh/hosts.yml",
    "docs/deploy.txt": "~/.ssh/id_ed25519",
    "docs/key.txt": "~/deploy.pem",
    "notes/claude.json": "~/.claude/.credentials.json",
    "notes/history.txt": "~/.bash_history",
    "docs/env.txt": ".env",
    "web/npm.txt": "web/.npmrc",
}


def linked_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    for relative, (credential, text) in LINKS.items():
        original = tmp_path / credential
        original.parent.mkdir(parents=True, exist_ok=True)
        original.write_text(text)
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        os.link(original, project / relative)
    # Two project files linked to each other are still the project's: readable.
    (project / "docs" / "a.txt").write_text("plain notes, linked twice\n")
    os.link(project / "docs" / "a.txt", project / "docs" / "b.txt")
    return project


def refusal(relative: str, tmp_path: Path, verb: str = "read") -> str:
    shown = SHOWN.get(relative) or str(tmp_path / LINKS[relative][0])
    return f"Error: {relative!r} is a credential file (a hard link to {shown}), " + REASON.format(
        verb=verb
    )


def test_hard_links_to_the_homes_and_agents_credentials_give_the_model_nothing(
    tmp_path: Path, agent_home: Path
) -> None:
    project = linked_project(tmp_path)
    calls: list[dict[str, object]] = [
        {"id": f"read{index}", "name": "read_file", "arguments": {"path": path}}
        for index, path in enumerate(LINKS)
    ]
    calls += [
        {"id": "plain", "name": "read_file", "arguments": {"path": "docs/b.txt"}},
        {"id": "list", "name": "list_files", "arguments": {}},
        {"id": "search", "name": "search_files",
         "arguments": {"pattern": "secret|password|token|linked"}},
        {"id": "probe", "name": "edit_file",
         "arguments": {"path": "docs/notes.txt", "old_text": "HARDLINK", "new_text": "x"}},
        {"id": "overwrite", "name": "write_file",
         "arguments": {"path": "notes/netrc.txt", "content": "pwned\n"}},
    ]  # fmt: skip

    env = agent_env(tmp_path / "home", agent_home)
    done, requests = one_shot([{"tool_calls": calls}, {"text": "done"}], "go", env, project)

    assert done.returncode == 0, done.stderr
    results = tool_results(requests[1])
    for index, path in enumerate(LINKS):
        assert results[f"read{index}"] == refusal(path, tmp_path), results[f"read{index}"]
    assert results["plain"] == "plain notes, linked twice\n"
    listed = results["list"].splitlines()
    assert "docs/a.txt" in listed and "docs/b.txt" in listed
    assert not set(LINKS) & set(listed), listed
    assert "[credential files and folders are not listed]" in listed
    searched = results["search"].splitlines()
    assert "docs/a.txt:1: plain notes, linked twice" in searched
    assert "[credential files and folders are not listed]" in searched
    assert results["probe"] == refusal("docs/notes.txt", tmp_path, "change")
    assert results["overwrite"] == refusal("notes/netrc.txt", tmp_path, "change")
    assert (tmp_path / "home" / ".netrc").read_text().startswith("machine api.example.com")
    assert "HARDLINK-CANARY" not in json.dumps(requests)


def test_a_mention_of_a_hard_link_to_a_credential_sends_nothing(
    tmp_path: Path, agent_home: Path
) -> None:
    project = linked_project(tmp_path)
    env = agent_env(tmp_path / "home", agent_home)
    for relative in ("docs/notes.txt", "config/hosts.yml", "data/tokens.json"):
        done, requests = one_shot([{"text": "ok"}], f"what is @{relative}", env, project)
        assert done.returncode == 1 and requests == [], relative
        shown = SHOWN.get(relative) or str(tmp_path / LINKS[relative][0])
        assert (
            f"@{relative} was not attached: it is a credential file (a hard link to {shown}): "
            "keys stay private"
        ) in done.stderr, done.stderr
        assert "CANARY" not in done.stdout + done.stderr
    done, requests = one_shot([{"text": "ok"}], "what is @docs/b.txt", env, project)
    assert done.returncode == 0, done.stderr
    assert "plain notes, linked twice" in json.dumps(requests[0]["body"]["messages"][-1])


SKILL = "---\nname: deploy\ndescription: Deploys the app.\n---\nRead scripts/notes.txt.\n"


def test_a_skills_file_hard_linked_to_a_credential_is_not_read(
    tmp_path: Path, agent_home: Path
) -> None:
    """read_skill_resource needs no approval either: a skill's `scripts/notes.txt` that is
    ~/.aws/credentials under another name is refused as read_file refuses it."""
    home = tmp_path / "home"
    credentials = home / ".aws" / "credentials"
    credentials.parent.mkdir(parents=True)
    credentials.write_text(f"[default]\n{SECRET}-skill\n")
    skill = home / ".agents" / "skills" / "deploy"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    os.link(credentials, skill / "scripts" / "notes.txt")
    project = tmp_path / "project"
    project.mkdir()
    call = {
        "id": "notes",
        "name": "read_skill_resource",
        "arguments": {"name": "deploy", "path": "scripts/notes.txt"},
    }

    done, requests = one_shot(
        [{"tool_calls": [call]}, {"text": "ok"}], "go", agent_env(home, agent_home), project
    )

    assert done.returncode == 0, done.stderr
    assert tool_results(requests[1])["notes"] == (
        "Error: 'scripts/notes.txt' is a credential file (a hard link to ~/.aws/credentials), "
        + REASON.format(verb="read")
    )
    assert "HARDLINK-CANARY" not in json.dumps(requests)
