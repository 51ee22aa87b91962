"""Words for the tool search: split, lower-cased, stop words dropped, cut to a crude stem; and
the synonyms a query word also looks for.

The stemmer is a handful of suffix rules, applied alike to queries and definitions, so
"creating", "created" and "create" meet; it need not make English words, only the same
ones. The synonyms are the everyday words people use for what servers call otherwise
("remove" for delete, "look up" for search); they count for less than the words typed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

SYNONYM_WEIGHT = 0.4

_CASE_CHANGE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[^\W_]+")

_STOP_TEXT = """
a an the and or of to in on at by for from with into onto about as is are be been was were
it its this that these those there here i me my mine we our us you your he she they them
their what which who whom whose when where why how can could would should will shall may
might must do does did done please just some any all each every more most other such no not
only own same so than too very s t want need like using use given then also if else up out
over via everything something anything nothing
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

# Each group: words people use for one action or thing. A query word looks for the others.
_GROUPS = (
    "delete remove erase drop destroy discard trash forget",
    "fetch retrieve get download grab",
    "read view show display open see inspect",
    "find search lookup look query locate seek discover",
    "create make new add generate build open",
    "update edit modify change alter set patch",
    "list enumerate browse show",
    "log history",
    "write save store put record",
    "run execute exec launch invoke start evaluate eval",
    "send post publish message notify",
    "web url page site website link internet online",
    "file document doc",
    "folder directory dir",
    "repo repository project",
    "picture image screenshot photo snapshot capture png jpg jpeg gif",
    "several multiple many batch bulk",
    "navigate go visit goto",
    "click press tap",
    "type enter fill input",
    "note memory remember recall knowledge",
    "issue bug ticket",
    "comment reply",
    "time clock date timezone",
    "schedule calendar event meeting",
    "mail email",
    "table database sql",
    "think reason plan reflect step",
    "rename move",
    "commit change",
    "copy duplicate",
)


def split_words(text: str) -> list[str]:
    """Lower-case words of `text`, split at underscores and punctuation; a word with case
    changes gives its parts and itself ("JavaScript": java, script, javascript)."""
    words: list[str] = []
    for word in _WORD.findall(text):
        lower = word.lower()
        if lower != word and not word.istitle():  # most words need no case split: fast path
            parts = _CASE_CHANGE.sub(" ", word).split()
            if len(parts) > 1:
                words.extend(part.lower() for part in parts)
        words.append(lower)
    return words


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stem: plural, -ing, -ed and a final e cut, a doubled last consonant undone."""
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = _undouble(word[:-3])
    elif len(word) > 4 and word.endswith("ed"):
        word = _undouble(word[:-2])
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def _undouble(word: str) -> str:
    if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        return word[:-1]
    return word


def stem_words(text: str) -> list[str]:
    """The stems of `text`'s words, stop words left out."""
    stop = STOP_WORDS
    return [stem(word) for word in split_words(text) if word not in stop]


def _synonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in _GROUPS:
        stems = {stem(word) for word in group.split()}
        for one in stems:
            table.setdefault(one, set()).update(stems - {one})
    return {word: frozenset(others) for word, others in table.items()}


SYNONYMS = _synonyms()


def expand(words: Sequence[str]) -> dict[str, float]:
    """Each query stem at weight 1 (repeats count once), and its synonyms at SYNONYM_WEIGHT."""
    weights = dict.fromkeys(words, 1.0)
    for word in words:
        for other in SYNONYMS.get(word, ()):
            weights.setdefault(other, SYNONYM_WEIGHT)
    return weights
