"""The images of a session, and the contents of the files its tools changed (for /undo),
kept beside its file: one file per image or content, named by its SHA-256, created 0600.

A base64 image inside a JSONL line would bloat the file and slow every reader that takes a
line whole (the title search, the tail); beside it, the line holds a reference, and loading
puts the exact base64 text back, checked against its hash, so a resumed chat sends the same
bytes. The folder is `<session id>.blobs/` next to `<session id>.jsonl`; deleting a session
deletes it too.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
from pathlib import Path
from typing import Any

from agent.home import atomic_write

Json = dict[str, Any]
_NAME = re.compile(r"^[0-9a-f]{64}$")  # a saved reference names a file only by its hash


def blob_folder(session_path: Path) -> Path:
    """Where the images of the session saved at `session_path` live."""
    return session_path.with_name(f"{session_path.stem}.blobs")


def store_images(data: Json, folder: Path) -> Json:
    """The event with each image's data written to `folder` and replaced by its hash.

    OSError when the image cannot be written (the caller reports it like a failed line)."""
    parts = data.get("parts")
    if not isinstance(parts, list) or not any(_is_image(p, "data") for p in parts):
        return data
    kept = []
    for part in parts:
        if _is_image(part, "data"):
            text = str(part["data"])
            digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
            target = folder / digest
            if not target.exists():  # the same image attached twice is kept once
                atomic_write(target, text.encode("utf-8", "surrogatepass"))
            part = {key: value for key, value in part.items() if key != "data"}
            part["blob"] = digest
        kept.append(part)
    return {**data, "parts": kept}


def restore_images(data: Json, folder: Path, notes: list[str]) -> Json:
    """The event with each image reference replaced by the data saved for it; an image that
    is missing or altered becomes a text note saying so (and a note for the person)."""
    parts = data.get("parts")
    if not isinstance(parts, list) or not any(_is_image(p, "blob") for p in parts):
        return data
    restored = []
    for part in parts:
        if _is_image(part, "blob"):
            part = _restored(part, folder, notes)
        restored.append(part)
    return {**data, "parts": restored}


def store_content(folder: Path, data: bytes) -> str:
    """Keep a file's content (before or after a change) in `folder`; returns its SHA-256.

    OSError when it cannot be written."""
    digest = hashlib.sha256(data).hexdigest()
    target = folder / digest
    if not target.exists():  # the content after one change is the content before the next
        atomic_write(target, data)
    return digest


def load_content(folder: Path, digest: str) -> bytes | None:
    """The content kept under `digest`, checked against it; None when missing or altered."""
    if not _NAME.match(digest):
        return None
    try:
        data = (folder / digest).read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == digest else None


def delete_images(session_path: Path) -> None:
    """Remove the session's image folder, if it has one."""
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(blob_folder(session_path))


def _restored(part: Json, folder: Path, notes: list[str]) -> Json:
    digest = part["blob"]
    problem = None
    if not isinstance(digest, str) or not _NAME.match(digest):
        problem = "its reference is not an image hash"
    else:
        try:
            raw = (folder / digest).read_bytes()
        except OSError:
            problem = f"{folder.name}/{digest[:12]}… is missing"
        else:
            if hashlib.sha256(raw).hexdigest() != digest:
                problem = f"{folder.name}/{digest[:12]}… was altered"
            else:
                image = {key: value for key, value in part.items() if key != "blob"}
                return {**image, "data": raw.decode("utf-8", "surrogatepass")}
    notes.append(f"an image could not be restored ({problem}); the model reads a note instead")
    mime = part.get("mime_type")
    return {"type": "text", "text": f"[image ({mime}) lost from the saved session: {problem}]"}


def _is_image(part: object, key: str) -> bool:
    return isinstance(part, dict) and part.get("type") == "image" and key in part
