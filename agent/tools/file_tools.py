"""write_file and edit_file: the built-in tools that change the project's files.

Every call asks the person (requires_approval, no "always"). The approval shows the path on
top, a warning when git or a hook manager runs the file later, outside any sandbox
(agent.tools.later_run_files: allowed, since the person sees the whole diff and may well want
a hook changed), and the exact diff the call makes (agent.tools.file_diff), worked out by
`preview` from the file as it is then; the run writes exactly that change, and only if the
file still holds what the preview read: if it changed meanwhile, nothing is written and the
model is told. A call that cannot run as asked (outside the project, an edit whose text is
not there once) is refused before anyone is asked (CallRefusedError). Every change made is
handed to the chat's ChangeJournal, which keeps what the file held before, for /undo.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent.messages import ToolResult
from agent.text import plural
from agent.tools.base import CallRefusedError, ToolSpec
from agent.tools.credential_files import key_refusal, link_refusal, private_key_in
from agent.tools.credential_links import CredentialLinks
from agent.tools.file_diff import capped, changed_counts, diff_lines
from agent.tools.file_writing import (
    WRITE_LIMIT_BYTES,
    FileRefusedError,
    FileState,
    Target,
    current_state,
    locate,
    replace_file,
)
from agent.tools.later_run_files import later_run_reason

_PLANS_KEPT = 8  # previews waiting for their run (one at a time in practice)
_COUNT_LIMIT = 1000  # matches of an edit's old text counted before "at least"


@dataclass(frozen=True)
class FileChange:
    """One change made to a file: what it held before (None: there was no file) and after."""

    path: str  # relative to the project, resolved
    tool: str
    action: str  # "created", "overwrote" or "edited"
    before: bytes | None
    after: bytes
    folders_made: int = 0  # the deepest folders of `path` the write made (/undo takes them)


class ChangeJournal(Protocol):
    """Keeps every change made, for /undo and /changes (agent.chat.file_changes)."""

    def record(self, change: FileChange) -> str | None:
        """Keep the change; a note for the model when it could not be kept for undo."""
        ...


@dataclass(frozen=True)
class Plan:
    """A change worked out for the approval: the file as it was read, and what it becomes."""

    target: Target
    before: FileState
    after: bytes
    action: str
    lines: tuple[str, ...]  # what the approval shows


class FileChanger:
    """What write_file and edit_file share: the fence, the plans shown, the write, the record."""

    def __init__(
        self, project: Path, private: Sequence[Path], journal: ChangeJournal | None
    ) -> None:
        self.project = project
        self.private = tuple(private)
        self.journal = journal
        self._plans: OrderedDict[str, Plan] = OrderedDict()

    def target(self, relative: str) -> tuple[Target, FileState]:
        """The file and what it holds now; CallRefusedError when it is not one to change."""
        try:
            target = locate(self.project, relative, self.private)
            state = current_state(target)
        except FileRefusedError as error:
            raise CallRefusedError(str(error)) from None
        # edit_file's "not found" and "occurs 3 times" would tell the model, without a question,
        # what a key holds, guess by guess; and a key is not the model's to overwrite.
        if state.content is not None and private_key_in(state.content):
            raise CallRefusedError(key_refusal(relative, "change"))
        links = CredentialLinks(self.private, project=self.project)
        linked_to = None if state.status is None else links.linked_to(state.status)
        if linked_to is not None:  # the same for a token file under another name
            raise CallRefusedError(link_refusal(relative, linked_to, "change"))
        if state.content is not None and not _is_text(state.content):
            raise CallRefusedError(
                f"{target.shown} is not UTF-8 text (binary, or another encoding); the file "
                "tools change text files only"
            )
        return target, state

    def plan(self, key: str, target: Target, before: FileState, after: str, action: str) -> Plan:
        """Remember the change the approval will show, under the call's own key."""
        try:
            data = after.encode("utf-8")
        except UnicodeEncodeError:
            raise CallRefusedError("the new text is not valid Unicode (a lone surrogate)") from None
        if len(data) > WRITE_LIMIT_BYTES:
            raise CallRefusedError(
                f"the new content is {plural(len(data), 'byte')}, over the file tools' limit "
                f"of {plural(WRITE_LIMIT_BYTES, 'byte')}"
            )
        if before.content == data:
            raise CallRefusedError(f"{target.shown} already holds exactly this; nothing to change")
        old = None if before.content is None else before.content.decode("utf-8")
        diff = diff_lines(target.shown, old, after)
        lines = _summary(plan_head(target, before, data, action), diff)
        why = later_run_reason(target.project, target.path)
        if why is not None:  # allowed, the diff is shown whole; but the person must know
            lines.insert(2, f"warning: git runs this later, outside any sandbox ({why})")
        plan = Plan(target, before, data, action, tuple(lines))
        self._plans[key] = plan
        self._plans.move_to_end(key)
        while len(self._plans) > _PLANS_KEPT:
            self._plans.popitem(last=False)
        return plan

    def take(self, key: str) -> Plan | None:
        return self._plans.pop(key, None)

    def apply(self, plan: Plan, tool: str) -> ToolResult:
        """Make the change shown, if the file is still as it was shown."""
        try:
            made = replace_file(plan.target, plan.after, plan.before)
        except FileRefusedError as error:
            return ToolResult(str(error), is_error=True)
        except OSError as error:
            return ToolResult(
                f"{plan.target.shown} could not be written ({error.strerror or error})",
                is_error=True,
            )
        note = None
        if self.journal is not None:
            before = plan.before.content
            note = self.journal.record(
                FileChange(plan.target.shown, tool, plan.action, before, plan.after, made)
            )
        text = f"{plan.action} {plan.target.shown} ({plan.lines[1]})"
        return ToolResult(text if note is None else f"{text}; {note}")


