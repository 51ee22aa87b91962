"""Attack review of search_files, the wider credential rules and run_command's shown venvs,
from outside: each test is one attack that worked before its fix, or one that holds and
would fail if the rule it leans on went away.

- agent started in ~/.config (or ~/.docker, ~/.cargo): `gh/hosts.yml` is ~/.config/gh, a
  credential folder, though no part of the project-relative path names it;
- a private key in the ssh.com (RFC 4716) format PuTTYgen exports, `---- BEGIN SSH2 ...`;
- a key's BEGIN line with CRLF, leading and trailing spaces, inside a notebook's JSON, cut by
  the 1 MiB scan pieces, past 16 MiB of text after the shown part; in UTF-16 or gzip'd (binary);
- a hard link to a key under an innocent name: a name cannot tell, the content rule does.

The key markers are built at run time: a file of this repository holding one would itself be
refused to anyone searching here.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import time
from pathlib import Path

import anyio
import pytest

from agent.messages import ToolResult
from agent.tools.builtin import ListFiles
from agent.tools.containment import inside_project
from agent.tools.credential_files import SCAN_CHUNK_BYTES, private_key_in
from agent.tools.file_search import SearchFiles
from agent.tools.reading import HoldsPrivateKeyError, UnreadableFileError, read_lines
from tests import deadlines

CANARY = "KEYBODY-REVIEW-TWO-8812"
SECRET = "gho_REVIEW-TWO-TOKEN-CANARY-5150"
DASHES = "-" * 5


def pem(label: str, begin_end: tuple[str, str] = ("", "")) -> str:
    before, after = begin_end
    body = [f"{CANARY}{index:03d}{'Q' * 48}" for index in range(20)]
    begin = f"{before}{DASHES}BEGIN {label}{DASHES}{after}"
    return "\n".join([begin, *body, f"{DASHES}END {label}{DASHES}"]) + "\n"


def ssh_com_key() -> str:
    """The RFC 4716 private key PuTTYgen's "Export ssh.com key" writes (and ssh.com's Tectia)."""
    marker = "-" * 4
    body = [f"{CANARY}{index:03d}{'Q' * 40}" for index in range(12)]
    return (
        "\n".join(
            [
                f"{marker} BEGIN SSH2 ENCRYPTED PRIVATE KEY {marker}",
                'Comment: "rsa-key-20260101"',
                *body,
                f"{marker} END SSH2 ENCRYPTED PRIVATE KEY {marker}",
            ]
        )
        + "\n"
    )


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def search(project: Path, **arguments: object) -> ToolResult:
    return anyio.run(SearchFiles(project.resolve()).run, dict(arguments))


@pytest.mark.parametrize(
    ("project_at", "relative"),
    [
        (".config", "gh/hosts.yml"),
        (".config", "git/credentials"),
        (".config/rclone", "rclone.conf"),
        (".docker", "config.json"),
        (".cargo", "credentials.toml"),
        (".terraform.d", "credentials.tfrc.json"),
    ],
)
def test_agent_started_in_a_folder_of_the_home_gets_no_line_of_its_credentials(
    tmp_path: Path, project_at: str, relative: str
) -> None:
    """Before: search_files judged a path by its project-relative parts only, so started in
    ~/.config it searched gh/hosts.yml and showed the GitHub token (read_file refused it)."""
    project = tmp_path / "home" / project_at
    write(project, relative, f"oauth_token: {SECRET}\n")
    write(project, "nvim/init.lua", "-- oauth_token is not here\n")
    result = search(project, pattern="oauth_token")
    assert SECRET not in result.text
    assert "nvim/init.lua:1: -- oauth_token is not here" in result.text
    assert "[credential files and folders are not listed]" in result.text.splitlines()
    # list_files, whose walk search_files shares, does not name it either.
    listed = anyio.run(ListFiles(project.resolve()).run, {}).text.splitlines()
    assert relative not in listed and "nvim/init.lua" in listed
    assert "[credential files and folders are not listed]" in listed


def test_a_key_in_the_ssh_com_format_is_refused_by_content(tmp_path: Path) -> None:
    """Before: only five-dash PEM lines counted, so PuTTYgen's ssh.com export, saved as
    `notes.txt`, was read and searched whole."""
    path = write(tmp_path, "notes.txt", ssh_com_key())
    assert private_key_in(path.read_bytes())
    with pytest.raises(HoldsPrivateKeyError):
        read_lines(path)
    result = search(tmp_path, pattern="Q{10}")
    assert CANARY not in result.text
    assert "[1 file holding a private key not searched]" in result.text.splitlines()
    # Its public half, in the same format, stays readable.
    public = ssh_com_key().replace("ENCRYPTED PRIVATE", "PUBLIC")
    assert not private_key_in(public.encode())


KEY_VARIANTS = {
    "crlf.txt": pem("OPENSSH PRIVATE KEY").replace("\n", "\r\n"),
    "indented.yaml": "tls:\n  key: |\n"
    + "".join("    " + line + "\n" for line in pem("RSA PRIVATE KEY").splitlines()),
    "trailing.txt": pem("OPENSSH PRIVATE KEY", ("", "   \t")),
    "notebook.ipynb": json.dumps(
        {"cells": [{"cell_type": "code", "source": [f"KEY = {pem('EC PRIVATE KEY')!r}\n"]}]}
    ),
}


@pytest.mark.parametrize("name", sorted(KEY_VARIANTS))
def test_a_key_written_in_another_layout_is_still_refused(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name, KEY_VARIANTS[name])
    with pytest.raises(HoldsPrivateKeyError):
        read_lines(path, offset=3)
    result = search(tmp_path, pattern="Q{10}")
    assert CANARY not in result.text
    assert "[1 file holding a private key not searched]" in result.text.splitlines()


def test_utf16_and_gzipped_keys_are_binary_to_every_reader(tmp_path: Path) -> None:
    """PowerShell 5's `>` writes UTF-16: no BEGIN line in bytes, but a NUL in every ASCII
    character, so the file is binary and nothing of it is read."""
    (tmp_path / "key16.txt").write_bytes(pem("RSA PRIVATE KEY").encode("utf-16"))
    (tmp_path / "key.txt.gz").write_bytes(gzip.compress(pem("RSA PRIVATE KEY").encode()))
    for name in ("key16.txt", "key.txt.gz"):
        with pytest.raises(UnreadableFileError, match="binary"):
            read_lines(tmp_path / name)
    result = search(tmp_path, pattern="Q")
    assert "Q" * 10 not in result.text and "Q\x00Q" not in result.text
    assert "[2 binary files not searched]" in result.text.splitlines()


def test_a_begin_line_cut_by_a_scan_piece_and_a_key_far_past_the_shown_part(
    tmp_path: Path,
) -> None:
    """read_file scans in 1 MiB pieces: a BEGIN line cut in two by a piece's end is found; a
    key 17 MiB into a log is found when reading from an offset just before it."""
    key = pem("RSA PRIVATE KEY")
    filler = "x" * 99 + "\n"
    cut = SCAN_CHUNK_BYTES - 12  # the BEGIN line straddles the first piece's end
    head = filler * (cut // len(filler)) + "y" * (cut % len(filler))
    path = write(tmp_path, "cut.log", head + key)
    with pytest.raises(HoldsPrivateKeyError):
        read_lines(path, limit=1)
    lines = 17 * 1024 * 1024 // len(filler)
    far = write(tmp_path, "far.log", filler * lines + key)
    assert read_lines(far, limit=1).text == filler  # the head of a huge log still reads
    assert read_lines(far, offset=lines - 1, limit=1).text == filler  # up to the key: shown
    with pytest.raises(HoldsPrivateKeyError):
        read_lines(far, offset=lines - 1, limit=2)
    with pytest.raises(HoldsPrivateKeyError):
        read_lines(far, offset=lines + 2, limit=3)


def test_a_hard_link_to_a_key_under_an_innocent_name_is_refused_by_content(
    tmp_path: Path,
) -> None:
    """A hard link cannot be told from its name: `docs/notes.txt` is ~/.ssh/id_ed25519. The
    content rule is what refuses it, in read_file and in search_files."""
    home_key = write(tmp_path, "home/.ssh/id_ed25519", pem("OPENSSH PRIVATE KEY"))
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    os.link(home_key, project / "docs" / "notes.txt")
    with pytest.raises(HoldsPrivateKeyError):
        read_lines(project / "docs" / "notes.txt", offset=1)
    result = search(project, pattern=CANARY)
    assert CANARY not in result.text.replace(repr(CANARY), "")
    assert "[1 file holding a private key not searched]" in result.text.splitlines()


def test_a_key_appended_in_utf16_after_a_long_text_head_gives_no_line(tmp_path: Path) -> None:
    """Windows PowerShell 5's `>>` appends UTF-16 to a UTF-8 log (`type id_rsa >> notes.txt`).
    Before: past the 64 KiB sniffed for a NUL, the key's bytes matched no marker, and
    search_files showed its lines with a NUL between each character."""
    head = "build step ok\n" * 5000  # 70 kB of plain text
    path = tmp_path / "notes.txt"
    path.write_bytes(head.encode() + pem("RSA PRIVATE KEY").encode("utf-16-le"))
    assert private_key_in(path.read_bytes())
    spaced = "\\x00?".join(CANARY[:8])  # the canary with its NULs
    result = search(tmp_path, pattern=spaced)
    assert "K\x00E\x00Y" not in result.text and "KEYBODY" not in result.text.replace(spaced, "")
    assert "[1 file holding a private key not searched]" in result.text.splitlines()
    with pytest.raises((HoldsPrivateKeyError, UnreadableFileError)):
        read_lines(path, offset=4999)


@pytest.mark.parametrize("glob", ["../*", "../**", "/**", "/*", "**/../../*", "/etc/*", "~/*"])
def test_a_glob_that_climbs_or_is_absolute_reads_nothing_outside(tmp_path: Path, glob: str) -> None:
    """The glob only filters the project's own walk: no glob opens a path of its own."""
    write(tmp_path, "outside.txt", f"{SECRET}\n")
    project = tmp_path / "project"
    write(project, "inside.txt", "nothing here\n")
    result = search(project, pattern=".", glob=glob)
    assert SECRET not in result.text
    assert result.text.startswith("no matches for '.' in 0 files searched"), result.text


