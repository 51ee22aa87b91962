"""Well-known credential files and folders, which the built-in file tools never read or list.

read_file needs no approval, so whatever it reads goes to the model without a question; a
hostile answer (or a prompt injected through a README) asks for keys first. Started in the
home directory, the project is the home, so `~/.ssh` would be "in the project". The rule is
by name, wherever the project is: these names mean keys and tokens in a home directory and
in a project alike (a project's `.aws/config`, a deploy folder's `.netrc`).

`.env` and `.env.*` are refused too: by convention they hold a project's secrets (API keys,
database passwords) and stay out of version control. The shared templates (`.env.example`,
`.env.sample`, `.env.template`) hold none, so they stay readable. A folder named `.env` (some
virtualenvs) is not refused: only a file of that name is.
"""

from __future__ import annotations

from collections.abc import Sequence

# Any path component of these names: the folder holds keys (ssh, cloud CLIs, gpg, pass).
CREDENTIAL_FOLDERS = frozenset({".ssh", ".aws", ".gnupg", ".kube", ".azure", ".password-store"})
# Two components in a row: a credential folder or file inside a folder that is not one.
CREDENTIAL_PAIRS = frozenset({(".config", "gh"), (".config", "gcloud"), (".docker", "config.json")})
# The last component: token files of git, netrc, PostgreSQL, npm and PyPI.
CREDENTIAL_FILES = frozenset(
    {".netrc", "_netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc"}
)
ENV_FILE = ".env"
ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})

CREDENTIAL_REFUSAL = (
    "which the file tools never read: keys and tokens must not reach the model; the person "
    "can share what is needed"
)
NOT_LISTED = "[credential files and folders are not listed]"


def credential_folder(parts: Sequence[str]) -> str | None:
    """The credential folder (or file inside a folder) among path `parts`, e.g. ".config/gh"."""
    for index, part in enumerate(parts):
        if part in CREDENTIAL_FOLDERS:
            return part
        if index + 1 < len(parts) and (part, parts[index + 1]) in CREDENTIAL_PAIRS:
            return f"{part}/{parts[index + 1]}"
    return None


def credential_rule(parts: Sequence[str]) -> str | None:
    """Which rule makes the path of `parts` a credential file or folder, else None."""
    folder = credential_folder(parts)
    if folder is not None or not parts:
        return folder
    name = parts[-1]
    if name in CREDENTIAL_FILES:
        return name
    if name == ENV_FILE or (name.startswith(ENV_FILE + ".") and name not in ENV_TEMPLATES):
        return name
    return None


def refusal(relative: str, rule: str) -> str:
    """What the model is told: the path as it asked, and the rule that refused it."""
    return f"{relative!r} is a credential file or folder ({rule}), {CREDENTIAL_REFUSAL}"
