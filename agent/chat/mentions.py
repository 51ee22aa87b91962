"""`@` in the person's message: where each mention is, and what it names.

A mention starts at the beginning of the message or after white space (so an e-mail address is
never one) and runs to the next white space; a backslash keeps the character after it
(`@my\\ notes.txt`, as shells and Gemini CLI write a space in a path).

Two forms, never ambiguous:
- `@server:uri` when the text up to a colon is a configured server's name (names may hold
  spaces or colons, so the longest configured name that fits wins);
- `@path` otherwise: a project file. A path that begins like `server:` is written `@./server:x`.
A word that names no file and does not look like a path (`@alice`, `@here`) is plain text.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

# What may follow a path in a sentence ("see @README.md.") and is not part of it.
_TRAILING = ".,;:!?)]}'\""


@dataclass(frozen=True)
class Mention:
    """One `@server:uri` in a message, with where it is."""

    server: str
    uri: str
    start: int
    end: int

    @property
    def text(self) -> str:
        """The mention as typed."""
        return f"@{self.server}:{self.uri}"


@dataclass(frozen=True)
class Word:
    """One `@word` of a message: its text with escapes taken out, and where it is."""

    text: str  # without the @
    start: int
    end: int


def mention_words(text: str) -> Iterator[Word]:
    """Every `@word` at the start of `text` or after white space, in order."""
    index = text.find("@")
    while index != -1:
        if index == 0 or text[index - 1].isspace():
            word, end = _word_at(text, index + 1)
            if word:
                yield Word(word, index, end)
            index = text.find("@", end)
            continue
        index = text.find("@", index + 1)


def _word_at(text: str, start: int) -> tuple[str, int]:
    out: list[str] = []
    end = start
    while end < len(text) and not text[end].isspace():
        if text[end] == "\\" and end + 1 < len(text) and text[end + 1] in " \\":
            end += 1
        out.append(text[end])
        end += 1
    return "".join(out), end


def find_mentions(text: str, servers: Collection[str]) -> list[Mention]:
    """Every mention of one of `servers` in `text`, in order; each distinct one once."""
    names = sorted(servers, key=len, reverse=True)
    found: list[Mention] = []
    seen: set[tuple[str, str]] = set()
    index = text.find("@")
    while index != -1:
        if index == 0 or text[index - 1].isspace():
            mention = _mention_at(text, index, names)
            if mention is not None:
                if (mention.server, mention.uri) not in seen:
                    seen.add((mention.server, mention.uri))
                    found.append(mention)
                index = text.find("@", mention.end)
                continue
        index = text.find("@", index + 1)
    return found


def _mention_at(text: str, index: int, names: list[str]) -> Mention | None:
    for name in names:
        head = f"@{name}:"
        if text.startswith(head, index):
            start = index + len(head)
            end = start
            while end < len(text) and not text[end].isspace():
                end += 1
            if end > start:
                return Mention(name, text[start:end], index, end)
    return None


def server_word(word: str, servers: Collection[str]) -> bool:
    """Whether `@word`, typed at the cursor, starts `@server:` of a configured server."""
    return any(word.startswith(f"{name}:") for name in servers)


def looks_like_path(word: str, folder_exists: Callable[[str], bool]) -> bool:
    """Whether `@word` is meant as a path even if no such file exists (so it is refused, not
    sent as text): it starts like a relative, absolute or home path, or its first folder is
    one of the project's (`@src/nope.py`; `@types/node`, an npm package, stays text)."""
    if word.startswith(("/", "~", "./", "../")):
        return True
    first, slash, _ = word.partition("/")
    return bool(slash and first) and folder_exists(first)


def trimmed(word: str) -> str:
    """`word` without the punctuation a sentence puts after it."""
    return word.rstrip(_TRAILING) or word


def escaped(path: str) -> str:
    """`path` as it is typed after @: spaces and backslashes escaped."""
    return path.replace("\\", "\\\\").replace(" ", "\\ ")


def mention_at_cursor(before_cursor: str) -> str | None:
    """The `@...` word being typed at the cursor (without the @, escapes kept), or None."""
    start = len(before_cursor)
    while start > 0:
        char = before_cursor[start - 1]
        if char.isspace() and not (start >= 2 and before_cursor[start - 2] == "\\"):
            break
        start -= 1
    word = before_cursor[start:]
    return word[1:] if word.startswith("@") else None
