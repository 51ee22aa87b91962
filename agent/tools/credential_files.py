"""Credential files: well-known names the built-in file tools never read, change or list, and
files holding a private key under any name, which they never read or change.

read_file needs no approval, so whatever it reads goes to the model without a question; a
hostile answer (or a prompt injected through a README) asks for keys first. Started in the
home directory, the project is the home, so `~/.ssh` would be "in the project". The rule is
by name, wherever the project is: these names mean keys and tokens in a home directory and
in a project alike (a project's `.aws/config`, a deploy folder's `.netrc`).

`.env` and `.env.*` are refused too: by convention they hold a project's secrets (API keys,
database passwords) and stay out of version control. The shared templates (`.env.example`,
`.env.sample`, `.env.template`, `.env.dist`) hold none, so they stay readable. A folder named
`.env` (some virtualenvs) is not refused: only a file of that name is. Names are compared
without case: on a file system that ignores it (macOS, Windows by default) `.SSH` is the
`.ssh` folder.

Key stores by their extension (`.p12`, `.pfx`, `.jks`, `.keystore`, `.kdbx`, `.ppk`): these
extensions mean nothing but keys and passwords. `.key` and `.pem` do not: a `.pem` is as often
a certificate (people debug TLS with them) and a `.key` a Keynote file, so those are judged by
what they hold. Google's OAuth client secrets (`client_secret*.json`, the name of the download)
and service-account keys (`service-account*.json`, `service_account*.json`: the name docs and
tutorials give the downloaded key) are refused by name too; a key's JSON holds a PEM private
key, which the content rule catches under any name, but the name also keeps it out of
listings and out of a sandboxed command's reach in the home, where nothing is read.

By content (`private_key_in`), for the tools that show a file's text: a file holding a private
key, under any name (a key renamed `notes.txt`, pasted into a doc, a service account's JSON): a
PEM block whose BEGIN line names a PRIVATE KEY (RSA, EC, DSA, OPENSSH, ENCRYPTED, PKCS#8, a PGP
private key block) or the ssh.com format's (`---- BEGIN SSH2 ... PRIVATE KEY ----`, PuTTYgen's
export), such a PEM block base64-encoded anywhere in the encoding (a kubeconfig's
`client-key-data`, a Kubernetes secret holding certificate and key), or a PuTTY key file; in
UTF-16 and UTF-32 too (their NULs are dropped before looking). The encoding is found wrapped in
lines too (`base64 key.pem` wraps at 76 columns, `openssl base64` at 64), indented (a YAML block
scalar) or with `\\n` escapes (a JSON string): line breaks, spaces and escapes are taken out
before looking. And keys that are no PEM: an age secret key (`AGE-SECRET-KEY-1...`, SOPS's
keys.txt), a WireGuard `PrivateKey = `, a key's DER in base64 without its PEM lines (a CI
secret's or `.env`'s `PRIVATE_KEY=MIIEv...`), and a JSON Web Key with its private members (`"d"` of
an RSA, EC or OKP key, `"k"` of an `"oct"` one), alone or in a JWK set, pretty-printed or
minified, inside a larger document or JSON-escaped in a string; a public JWK set (`n`/`e`,
`x`/`y`) stays readable. The
whole file is refused, not the key's lines: read from an offset, lines 2..N of a key are the
key without its BEGIN line. Certificates and public keys (their BEGIN lines name no private
key) stay readable. Binary key files (DER) are refused by every reading tool as binary already.
A file is scanned whole up to KEY_SCAN_BYTES, and a bigger one up to the end of what is shown:
the head of a huge log still reads at once, and no line at or after a key's BEGIN line is ever
shown. write_file and edit_file refuse such a file too: edit_file's "not found" would answer
guesses at the key.

A sandboxed command (agent.tools.sandbox) cannot be refused by content: the fence is made of
paths before the command runs. The home's credential files by these names are hidden from it,
and every `.pem` and `.key` lying directly in the home (credential_links.home_key_files says
why). A hard link to one of the home's credential files is refused by agent.tools.credential_links.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from typing import BinaryIO

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
        (".config", "rclone", "rclone.conf"),  # cloud storage remotes' passwords and tokens
        (".config", "hub"),  # the hub CLI's GitHub token
        (".config", "op"),  # the 1Password CLI's sessions and account keys
        (".config", "sops", "age"),  # SOPS's age secret keys (keys.txt)
    }
)
# The last component: token files of git, netrc, PostgreSQL, npm, PyPI and Vault, direnv's
# .envrc (exports, often of secrets, like a .env), and SSH private keys by their default
# names, wherever they lie (a key copied into a deploy folder is still a key); the password
# files of Apache (.htpasswd) and MySQL (.my.cnf), s3cmd's and boto's keys, Docker's old
# auth file, Terraform state (every resource's attributes, passwords included, in plain
# text) and `credentials.json` (Google's API quickstarts, many CLIs).
CREDENTIAL_FILES = frozenset(
    {".netrc", "_netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".vault-token",
     ".envrc", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
     ".htpasswd", ".my.cnf", ".s3cfg", ".boto", ".dockercfg", "terraform.tfstate",
     "terraform.tfstate.backup", "credentials.json"}
)  # fmt: skip
# Key stores by extension: PKCS#12, Java key stores, KeePass databases, PuTTY private keys.
CREDENTIAL_EXTENSIONS = (".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ppk")
# Downloaded secrets by the start of their name: (start, end, the rule as people read it).
CREDENTIAL_NAME_PATTERNS = (
    ("client_secret", ".json", "client_secret*.json"),  # Google OAuth client secrets
    ("service-account", ".json", "service-account*.json"),  # service-account keys
    ("service_account", ".json", "service_account*.json"),
)
_PATH_STARTS = frozenset(path[0] for path in CREDENTIAL_PATHS)
ENV_FILE = ".env"
ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})

CREDENTIAL_REFUSAL = (
    "which the file tools never read: keys and tokens must not reach the model; the person "
    "can share what is needed"
)
NOT_LISTED = "[credential files and folders are not listed]"


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
    return credential_name_pattern(name)


def credential_name_pattern(name: str) -> str | None:
    """The extension or name pattern (`*.pfx`, `client_secret*.json`) the folded file `name`
    matches, else None."""
    for extension in CREDENTIAL_EXTENSIONS:
        if name.endswith(extension):
            return f"*{extension}"
    for start, end, rule in CREDENTIAL_NAME_PATTERNS:
        if name.startswith(start) and name.endswith(end):
            return rule
    return None


def _folded(parts: Sequence[str]) -> list[str]:
    # By default macOS and Windows file systems ignore case: `.SSH/id_rsa` opens ~/.ssh/id_rsa.
    return [part.casefold() for part in parts]


def refusal(relative: str, rule: str, verb: str = "read") -> str:
    """What the model is told: the path as it asked, and the rule that refused it (`verb`:
    what the tool would have done)."""
    reason = CREDENTIAL_REFUSAL.replace("never read", f"never {verb}")
    return f"{relative!r} is a credential file or folder ({rule}), {reason}"


def key_refusal(relative: str, verb: str = "read") -> str:
    """What the model is told of a file refused for the private key it holds: the path as it
    asked, never a line of the file."""
    reason = CREDENTIAL_REFUSAL.replace("never read", f"never {verb}")
    return f"{relative!r} is a credential file (it holds a private key), {reason}"


def link_refusal(relative: str, linked_to: str, verb: str = "read") -> str:
    """What the model is told of a hard link to a credential file elsewhere (`linked_to`, as
    `~/.aws/credentials`): the path as it asked and what it is, never a line of either."""
    reason = CREDENTIAL_REFUSAL.replace("never read", f"never {verb}")
    return f"{relative!r} is a credential file (a hard link to {linked_to}), {reason}"


# The content rule. The markers are put together here, not written out: a source file holding
# one would itself be refused. A PEM BEGIN line whose label ends in PRIVATE KEY (PKCS#1 RSA,
# SEC1 EC, DSA, OpenSSH, PKCS#8 plain and ENCRYPTED) or PRIVATE KEY BLOCK (PGP); a PuTTY key.
_DASHES = b"-" * 5
_PEM_PRIVATE = re.compile(_DASHES + rb"BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?" + _DASHES)
_PUTTY = re.compile(b"PuTTY-User-Key-File" + rb"-[0-9]+: ")
# The ssh.com (RFC 4716) private key PuTTYgen exports and Tectia writes: four dashes, a space,
# `BEGIN SSH2 ENCRYPTED PRIVATE KEY`, a space, four dashes (not written out here: this file
# would hold the marker and be refused); its public half names PUBLIC KEY.
_SSH_COM = re.compile(b"-" * 4 + rb" BEGIN SSH2 [A-Z0-9 ]{0,40}PRIVATE KEY " + b"-" * 4)
# Keys that are no PEM: an age secret key (SOPS keeps them in ~/.config/sops/age/keys.txt),
# bech32 after its prefix; a WireGuard config's own key, 32 bytes in base64 (a peer's is a
# PublicKey).
_AGE = re.compile(b"AGE-SECRET-" + rb"KEY-1[0-9A-Z]{50,}")
_WIREGUARD = re.compile(rb"(?m)^[ \t]*" + b"PrivateKey" + rb"[ \t]*=[ \t]*[A-Za-z0-9+/]{43}=")
# A PEM key base64-encoded holds the encoding of its BEGIN line, the same characters whatever
# comes before or after: 3n bytes from a multiple of 3 encode to 4n characters of their own.
# The line starts anywhere in the encoded bytes (a key after its certificate, in HAProxy's PEM
# kept in a Kubernetes secret), so each of the three offsets from a multiple of 3 is looked
# for: the line from its start, from its third byte, or from its second.
_PEM_LABELS = (
    (b"", b"PRIVATE KEY"),
    (b"RSA ", b"PRIVATE KEY"),
    (b"EC ", b"PRIVATE KEY"),
    (b"DSA ", b"PRIVATE KEY"),
    (b"OPENSSH ", b"PRIVATE KEY"),
    (b"ENCRYPTED ", b"PRIVATE KEY"),
    (b"PGP ", b"PRIVATE KEY BLOCK"),
)
_SKIPS = (0, 2, 1)  # bytes to a multiple of 3, for a line at offset 0, 1 or 2 mod 3


def _aligned(line: bytes, skip: int) -> bytes:
    line = line[skip:]
    return base64.b64encode(line[: len(line) // 3 * 3])


_ENCODED_STARTS = tuple(
    _aligned(_DASHES + b"BEGIN " + label + kind + _DASHES, skip)
    for label, kind in _PEM_LABELS
    for skip in _SKIPS
)
_ENCODED_HINTS = tuple(_aligned(_DASHES + b"BEGIN ", skip)[:8] for skip in _SKIPS)
# An encoding wrapped in lines (`base64` wraps at 76 columns, `openssl base64` at 64), indented
# in a YAML block scalar, or kept in a JSON string with `\n` escapes is one run again once the
# line breaks, spaces and escapes are taken out; the encoded BEGIN line is then found whole.
_WRAPPING = b" \t\r\n\f\v"
_ESCAPED_BREAKS = (b"\\n", b"\\r")
# Every encoded BEGIN line starts with `LS0t` (three dashes), cut anywhere by the wrapping or
# not: looked for first, in one pass of `re` (rare in any text), before the run is put together.
_BREAK = rb"(?:[ \t\r\n\f\v]|\\[nr])*"
_ENCODED_DASHES = re.compile(_BREAK.join((b"L", b"S", b"0", b"t")))
# A key's DER in base64 without its PEM lines (CI secrets and `.env` files keep Apple's .p8
# keys, GitHub App keys and service keys so): each kind's first bytes, from the key's start,
# encode to the same characters whatever the key. A SEQUENCE encodes to `M`, which `re` looks
# for fast; a public key's DER (SubjectPublicKeyInfo) starts otherwise. PKCS#8 RSA, PKCS#1
# RSA (1024 to 4096 bits), PKCS#8 EC (any named curve), SEC1 EC (P-256, secp256k1, P-384,
# P-521), PKCS#8 Ed25519 and X25519, a PKCS#12 key store (`base64 -i cert.p12`, iOS signing
# in CI); an OpenSSH key's body (`openssh-key-v1`) and a Java key store (an Android release
# keystore in CI), which start otherwise.
_B64 = rb"[A-Za-z0-9+/]"
_DER_PRIVATE = re.compile(
    rb"M(?:II%s{5}ADANBgkqhkiG9w0BAQEFAASC" % _B64
    + rb"|II%s{3}IBAAK(?:CA[QYg]EA|BgQ)" % _B64
    + rb"|I%s{2}AgEAMB%sGByqGSM49AgEG" % (_B64, _B64)
    + rb"|H%sCAQEEI|I%s{2}AgEBB[DE]" % (_B64, _B64)
    + rb"|C4CAQAwBQYDK2V[wu]BCIEI"
    + rb"|II%s{3}IBAzCC%s{4}CSqGSIb3DQEH)" % (_B64, _B64)
)
_OPENSSH_BODY = base64.b64encode(b"openssh-key-v1\0")[:20]
# Java key stores by their magic and version: JKS (FEEDFEED) and JCEKS (CECECECE).
_KEY_STORES = tuple(base64.b64encode(magic + b"\0\0") for magic in (b"\xfe\xed" * 2, b"\xce" * 4))

# A JSON Web Key with private members (RFC 7518): `"d"` of an RSA, EC or OKP key, `"k"` of a
# symmetric (`"oct"`) one. Names are matched quoted (JSON, or JSON escaped in a string) or bare
# (a JavaScript object, YAML), never as the end of a longer name; a value is base64url, and one
# of a real key is long. Each pattern starts with its name, which `re` looks for fast (base64
# noise holds `kty` now and then, never followed by a colon).
_JWK_BYTES = 48  # fewer than any real JWK takes (see _private_jwk_in)


def _jwk_member(name: bytes, value: bytes) -> re.Pattern[bytes]:
    after = rb"""\\*["']?[ \t\r\n]*:[ \t\r\n]*\\*["']?"""
    return re.compile(name + rb"(?<![A-Za-z0-9_$]" + name + b")" + after + value)


_JWK_TYPE = _jwk_member(b"kty", b"")
_JWK_PRIVATE = _jwk_member(b"d", rb"[A-Za-z0-9_-]{16}")
_JWK_SECRET = _jwk_member(b"k", rb"[A-Za-z0-9_-]{16}")
_JWK_OCT = _jwk_member(b"kty", rb"oct\b")
_HINTS = (
    b"PRIVATE KEY",
    b"PuTTY",
    b"SECRET-KEY-1",
    b"PrivateKey",
)  # cheap to find; the patterns decide
KEY_SCAN_BYTES = 16 * 1024 * 1024  # of a bigger file, at least up to the end of what is shown
SCAN_CHUNK_BYTES = 1024 * 1024
# Longer than any marker, in UTF-32 too, and than an encoded BEGIN line wrapped in narrow
# indented lines or a JWK's members: one cut in two by a chunk's end is still found.
_SCAN_OVERLAP = 16 * 1024


def private_key_in(data: bytes) -> bool:
    """Whether `data` holds a private key: a PEM block (plain or base64-encoded, wrapped or
    not), a key's DER in base64, PuTTY's, ssh.com's, an age secret key, a WireGuard config's
    PrivateKey or a JSON Web Key's private members."""
    if b"\0" in data:
        # UTF-16 or UTF-32 text (PowerShell 5's `>>` appends UTF-16 to a UTF-8 log, past the
        # head sniffed for a NUL): its markers are the ASCII ones with NULs between.
        data = data.replace(b"\0", b"")
    if any(hint in data for hint in _HINTS) and (  # nearly every file: found in one pass
        _PEM_PRIVATE.search(data)
        or _PUTTY.search(data)
        or _SSH_COM.search(data)
        or _AGE.search(data)
        or _WIREGUARD.search(data)
    ):
        return True
    if (
        _DER_PRIVATE.search(data)
        or _OPENSSH_BODY in data
        or any(store in data for store in _KEY_STORES)
    ):
        return True
    return _private_jwk_in(data) or _encoded_pem_in(data)


def _encoded_pem_in(data: bytes) -> bool:
    """Whether `data` holds a PEM private key's BEGIN line base64-encoded, in one run or
    wrapped in (indented) lines."""
    if _ENCODED_DASHES.search(data) is None:  # nearly every file
        return False
    run = data.translate(None, _WRAPPING)
    if b"\\" in run:
        for escape in _ESCAPED_BREAKS:
            run = run.replace(escape, b"")
    if not any(hint in run for hint in _ENCODED_HINTS):
        return False
    return any(start in run for start in _ENCODED_STARTS)


def _private_jwk_in(data: bytes) -> bool:
    """Whether `data` holds a JSON Web Key with a private member: judged between the braces
    around each `kty` (a JWK's members are flat; a set's keys are objects of their own), so a
    public key beside other JSON with a `d` is not one. Each stretch between braces is judged
    once, and each brace looked for once. A real JWK takes more than _JWK_BYTES (a public
    Ed25519 key, the smallest, about 75): text denser in `kty` members than that is no key
    set but a file made to be slow, refused as one would be."""
    budget = len(data) // _JWK_BYTES + 16
    position = boundary = 0  # where to look on; where the last judged members ended
    next_brace = {b"{": -1, b"}": -1}  # the next of each after a `kty`; len(data): none left
    while (found := _JWK_TYPE.search(data, position)) is not None:
        budget -= 1
        if budget < 0:
            return True
        at = found.start()
        position = found.end()
        # The last members judged ended at a brace at `boundary` (or this is the first `kty`):
        # looking back no further than that finds where these start.
        start = max(data.rfind(b"{", boundary, at), data.rfind(b"}", boundary, at)) + 1
        for brace, index in next_brace.items():
            if index < position:
                index = data.find(brace, position)
                next_brace[brace] = len(data) if index < 0 else index
        boundary = position = min(next_brace.values())
        members = data[start:boundary]
        if _JWK_PRIVATE.search(members) or (
            _JWK_OCT.search(members) and _JWK_SECRET.search(members)
        ):
            return True
    return False


def file_holds_private_key(handle: BinaryIO, until: int) -> bool:
    """Whether the open file holds a private key in its first `until` bytes (read from the
    start in pieces; the position is left at the end of what was read)."""
    handle.seek(0)
    carried = b""
    read = 0
    while read < until:
        piece = handle.read(min(SCAN_CHUNK_BYTES, until - read))
        if not piece:
            return False
        read += len(piece)
        window = carried + piece
        if private_key_in(window):
            return True
        carried = window[-_SCAN_OVERLAP:]
    return False