def test_a_sparse_file_of_a_terabyte_costs_the_first_16_mib_only(tmp_path: Path) -> None:
    """A sparse file reads as NULs: binary after its first piece; the search goes on."""
    with (tmp_path / "huge.log").open("wb") as handle:
        handle.truncate(1 << 40)
    write(tmp_path, "small.txt", "needle\n")
    started = time.monotonic()
    result = search(tmp_path, pattern="needle")
    assert time.monotonic() - started < deadlines.HANG
    assert result.text.splitlines()[0] == "small.txt:1: needle"
    assert "[1 binary file not searched]" in result.text.splitlines()


@pytest.mark.parametrize("pad", [0, 1, 2])
def test_a_bundle_of_certificate_and_key_base64_encoded_is_refused(
    tmp_path: Path, pad: int
) -> None:
    """HAProxy's PEM (certificate, then key) kept base64-encoded in a Kubernetes secret. Before:
    only a key at the very start of the encoding was recognised, so a key after the
    certificate, at any offset, was read, searched and attached as base64."""
    certificate = pem("CERTIFICATE").replace(CANARY, "CERT" + "c" * pad)
    bundle = base64.b64encode((certificate + pem("RSA PRIVATE KEY")).encode()).decode()
    path = write(tmp_path, "secret.yaml", f"data:\n  haproxy.pem: {bundle}\n")
    assert private_key_in(path.read_bytes())
    with pytest.raises(HoldsPrivateKeyError):
        read_lines(path)
    result = search(tmp_path, pattern="haproxy")
    assert bundle[-200:] not in result.text
    assert "[1 file holding a private key not searched]" in result.text.splitlines()