def plan_head(target: Target, before: FileState, after: bytes, action: str) -> str:
    """The approval's first line: the path, and what happens to the file."""
    size = plural(len(after), "byte")
    if action == "created":
        return f"file: {target.shown} (new file, {size})"
    verb = "overwrite all of it" if action == "overwrote" else "edit"
    return f"file: {target.shown} ({verb}: {plural(len(before.content or b''), 'byte')} → {size})"


def _summary(head: str, diff: list[str]) -> list[str]:
    removed, added = changed_counts(diff)
    counts = f"{plural(removed, 'line')} removed, {plural(added, 'line')} added"
    return [head, counts, *capped(diff)]


def call_key(tool: str, arguments: dict[str, Any]) -> str:
    """The same call (tool and arguments) has the same key, from preview to run."""
    return tool + "\0" + json.dumps(arguments, sort_keys=True, ensure_ascii=True)


def _is_text(content: bytes) -> bool:
    if b"\0" in content:
        return False
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class _FileTool(ABC):
    """A tool that changes one file: the preview plans the change, the run makes it."""

    name = ""

    def __init__(self, changer: FileChanger) -> None:
        self.changer = changer

    @abstractmethod
    def preview(self, arguments: dict[str, Any]) -> list[str]:
        """Plan the change (kept under the call's key) and return what the approval shows."""

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self._run, arguments)

    def _run(self, arguments: dict[str, Any]) -> ToolResult:
        plan = self.changer.take(call_key(self.name, arguments))
        if plan is None:  # not previewed (no approval asked): work it out now
            try:
                self.preview(arguments)
            except CallRefusedError as error:
                return ToolResult(str(error), is_error=True)
            plan = self.changer.take(call_key(self.name, arguments))
            assert plan is not None
        return self.changer.apply(plan, self.name)


class WriteFile(_FileTool):
    """Create a file of the project, or replace all of its content."""

    name = "write_file"

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=(
                "Create a text file in the project directory, or replace all of an existing "
                "file's content. `path` is relative to the project; missing folders are made. "
                "The person approves each call after seeing the change. To change part of a "
                "file, use edit_file."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "path relative to the project"},
                    "content": {"type": "string", "description": "the file's whole new content"},
                },
                "required": ["path", "content"],
                "additionalProperties": False,
            },
            requires_approval=True,
            source="built-in",
        )

    def preview(self, arguments: dict[str, Any]) -> list[str]:
        target, before = self.changer.target(str(arguments["path"]))
        action = "overwrote" if before.exists else "created"
        key = call_key(self.name, arguments)
        plan = self.changer.plan(key, target, before, str(arguments["content"]), action)
        return list(plan.lines)


class EditFile(_FileTool):
    """Replace one exact piece of text of a project file with another."""

    name = "edit_file"

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=(
                "Edit a text file in the project directory: replace `old_text`, which must "
                "occur exactly once in the file (same characters, spaces and line breaks; "
                "include enough lines around it to make it unique), with `new_text`. "
                "The person approves each call after seeing the diff."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "path relative to the project"},
                    "old_text": {"type": "string", "description": "the exact text to replace"},
                    "new_text": {"type": "string", "description": "the text to put in its place"},
                },
                "required": ["path", "old_text", "new_text"],
                "additionalProperties": False,
            },
            requires_approval=True,
            source="built-in",
        )

    def preview(self, arguments: dict[str, Any]) -> list[str]:
        target, before = self.changer.target(str(arguments["path"]))
        old_text, new_text = str(arguments["old_text"]), str(arguments["new_text"])
        if before.content is None:
            raise CallRefusedError(f"{target.shown} does not exist; write_file creates a new file")
        text = before.content.decode("utf-8")
        if not old_text:
            raise CallRefusedError("old_text is empty; give the exact text to replace")
        if old_text == new_text:
            raise CallRefusedError("old_text and new_text are the same; nothing to change")
        start = text.find(old_text)
        count = _occurrences(text, old_text)
        if count != 1:
            raise CallRefusedError(_not_once(target.shown, text, old_text, count))
        after = text[:start] + new_text + text[start + len(old_text) :]
        plan = self.changer.plan(call_key(self.name, arguments), target, before, after, "edited")
        return list(plan.lines)


def _occurrences(text: str, part: str) -> int:
    """How often `part` occurs in `text`, overlaps included (up to _COUNT_LIMIT)."""
    count, start = 0, text.find(part)
    while start >= 0 and count < _COUNT_LIMIT:
        count += 1
        start = text.find(part, start + 1)
    return count


def _not_once(path: str, text: str, old_text: str, count: int) -> str:
    if count == 0:
        hint = ""
        if "\r\n" in text and "\n" in old_text and "\r\n" not in old_text:
            hint = " (the file's lines end in CRLF, \\r\\n)"
        return (
            f"old_text was not found in {path}{hint}; nothing changed. Read the file and give "
            "the exact text, with its spaces and line breaks"
        )
    many = plural(count, "time")
    many = f"at least {many}" if count >= _COUNT_LIMIT else many
    return (
        f"old_text occurs {many} in {path}; nothing changed. It must occur exactly once: "
        "include more of the lines around it"
    )
