"""Attack: a private key under a name no rule knows. The credential rules go by name (`id_rsa`,
`.ssh/`, `.env`...), but keys live as `certs/server.key`, `deploy/prod.pem` (a certificate with
its key after it), `tls.txt`, or behind a link with an innocent name that a hostile repository
ships (`docs/notes.md -> ../certs/server.key`, where its README tells people to generate the
key). `@docs/notes.md` attached the key to the message, and read_file, which needs no approval,
handed it to a hostile model answer. A file whose first part holds a private key block is now
refused by both, saying why. Real files, the real reader of mentions, the real read_file."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agent.chat.file_attachments import read_file_mentions
from agent.tools.builtin import ReadFile

KEY_BODY = "MIIEowIBAAKCAQEAcanaryCANARYcanary0123456789"
CERTIFICATE = "-----BEGIN CERTIFICATE-----\nMIIDcert\n-----END CERTIFICATE-----\n"


def pem(kind: str) -> str:
    return f"-----BEGIN {kind}-----\n{KEY_BODY}\n-----END {kind}-----\n"


KEYS = {
    "certs/server.key": pem("RSA PRIVATE KEY"),
    "deploy/prod.pem": CERTIFICATE + pem("PRIVATE KEY"),  # the certificate first
    "tls.txt": pem("EC PRIVATE KEY"),
    "ops/backup": pem("OPENSSH PRIVATE KEY"),
    "win/deploy-key": f"PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\n{KEY_BODY}\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    for relative, text in KEYS.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    (folder / "docs").mkdir()
    (folder / "docs" / "notes.md").symlink_to("../certs/server.key")
    (folder / "cert.pem").write_text(CERTIFICATE)  # a certificate alone is public
    # Prose about keys is fine; a whole BEGIN line is not, even mid-line (a key in JSON is).
    (folder / "README.md").write_text("Generate a PRIVATE KEY with openssl genpkey.\n")
    return folder


@pytest.mark.parametrize("relative", [*KEYS, "docs/notes.md"])
def test_a_file_holding_a_private_key_is_not_attached_whatever_its_name(
    project: Path, relative: str
) -> None:
    found = read_file_mentions(f"look at @{relative}", project, (), 100_000, ())
    assert found.parts == [] and found.attached == []
    assert found.refused == [
        f"@{relative} was not attached: it holds a private key: keys stay private"
    ]


@pytest.mark.parametrize("relative", [*KEYS, "docs/notes.md"])
def test_read_file_refuses_a_file_holding_a_private_key(project: Path, relative: str) -> None:
    result = anyio.run(ReadFile(project).run, {"path": relative})
    assert result.is_error and KEY_BODY not in result.text
    assert "holds a private key" in result.text


def test_a_certificate_and_prose_about_keys_are_still_read(project: Path) -> None:
    found = read_file_mentions("@cert.pem and @README.md", project, (), 100_000, ())
    assert found.refused == [] and len(found.attached) == 2
    assert not anyio.run(ReadFile(project).run, {"path": "cert.pem"}).is_error
