"""A local search over tool definitions, for the tools held back from requests (deferral.py).

BM25 (k1 1.2, b 0.75) over weighted fields: the tool's name, its title, its server, its
description, its parameters' names and descriptions. Words are split at case changes and
underscores, lower-cased and cut to a crude stem, so "listing files" meets `list_files`; a
query word also looks for a few common synonyms at a lower weight, since a person says
"remove" where a server says "delete". An exact tool name wins outright, and `server:` (or
`server: words`) keeps to one server's tools. No network, no model: about a millisecond
for a thousand tools once indexed.

A hostile server's text cannot buy every answer: each field indexes at most
MAX_FIELD_TERMS words and a tool MAX_DOCUMENT_TERMS (a description holding a dictionary is
cut, and its length still counts against it), a word repeated counts at most
MAX_TERM_WEIGHT, the typical length is the median of each server's median (many long
descriptions cannot make long look ordinary), and one server fills at most about half of
the answers unless the query names it (its name, or a word only its tool names hold, such
as "jira") or nothing else matches.
"""

from __future__ import annotations

import math
import re
import statistics
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent.tools.base import ToolSpec
from agent.tools.search_words import expand, stem, stem_words

K1, B = 1.2, 0.75
MAX_TERM_WEIGHT = 4.0  # a word said over and over counts as said a few times
MAX_DOCUMENT_TERMS = 1024
# A tool whose name the query covers ("create a jira ticket": jira_create_issue) gains up to
# this much: a name is what a tool does in two or three words; a description says more.
NAME_COVERAGE = 3.0
MAX_FIELD_TERMS = 256
# A part of a name written as one word counts like a word of the description: the name
# says it, but the split is a guess.
COMPOUND_PART_WEIGHT = 1.0
MIN_COMPOUND_PART = 3
MAX_QUERY_TERMS = 64  # a query longer than any intent is read to here
WEIGHTS = {"name": 3.0, "title": 2.0, "server": 1.0, "description": 1.0, "parameter": 1.0}
WEIGHTS["parameter description"] = 0.5
_SERVER_PREFIX = re.compile(r"^\s*([^\s:]+):(.*)$", re.DOTALL)


@dataclass(frozen=True)
class Document:
    """One tool as the index reads it: its weighted words and their total weight, and the
    distinct words of its name."""

    spec: ToolSpec
    terms: dict[str, float]
    length: float
    name: frozenset[str] = frozenset()


def document(spec: ToolSpec) -> Document:
    """The weighted words of one tool's definition."""
    fields = [
        ("name", spec.original_name or spec.name),
        ("title", _title(spec)),
        ("server", spec.server or ""),
        ("description", spec.description),
    ]
    for name, about in _parameters(spec.parameters):
        fields += [("parameter", name), ("parameter description", about)]
    terms: dict[str, float] = {}
    read = 0
    for field, text in fields:
        weight = WEIGHTS[field]
        words = stem_words(text)[: min(MAX_FIELD_TERMS, MAX_DOCUMENT_TERMS - read)]
        read += len(words)
        for word in words:
            terms[word] = min(terms.get(word, 0.0) + weight, MAX_TERM_WEIGHT)
    named = frozenset(stem_words(spec.original_name or spec.name)[:MAX_FIELD_TERMS])
    return Document(spec, terms, sum(terms.values()) or 1.0, named)


def _title(spec: ToolSpec) -> str:
    title = (spec.annotations or {}).get("title")
    return title if isinstance(title, str) else ""


def _parameters(schema: dict[str, Any]) -> Iterable[tuple[str, str]]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name, body in list(properties.items())[:MAX_FIELD_TERMS]:
        about = body.get("description") if isinstance(body, dict) else None
        yield str(name), about if isinstance(about, str) else ""