AGE_KEY = "AGE-SECRET-KEY-" + "1" + "QYZ" * 19 + "Q"  # the shape age-keygen writes (bech32)
WG_KEY = "PrivateKey = " + "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk="


@pytest.mark.parametrize(
    ("relative", "text"),
    [
        (
            "secrets/age-keys.txt",  # copied into a repository, under any name
            f"# created: 2026-01-01\n# public key: age1xyz\n{AGE_KEY}\n",
        ),
        ("infra/wg0.conf", f"[Interface]\nAddress = 10.0.0.1/24\n{WG_KEY}\nListenPort = 51820\n"),
    ],
)
def test_an_age_or_wireguard_private_key_is_refused_by_content(
    tmp_path: Path, relative: str, text: str
) -> None:
    """SOPS keeps its age keys in ~/.config/sops/age/keys.txt, WireGuard its key in wg0.conf;
    neither is PEM. Before: started in the home (or an infra repository), read_file and
    search_files showed the secret key line."""
    path = write(tmp_path, relative, text)
    assert private_key_in(path.read_bytes())
    with pytest.raises(HoldsPrivateKeyError):
        read_lines(path)
    result = search(tmp_path, pattern="KEY|Key")
    assert "QYZQYZ" not in result.text and "yAnz5TF" not in result.text
    assert "[1 file holding a private key not searched]" in result.text.splitlines()
    # The public halves stay readable: an age recipient, a WireGuard peer's PublicKey.
    assert not private_key_in(b"# public key: age1qyzqyz\nPublicKey = " + WG_KEY[13:].encode())


def test_sops_age_keys_in_the_home_are_a_credential_folder_by_name(tmp_path: Path) -> None:
    """Not listed, not searched, not read: by name, as ~/.config/gh (and so hidden from a
    sandboxed command too, where nothing is judged by content)."""
    home = tmp_path / "home"
    write(home, ".config/sops/age/keys.txt", f"# public key: age1x\n{AGE_KEY}\n")
    listed = anyio.run(ListFiles(home.resolve()).run, {}).text
    assert "sops" not in listed and "[credential files and folders are not listed]" in listed
    with pytest.raises(ValueError, match=r"credential file or folder \(\.config/sops/age\)"):
        inside_project(home.resolve(), ".config/sops/age/keys.txt", ())
