"""A chat's history: its messages, each with its number in the session file, the session
memory from compaction, and the usage so far. It is the one path to the session file, so the
file and the history in memory always agree (compaction and resume depend on it)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, overload

from agent.chat.summary import summarize
from agent.messages import Message, Usage
from agent.model import ChatModel
from agent.session.compaction import NothingToCompactError, split_point
from agent.session.events import CompactionEvent, SessionEvent, UsageEvent, message_event
from agent.text import plural


class Recorder(Protocol):
    """Receives every event worth keeping (the session recorder implements it)."""

    def record(self, event: SessionEvent) -> int | None: ...


class History(Sequence[Message]):
    """The messages the next request sends after the system prompt, and what goes with them."""

    def __init__(self, recorder: Recorder | None = None) -> None:
        self.recorder = recorder
        self._messages: list[Message] = []
        self._numbers: list[int | None] = []  # aligned with the messages: each one's n in the file
        self._memory: str | None = None
        self._usage = Usage()

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...
    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        return self._messages[index]

    def __len__(self) -> int:
        return len(self._messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(self._messages)

    @property
    def numbers(self) -> list[int | None]:
        """Each message's number in the session file (None: it could not be written)."""
        return list(self._numbers)

    @property
    def memory(self) -> str | None:
        """The session memory compaction wrote, if any."""
        return self._memory

    @property
    def usage(self) -> Usage:
        """Tokens and cost of every request of this session so far."""
        return self._usage

    def record(self, event: SessionEvent) -> int | None:
        """Hand an event to the session recorder, if there is one; a message's number back."""
        if self.recorder is not None:
            return self.recorder.record(event)
        return None

    def add(self, message: Message) -> None:
        """Append a message and record it, so the session file matches the history."""
        self._messages.append(message)
        self._numbers.append(self.record(message_event(message)))

    def add_usage(self, usage: Usage) -> None:
        """Count a request's usage and record it."""
        self._usage = self._usage + usage
        self.record(UsageEvent(usage))

    def reset(self) -> None:
        """Start over: no messages, no memory, no usage."""
        self._messages, self._numbers = [], []
        self._memory, self._usage = None, Usage()

    def restore(
        self,
        messages: Sequence[Message],
        numbers: Sequence[int | None],
        usage: Usage,
        memory: str | None,
    ) -> None:
        """Take over a resumed session's rebuilt history.

        Messages numbered None (results that repair added) exist only in memory: they are
        written now, so the file and the history agree again.
        """
        self._messages = list(messages)
        self._numbers = [
            self.record(message_event(message)) if number is None else number
            for message, number in zip(messages, numbers, strict=True)
        ]
        self._usage, self._memory = usage, memory

    async def compact(
        self, model: ChatModel, keep_recent_turns: int = 2, focus: str | None = None
    ) -> tuple[str, int]:
        """Summarise older turns into session memory; returns (summary, messages compacted).

        The compacted events stay in the session file; the compaction event says through
        which file message the memory reaches.
        """
        cut = split_point(self._messages, keep_recent_turns)
        if cut == 0:
            raise NothingToCompactError(
                "nothing to compact yet: the conversation has at most "
                f"{plural(keep_recent_turns, 'turn')}"
            )
        older = self._messages[:cut]
        summary, usage = await summarize(model, self._memory, older, focus)
        known = [n for n in self._numbers[:cut] if n is not None]
        through = max(known) if known else cut
        self._messages, self._numbers = self._messages[cut:], self._numbers[cut:]
        self._memory = summary
        self.add_usage(usage)
        self.record(CompactionEvent(summary, through))
        return summary, len(older)