class ToolIndex:
    """The index of one set of tools; rebuilt when the set changes, reusing each unchanged
    tool's document (the specs are kept while the configuration is unchanged)."""

    def __init__(self, specs: Sequence[ToolSpec], previous: ToolIndex | None = None) -> None:
        known: dict[int, Document] = previous._by_identity if previous is not None else {}
        self.documents: list[Document] = []
        for spec in specs:
            doc = known.get(id(spec))
            self.documents.append(doc if doc is not None and doc.spec is spec else document(spec))
        self._by_identity: dict[int, Document] = {id(doc.spec): doc for doc in self.documents}
        # Each server by the words of its name: a query holding them all names the server.
        self._servers = {
            doc.spec.server: frozenset(stem_words(doc.spec.server))
            for doc in self.documents
            if doc.spec.server and stem_words(doc.spec.server)
        }
        # A word in the tool names of one server only ("jira", "kubectl") names that server.
        owners: dict[str, set[str]] = {}
        for doc in self.documents:
            for word in doc.name:
                owners.setdefault(word, set()).add(doc.spec.server or "")
        self._owner = {
            word: next(iter(servers))
            for word, servers in owners.items()
            if len(servers) == 1 and "" not in servers
        }
        self._postings: dict[str, list[tuple[int, float]]] = {}
        for number, doc in enumerate(self.documents):
            for term, weight in doc.terms.items():
                self._postings.setdefault(term, []).append((number, weight))
        # Names written as one word ("worklog", "heapsnapshot") also answer to their parts,
        # where both parts are words of this index: "log work" finds jira_add_worklog.
        vocabulary = self._postings.keys()
        for number, doc in enumerate(self.documents):
            for term in _compound_parts(doc.name, vocabulary) - doc.terms.keys():
                self._postings.setdefault(term, []).append((number, COMPOUND_PART_WEIGHT))
        count = len(self.documents)
        self._average = _typical_length(self.documents)
        self._idf = {
            term: math.log(1 + (count - len(hits) + 0.5) / (len(hits) + 0.5))
            for term, hits in self._postings.items()
        }

    def search(self, query: str, limit: int) -> list[ToolSpec]:
        """The `limit` best tools for `query`, best first (none when nothing matches)."""
        exact = self._exact(query)
        if exact is not None:
            return [exact]
        candidates, query = self._scope(query)
        scores = self._scores(query, candidates)
        ranked = sorted(scores, key=lambda number: (-scores[number], number))
        if not ranked and candidates is not None:
            ranked = sorted(candidates)  # `server:` alone: that server's tools, as listed
        words = set(stem_words(query))
        named = {server for server, own in self._servers.items() if own <= words}
        named.update(self._owner[word] for word in words if word in self._owner)
        return [self.documents[n].spec for n in _spread(ranked, self.documents, limit, named)]

    def _exact(self, query: str) -> ToolSpec | None:
        wanted = query.strip().lower()
        for doc in self.documents:
            if wanted in (doc.spec.name.lower(), (doc.spec.original_name or "").lower()):
                return doc.spec
        return None

    def _scope(self, query: str) -> tuple[set[int] | None, str]:
        """`server:` or `server: words`: that server's tools only, ranked by the words."""
        prefix = _SERVER_PREFIX.match(query)
        if prefix is None:
            return None, query
        server, rest = prefix.group(1).lower(), prefix.group(2)
        own = {n for n, doc in enumerate(self.documents) if (doc.spec.server or "") == server}
        return (own, rest) if own else (None, query)

    def _scores(self, query: str, candidates: set[int] | None) -> dict[int, float]:
        scores: dict[int, float] = {}
        average = self._average
        wanted = expand(stem_words(query)[:MAX_QUERY_TERMS])
        for term, weight in wanted.items():
            idf = self._idf.get(term)
            if idf is None:
                continue
            for number, frequency in self._postings[term]:
                if candidates is not None and number not in candidates:
                    continue
                length = self.documents[number].length
                saturated = frequency * (K1 + 1) / (frequency + K1 * (1 - B + B * length / average))
                scores[number] = scores.get(number, 0.0) + weight * idf * saturated
        for number in scores:
            name = self.documents[number].name
            if name:
                covered = sum(wanted.get(word, 0.0) for word in name) / len(name)
                scores[number] += NAME_COVERAGE * covered
        return scores


def _compound_parts(name: Iterable[str], vocabulary: Iterable[str]) -> set[str]:
    """The stems of the two words each long name word is made of, when both are known."""
    known = vocabulary if isinstance(vocabulary, (set, frozenset, dict)) else set(vocabulary)
    parts: set[str] = set()
    for word in name:
        for cut in range(MIN_COMPOUND_PART, len(word) - MIN_COMPOUND_PART + 1):
            first, second = stem(word[:cut]), stem(word[cut:])
            if first in known and second in known:
                parts.update((first, second))
    return parts


def _typical_length(documents: Sequence[Document]) -> float:
    """The length BM25 compares each tool with: the median of each server's median, so one
    server's many long descriptions cannot make long descriptions look ordinary."""
    by_server: dict[str | None, list[float]] = {}
    for doc in documents:
        by_server.setdefault(doc.spec.server, []).append(doc.length)
    medians = sorted(statistics.median(lengths) for lengths in by_server.values())
    return statistics.median(medians) if medians else 1.0


def _spread(ranked: list[int], documents: list[Document], limit: int, named: set[str]) -> list[int]:
    """The first `limit` of `ranked`, one server taking at most about half of them unless the
    query names it; places left over are filled in rank order."""
    share = max(1, math.ceil(limit / 2))
    chosen: list[tuple[int, int]] = []  # (rank, document)
    passed: list[tuple[int, int]] = []
    taken: dict[str | None, int] = {}
    for rank, number in enumerate(ranked):
        if len(chosen) == limit:
            break
        server = documents[number].spec.server
        if server in named or taken.get(server, 0) < share:
            chosen.append((rank, number))
            taken[server] = taken.get(server, 0) + 1
        else:
            passed.append((rank, number))
    chosen.extend(passed[: limit - len(chosen)])
    return [number for _rank, number in sorted(chosen)]


class IndexKeeper:
    """The index of the set of tools deferred now, built in a worker thread as soon as the set
    is known (a request that defers them starts it), so the model's first search, a model
    answer later, finds it ready: indexing a thousand tools takes longer than a search."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._built: tuple[tuple[int, ...], ToolIndex] | None = None
        self._building: tuple[tuple[int, ...], threading.Thread] | None = None

    def prepare(self, specs: Sequence[ToolSpec]) -> None:
        """Start indexing `specs` unless their index is built or being built."""
        key = tuple(map(id, specs))
        with self._lock:
            if (self._built and self._built[0] == key) or (
                self._building and self._building[0] == key
            ):
                return
            thread = threading.Thread(
                target=self._build, args=(key, list(specs)), name="index-tools", daemon=True
            )
            self._building = (key, thread)
        thread.start()

    def index(self, specs: Sequence[ToolSpec]) -> ToolIndex:
        """The index of `specs`: the one built or being built, else built now."""
        key = tuple(map(id, specs))
        with self._lock:
            building = self._building
        if building is not None and building[0] == key:
            building[1].join()
        with self._lock:
            if self._built is not None and self._built[0] == key:
                return self._built[1]
        return self._build(key, list(specs))

    def _build(self, key: tuple[int, ...], specs: list[ToolSpec]) -> ToolIndex:
        with self._lock:
            previous = self._built[1] if self._built is not None else None
        index = ToolIndex(specs, previous)
        with self._lock:
            self._built = (key, index)
        return index
