"""The content rule: which texts hold a private key, and that a whole file is judged, read
from any offset, a marker cut by the scan's pieces included. Real files."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from agent.tools.credential_files import (
    KEY_SCAN_BYTES,
    SCAN_CHUNK_BYTES,
    file_holds_private_key,
    private_key_in,
)
from agent.tools.reading import HoldsPrivateKeyError, read_lines

DASHES = "-" * 5  # a marker written out would make this file unreadable to agent itself


def pem(label: str, body: str = "MIIDdzCCAl+gAwIBAgIE\n") -> str:  # a certificate's start
    return f"{DASHES}BEGIN {label}{DASHES}\n{body}{DASHES}END {label}{DASHES}\n"


@pytest.mark.parametrize(
    "label",
    ["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY",
     "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"],
)  # fmt: skip
def test_every_kind_of_pem_private_key_is_found_even_inside_json_or_indented(label: str) -> None:
    assert private_key_in(pem(label).encode())
    escaped = pem(label).replace("\n", "\\n")
    assert private_key_in(f'{{"private_key": "{escaped}"}}'.encode())
    assert private_key_in(("  tls.key: |\n" + pem(label).replace("\n", "\n    ")).encode())


def test_a_base64_encoded_key_and_a_putty_key_are_found() -> None:
    for label in ("PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"):
        encoded = base64.b64encode(pem(label).encode()).decode()
        assert private_key_in(f"client-key-data: {encoded}\n".encode()), label
    putty = "PuTTY-User-Key-File-" + "2: ssh-rsa\nEncryption: none\n"
    assert private_key_in(putty.encode())


def test_a_jwk_is_private_by_its_own_members_only() -> None:
    d, k = '"d": "' + "A1b2_-" * 8 + '"', '"k": "' + "A1b2_-" * 8 + '"'
    for private in (
        '{"kty": "EC", "crv": "P-256", "x": "abc", "y": "def", ' + d + "}",
        "{" + d + ', "kty": "RSA"}',  # members in any order
        '{"keys": [{"kty": "OKP", "x": "pub"}, {"kty": "OKP", ' + d + "}]}",
        '{"kty": "oct", ' + k + "}",
        '{"jwk": "{\\"kty\\":\\"EC\\",\\' + d.replace('"', '\\"')[1:] + '}"}',
        "kty: EC\n" + d.replace('"', "") + "\n",  # YAML
    ):
        assert private_key_in(private.encode()), private
    for public in (
        '{"keys": [{"kty": "EC", "x": "abc", "y": "def"}], "meta": {' + d + "}}",
        '{"kty": "RSA", "n": "abc", "e": "AQAB", "kid": "' + "A1b2_-" * 8 + '"}',
        '{"kty": "RSA", ' + k + "}",  # a "k" means a secret only in an "oct" key
        '{"xkty": "EC", ' + d + "}",
        '{"kty": "EC", "d": "short"}',
    ):
        assert not private_key_in(public.encode()), public


def test_certificates_public_keys_and_prose_about_keys_are_not_keys() -> None:
    for label in ("CERTIFICATE", "PUBLIC KEY", "RSA PUBLIC KEY", "CERTIFICATE REQUEST",
                  "PGP PUBLIC KEY BLOCK", "X509 CRL"):  # fmt: skip
        assert not private_key_in(pem(label).encode()), label
        assert not private_key_in(base64.b64encode(pem(label).encode())), label
    prose = "Put your PRIVATE KEY in the vault; PuTTY users convert it with puttygen.\n"
    assert not private_key_in(prose.encode())
    assert not private_key_in(b"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI me@laptop\n")


@pytest.mark.parametrize("cut", [1, 5, 11, 20, 30])
def test_a_marker_cut_in_two_by_the_scans_pieces_is_found(tmp_path: Path, cut: int) -> None:
    key = pem("RSA PRIVATE KEY").encode()
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * (SCAN_CHUNK_BYTES - cut) + key)
    with path.open("rb") as handle:
        assert file_holds_private_key(handle, KEY_SCAN_BYTES)


def test_read_lines_refuses_a_key_file_from_any_offset(tmp_path: Path) -> None:
    path = tmp_path / "setup.md"
    prose = "".join(f"step {number}\n" for number in range(39))
    path.write_text(prose + pem("EC PRIVATE KEY", "AAAA\n" * 20) + "done\n")
    for offset, limit in ((0, 3), (40, 5), (41, None), (100, None)):
        with pytest.raises(HoldsPrivateKeyError):
            read_lines(path, offset, limit)


def test_a_huge_file_is_scanned_up_to_the_end_of_what_is_shown(tmp_path: Path) -> None:
    # Past KEY_SCAN_BYTES only what is shown and what lies before it is scanned: the head of a
    # huge log reads at once, and a key at its end is still never shown.
    path = tmp_path / "huge.log"
    line = b"a log line of no interest at all, repeated to make a big file\n"
    lines = KEY_SCAN_BYTES // len(line) + 10
    path.write_bytes(line * lines + pem("RSA PRIVATE KEY").encode())
    assert read_lines(path, 0, 2).text == (line * 2).decode()
    with pytest.raises(HoldsPrivateKeyError):
        read_lines(path, lines + 1, 1)  # the key's body, without its BEGIN line
    with pytest.raises(HoldsPrivateKeyError):
        read_lines(path, lines - 2, 3)  # the BEGIN line is the last one shown


def test_agents_own_source_holds_no_marker_the_rules_would_refuse() -> None:
    """A marker written out in agent's source makes that file unreadable to agent itself
    (credential_files.py's comment once held the ssh.com BEGIN line whole)."""
    root = Path(__file__).resolve().parents[2] / "agent"
    refused = [
        str(path) for path in sorted(root.rglob("*.py")) if private_key_in(path.read_bytes())
    ]
    assert refused == []
