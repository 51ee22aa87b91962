"""Attack: `@.GIT/config` (or `.Git/`, `.HG/`). On a file system that ignores case (macOS and
Windows by default) that is git's own folder, whose config holds remotes with tokens in their
URLs; the write tools already compare these names without case, but a mention and Tab after
`@` compared them as written, so the folder of another case was attached and offered. Here
(Linux) the folder is made with that case, which stands for the same folder there. Real files,
the real reader of mentions and the real completer."""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from agent.chat.file_attachments import read_file_mentions
from agent.ui.completion.paths import PathCompleter

TOKEN = "ghp_canary0123456789"


@pytest.mark.parametrize("folder", [".GIT", ".Git", ".HG"])
def test_version_controls_folder_in_another_case_is_neither_attached_nor_offered(
    tmp_path: Path, folder: str
) -> None:
    project = tmp_path / "project"
    (project / folder).mkdir(parents=True)
    (project / folder / "config").write_text(f"url = https://x:{TOKEN}@github.com/o/r\n")
    found = read_file_mentions(f"see @{folder}/config", project, (), 10_000, ())
    assert found.parts == [] and found.attached == []
    assert found.refused == [
        f"@{folder}/config was not attached: it is inside version control's own folder ({folder})"
    ]
    completer = PathCompleter(lambda: project, lambda: (), ())
    event = CompleteEvent(completion_requested=True)
    offered = [c.text for c in completer.get_completions(Document("@."), event)]
    offered += [c.text for c in completer.get_completions(Document(f"@{folder}/"), event)]
    assert offered == []
