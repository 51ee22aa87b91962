"""The instruction files' section of the system prompt, within a size budget.

The person's own file comes first, then the project's, outermost first (the nearer a folder is
to the working directory, the later and more specific its file). Project files count only once
the person trusted them. The budget bounds the files' bytes together: the file that crosses it
is cut (with a marker the model sees), the ones after it are left out, and `cut_note` says so
for the person: never silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.skills.instruction_files import InstructionFile, InstructionFiles
from agent.text import sanitize_line

DEFAULT_BUDGET_BYTES = 32 * 1024
TRUST_HINT = "run `agent skills trust` in the project (it covers instruction files too)"
SECTION_HEAD = (
    "Instructions from instruction files the person chose to use (their own, then the "
    "project's, outermost folder first; a later file is more specific):"
)
_CLOSE = re.compile(r"</(instructions)", re.IGNORECASE)

# Folder names come from the repository: a label must stay one line and inside its attribute.
_ATTRIBUTE_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})


def frame_label(label: str) -> str:
    """A file's label as the frame's attribute: one line, no `<`, `>` or `"` that could close it."""
    return sanitize_line(label).translate(_ATTRIBUTE_ESCAPES)


@dataclass(frozen=True)
class FittedFile:
    """One file as it goes into the prompt: its text, and how many of its bytes were kept."""

    file: InstructionFile
    text: str
    cut: bool  # shortened, by the budget or by the read cap

    @property
    def kept_bytes(self) -> int:
        """The size of what goes in, in bytes of UTF-8."""
        return len(self.text.encode("utf-8"))


@dataclass
class ProjectInstructions:
    """One chat's instruction files, whether the project's may be used, and the budget."""

    files: InstructionFiles
    budget_bytes: int = DEFAULT_BUDGET_BYTES
    project_trusted: bool = False  # every project file found (else those in trusted_labels)
    trusted_labels: frozenset[str] = frozenset()  # each trusted as read (see skills/trust.py)

    def _trusted(self, file: InstructionFile) -> bool:
        return self.project_trusted or file.label in self.trusted_labels

    def used(self) -> list[InstructionFile]:
        """The files that may reach the model, in prompt order."""
        return [*self.files.user, *(f for f in self.files.project if self._trusted(f))]

    def untrusted(self) -> list[InstructionFile]:
        """The project's files kept out of the prompt until the person trusts them."""
        return [f for f in self.files.project if not self._trusted(f)]

    def fitted(self) -> tuple[list[FittedFile], list[InstructionFile]]:
        """The files that go in (the last maybe cut), and those left out by the budget."""
        room = self.budget_bytes
        kept: list[FittedFile] = []
        left_out: list[InstructionFile] = []
        for file in self.used():
            if room <= 0:
                left_out.append(file)
                continue
            text = file.text
            encoded = text.encode("utf-8")
            cut = len(file.data) < file.size
            if len(encoded) > room:
                # Cut on a character boundary: the re-encoded text is valid UTF-8 throughout.
                text = encoded[:room].decode("utf-8", errors="ignore")
                cut = True
            # After a cut file nothing more goes in: a few bytes of the next are no help.
            room = 0 if cut else room - len(encoded)
            kept.append(FittedFile(file, text, cut))
        return kept, left_out

    def section(self) -> str:
        """The system prompt section ("" when no file is used)."""
        kept, _left_out = self.fitted()
        if not kept:
            return ""
        blocks = [SECTION_HEAD]
        for fitted in kept:
            # A file must not end its frame early and go on as if outside it.
            body = _CLOSE.sub(r"&lt;/\1", fitted.text)
            marker = ""
            if fitted.cut:
                marker = (
                    f"\n[cut here: the file has {fitted.file.size} bytes; "
                    f"{fitted.kept_bytes} fit the instruction files' budget]"
                )
            label = frame_label(fitted.file.label)
            blocks.append(f'<instructions file="{label}">\n{body}{marker}\n</instructions>')
        return "\n\n".join(blocks)

    def cut_note(self) -> str | None:
        """What the budget cut or left out, for the person; None when everything fit."""
        kept, left_out = self.fitted()
        parts = [
            f"{f.file.label} cut to {f.kept_bytes:,} of {f.file.size:,} bytes"
            for f in kept
            if f.cut
        ]
        parts.extend(f"{file.label} left out" for file in left_out)
        if not parts:
            return None
        return (
            f"Instruction files over the budget of {self.budget_bytes:,} bytes "
            f"(instructions.budget_bytes in settings.yaml): {'; '.join(parts)}"
        )

    def untrusted_note(self) -> str | None:
        """The project's files that stay out, and how to let them in; None when none."""
        untrusted = self.untrusted()
        if not untrusted:
            return None
        names = ", ".join(file.label for file in untrusted)
        return f"Project instruction files not trusted, not in the prompt: {names}; {TRUST_HINT}"
