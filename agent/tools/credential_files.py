"""Well-known credential files and folders, which the built-in file tools never read or list.

read_file needs no approval, so whatever it reads goes to the model without a question; a
hostile answer (or a prompt injected through a README) asks for keys first. Started in the
home directory, the project is the home, so `~/.ssh` would be "in the project". The rule is
by name, wherever the project is: these names mean keys and tokens in a home directory and
in a project alike (a project's `.aws/config`, a deploy folder's `.netrc`).

`.env` and `.env.*` are refused too: by convention they hold a project's secrets (API keys,
database passwords) and stay out of version control. The shared templates (`.env.example`,
`.env.sample`, `.env.template`) hold none, so they stay readable. A folder named `.env` (some
virtualenvs) is not refused: only a file of that name is. Names are compared without case:
on a file system that ignores it (macOS, Windows by default) `.SSH` is the `.ssh` folder.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Any path component of these names: the folder holds keys (ssh, cloud CLIs, gpg, pass).
CREDENTIAL_FOLDERS = frozenset({".ssh", ".aws", ".gnupg", ".kube", ".azure", ".password-store"})
# Components in a row: a credential folder or file inside a folder that is not one.
CREDENTIAL_PATHS = frozenset(
    {
        (".config", "gh"),
        (".config", "gcloud"),
        (".docker", "config.json"),
        (".config", "git", "credentials"),  # git's credential store, XDG location
        (".cargo", "credentials.toml"),  # crates.io tokens
        (".cargo", "credentials"),
        (".gem", "credentials"),  # rubygems.org API key
        (".terraform.d", "credentials.tfrc.json"),  # Terraform Cloud tokens
    }
)
# The last component: token files of git, netrc, PostgreSQL, npm, PyPI and Vault, direnv's
# .envrc (exports, often of secrets, like a .env), and SSH private keys by their default
# names, wherever they lie (a key copied into a deploy folder is still a key).
CREDENTIAL_FILES = frozenset(
    {".netrc", "_netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".vault-token",
     ".envrc", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"}
)  # fmt: skip
_PATH_STARTS = frozenset(path[0] for path in CREDENTIAL_PATHS)
ENV_FILE = ".env"
ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})

CREDENTIAL_REFUSAL = (
    "which the file tools never read: keys and tokens must not reach the model; the person "
    "can share what is needed"
)
NOT_LISTED = "[credential files and folders are not listed]"
# A private key under any name (`server.key`, a `.pem` with the certificate first, a link
# called `notes.md`): a line near the file's start that opens a PEM private key block
# (PKCS#1 and #8, EC, DSA, OpenSSH, encrypted, PGP) or a PuTTY key file. Prose that merely
# quotes such a line mid-sentence is not one.
_PRIVATE_KEY = re.compile(
    rb"^[ \t]*(?:-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d+:)",
    re.MULTILINE,
)
PRIVATE_KEY_REFUSAL = "holds a private key"


def holds_private_key(head: bytes) -> bool:
    """Whether `head`, the first part of a file, holds a private key (judged by its content)."""
    return _PRIVATE_KEY.search(head) is not None


def credential_folder(parts: Sequence[str]) -> str | None:
    """The credential folder (or file inside a folder) among path `parts`, e.g. ".config/gh"."""
    names = _folded(parts)
    for index, name in enumerate(names):
        if name in CREDENTIAL_FOLDERS:
            return parts[index]
        if name not in _PATH_STARTS:  # the walk of a big tree asks this for every file
            continue
        for path in CREDENTIAL_PATHS:
            if tuple(names[index : index + len(path)]) == path:
                return "/".join(parts[index : index + len(path)])
    return None


def credential_rule(parts: Sequence[str]) -> str | None:
    """Which rule makes the path of `parts` a credential file or folder, else None."""
    folder = credential_folder(parts)
    if folder is not None or not parts:
        return folder
    name = _folded(parts)[-1]
    if name in CREDENTIAL_FILES:
        return parts[-1]
    if name == ENV_FILE or (name.startswith(ENV_FILE + ".") and name not in ENV_TEMPLATES):
        return parts[-1]
    return None


def _folded(parts: Sequence[str]) -> list[str]:
    # By default macOS and Windows file systems ignore case: `.SSH/id_rsa` opens ~/.ssh/id_rsa.
    return [part.casefold() for part in parts]


def refusal(relative: str, rule: str, verb: str = "read") -> str:
    """What the model is told: the path as it asked, and the rule that refused it (`verb`:
    what the tool would have done)."""
    reason = CREDENTIAL_REFUSAL.replace("never read", f"never {verb}")
    return f"{relative!r} is a credential file or folder ({rule}), {reason}"
