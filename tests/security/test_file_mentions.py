"""Attacks on `@path` file mentions: a hostile repository (links, names, FIFOs, huge files) and
paths a person (or text pasted into the prompt) may aim at secrets. Real files on disk, the
real reader (agent.chat.file_attachments) with agent's own folders from AGENT_HOME.

Each refusal sends nothing: a message is never sent with part of what it meant to attach.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agent.chat.file_attachments import FileAttachments, file_mentions, read_file_mentions
from agent.messages import ImagePart, TextPart

SECRET = "s3cret-value-never-sent"
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + bytes(range(256))  # judged by its first bytes


@pytest.fixture
def project(tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# Hello\nline two\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    (home / ".agents").mkdir()
    (home / ".agents" / "AGENTS.md").write_text(SECRET)
    monkeypatch.setenv("HOME", str(home))
    return folder


def mentioned(project: Path, text: str) -> FileAttachments:
    return file_mentions(text, project, None)


def sent_text(found: FileAttachments) -> str:
    return "\n".join(part.text for part in found.parts if isinstance(part, TextPart))


def refused_alone(project: Path, text: str, why: str) -> None:
    found = mentioned(project, f"{text} and @README.md")
    assert found.parts == [] and found.attached == []  # all or nothing
    (line,) = found.refused
    assert line.startswith(f"{text} was not attached: ") and why in line, line
    assert "\n" not in line


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("@../outside/secret.txt", "outside the project"),
        ("@/etc/passwd", "outside the project"),
        ("@~/.ssh/id_rsa", "outside the project"),
        ("@~/.agents/AGENTS.md", "outside the project"),
        ("@./../outside/secret.txt", "outside the project"),
    ],
)
def test_paths_out_of_the_project_are_refused_and_nothing_is_sent(
    project: Path, text: str, why: str
) -> None:
    refused_alone(project, text, why)


def test_a_link_in_the_project_to_a_file_or_folder_outside_is_refused(project: Path) -> None:
    outside = project.parent / "outside"
    (project / "notes.txt").symlink_to(outside / "secret.txt")
    (project / "docs").symlink_to(outside)
    refused_alone(project, "@notes.txt", "a link that leads outside the project")
    refused_alone(project, "@docs/secret.txt", "a link that leads outside the project")
    (project / "readme-link").symlink_to(project / "README.md")  # inside: fine
    assert mentioned(project, "@readme-link").attached == ["@readme-link (2 lines)"]


def test_credentials_version_control_and_agents_own_folder_are_refused(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".env").write_text(f"KEY={SECRET}")
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text(f"url = https://x:{SECRET}@example.com")
    (project / "deploy").mkdir()
    (project / "deploy" / "id_ed25519").write_text(SECRET)
    for folder in (".ssh", ".SSH"):  # the same folder where names ignore case (macOS)
        (project / folder).mkdir()
        (project / folder / "config").write_text(SECRET)
    refused_alone(project, "@.env", "credential file")
    refused_alone(project, "@deploy/id_ed25519", "credential file")
    refused_alone(project, "@.ssh/config", "credential file")
    refused_alone(project, "@.SSH/config", "credential file")
    refused_alone(project, "@.git/config", "version control")
    (project / "vcs").symlink_to(project / ".git")  # a link's name hides the folder
    refused_alone(project, "@vcs/config", "version control")
    # agent's own home inside the project (AGENT_HOME there, or agent started in ~)
    own = project / "agent-home"
    own.mkdir()
    (own / "settings.yaml").write_text(SECRET)
    monkeypatch.setenv("AGENT_HOME", str(own))
    refused_alone(project, "@agent-home/settings.yaml", "agent's own settings and data folder")


def test_the_project_in_the_home_keeps_the_keys_out(project: Path) -> None:
    home = Path(os.environ["HOME"])
    found = mentioned(home, "@~/.ssh/id_rsa")
    assert found.parts == [] and "credential file" in found.refused[0]


def test_a_fifo_is_refused_at_once_and_does_not_hang(project: Path) -> None:
    os.mkfifo(project / "pipe")  # nobody ever writes: a blocking open would wait forever
    started = time.monotonic()
    refused_alone(project, "@pipe", "not a regular file")
    assert time.monotonic() - started < 5


def test_a_huge_file_is_cut_quickly_and_says_so(project: Path) -> None:
    with open(project / "huge.log", "wb") as handle:
        handle.truncate(2 * 1024**3)  # 2 GB, sparse: reading it whole would take ages
        handle.seek(0)
        handle.write(b"a line of the log\n" * 20_000)  # text past the sniff and the byte cap
    started = time.process_time()  # CPU time: a busy machine stretches wall time, not this
    found = read_file_mentions("@huge.log", project, [], 50_000, [])
    assert time.process_time() - started < 5
    (part,) = found.parts
    assert isinstance(part, TextPart) and len(part.text) < 51_000
    assert (
        "[attachment cut: the first 50,000 characters of a file of 2,147,483,648 bytes" in part.text
    )
    assert "cut from" in found.attached[0]


def test_binary_is_refused_and_an_image_goes_as_an_image(project: Path) -> None:
    (project / "tool.bin").write_bytes(b"\x7fELF\x00\x00" + SECRET.encode())
    refused_alone(project, "@tool.bin", "binary file")
    (project / "shot.png").write_bytes(PNG_BYTES)
    found = mentioned(project, "see @shot.png")
    text, image = found.parts
    assert isinstance(image, ImagePart) and image.mime_type == "image/png"
    assert isinstance(text, TextPart) and 'file="shot.png"' in text.text


def test_a_file_name_with_escape_sequences_is_escaped_in_every_line(project: Path) -> None:
    name = "\x1b]0;pwned\x07\x1b[2Jnotes\u202e.txt"
    (project / name).write_text("hello\n")
    found = mentioned(project, f"@{name}")
    (line,) = found.attached
    assert "\x1b" not in line and "\x07" not in line and "\u202e" not in line
    assert "\\x1b" in line or "\\u001b" in line or "^[" in line, line
    (part,) = found.parts
    assert isinstance(part, TextPart)
    label = part.text.splitlines()[0]
    assert "\x1b" not in label and "\u202e" not in label and "\\u001b" in label


def test_a_file_named_with_a_line_break_cannot_forge_lines(project: Path) -> None:
    (project / "a\nb.txt").write_text("x")
    (project / "a").write_text("plain a\n")
    # The break ends the mention: only `@a` is a path here, and it is attached as itself.
    found = mentioned(project, "@a\nb.txt")
    assert found.attached == ["@a (1 line)"]


def test_a_server_name_and_a_path_are_never_confused(project: Path, agent_home: Path) -> None:
    (project / "rs:notes.txt").write_text("colon file\n")
    found = read_file_mentions("@rs:notes.txt @./rs:notes.txt", project, ["rs"], 1000, [])
    assert found.attached == ["@./rs:notes.txt (1 line)"]  # `@rs:` is the server's resource
    assert "colon file" in sent_text(found)


def test_words_that_are_not_paths_stay_text(project: Path) -> None:
    found = mentioned(project, "thanks @alice, mail me at bob@README.md")
    assert found == FileAttachments()


def test_a_missing_path_is_refused_not_sent_as_text(project: Path) -> None:
    (project / "src").mkdir()
    refused_alone(project, "@src/nope.py", "no such file in the project")
    refused_alone(project, "@./nope.py", "no such file in the project")
    # No folder `types` here: an npm package's name, not a path.
    assert mentioned(project, "install @types/node and @angular/core") == FileAttachments()


def test_a_sentence_s_punctuation_after_a_path_is_not_part_of_it(project: Path) -> None:
    found = mentioned(project, "what does @README.md, say?")
    assert found.attached == ["@README.md (2 lines)"]
    assert "# Hello\nline two" in sent_text(found)


def test_a_loop_of_links_is_refused_in_one_line(project: Path) -> None:
    (project / "loop").symlink_to(project / "loop")
    refused_alone(project, "@loop", "cannot be resolved")


@pytest.mark.parametrize("path", ["./a\x00b", "./" + "x" * 5000, "./" + "/".join(["d" * 200] * 30)])
def test_a_pasted_path_the_system_cannot_take_is_refused_not_a_crash(
    project: Path, path: str
) -> None:
    found = mentioned(project, f"@{path} and @README.md")
    assert found.parts == [] and len(found.refused) == 1
    (line,) = found.refused
    assert " was not attached: " in line and "\x00" not in line and len(line) < 300
