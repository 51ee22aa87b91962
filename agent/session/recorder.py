"""The chat's link to its session file: created at the first event, switched on resume/new."""

from __future__ import annotations

from pathlib import Path

from agent.session.events import SessionEvent
from agent.session.store import LoadedSession, SessionWriter


class SessionRecorder:
    """Records a conversation's events; no file exists until there is something to keep."""

    def __init__(
        self, project: Path, model: str, folder: Path | None = None, *, one_shot: bool = False
    ) -> None:
        self.project = project
        self.model = model
        self.folder = folder
        self.one_shot = one_shot  # a new file says it holds an `agent -p` run, not a chat
        self.writer: SessionWriter | None = None
        self.problems: list[str] = []

    @property
    def session_id(self) -> str | None:
        return self.writer.header.id if self.writer else None

    @property
    def path(self) -> Path | None:
        """The session file, once there is one."""
        return self.writer.path if self.writer else None

    @property
    def message_count(self) -> int:
        return self.writer.message_count if self.writer else 0

    def record(self, event: SessionEvent) -> int | None:
        """Write the event (creating the file first); returns a message event's number.

        A failed write (disk full, say) must not end the chat: it is kept in `problems`
        for the terminal to show once, and the conversation goes on unsaved.
        """
        try:
            if self.writer is None:
                self.writer = SessionWriter.create(
                    self.project, self.model, self.folder, one_shot=self.one_shot
                )
            return self.writer.record(event)
        except OSError as error:
            if not self.problems:
                self.problems.append(
                    f"the session could not be saved ({error.strerror or error}); "
                    "the chat goes on but this part may be lost"
                )
            return None

    def continue_file(self, loaded: LoadedSession, message_count: int) -> None:
        """Append from now on to a resumed session's own file."""
        self.close()
        self.writer = SessionWriter.append_to(loaded.path, loaded.header, message_count)

    def start_new(self) -> None:
        """The next event starts a new session file."""
        self.close()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
