"""`@server:uri` in the person's message: where each mention is.

A mention starts at the beginning of the message or after white space (so an e-mail address is
never one), names a configured server exactly, then a colon, then the URI up to the next white
space. Server names may hold spaces or colons, so the longest configured name that fits wins.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


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


def mention_at_cursor(before_cursor: str) -> str | None:
    """The `@...` word being typed at the cursor (without the @), or None: for completion."""
    start = max(before_cursor.rfind(" "), before_cursor.rfind("\n"), before_cursor.rfind("\t"))
    word = before_cursor[start + 1 :]
    return word[1:] if word.startswith("@") else None
