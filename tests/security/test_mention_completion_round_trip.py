"""Attack: a hostile repository names a file so that Tab after `@` offers one thing and the
message then means another. A mention ends at any white space (`str.isspace`), and only a
plain space is escaped when a name is offered; a name holding a no-break space or an em space
looks like one name in the menu but is cut there when the message is read. With
`notes<NBSP>@srv:private`, taking the offer attached the resource `private` of the person's
own server `srv` (read from it and sent to the model) instead of the project file the person
chose. Real files, the real completer, and the real reader of the chat's message."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from agent.chat.file_attachments import read_file_mentions
from agent.chat.mentions import find_mentions
from agent.ui.completion.paths import PathCompleter

SERVERS = ("srv",)
HOSTILE_NAMES = (
    "notes\u00a0@srv:private",  # a no-break space, then a mention of the person's server
    "plan\u2003b.txt",  # an em space: looks like a space, and is not escaped
    "ideo\u3000graphic.txt",  # an ideographic space
    "with plain space.txt",  # offered escaped: it round-trips
    "~root",  # `@~root` is root's home: offered only where it means this file (`sub/~root`)
)


def offered(project: Path, text: str) -> list[str]:
    completer = PathCompleter(lambda: project, lambda: SERVERS, ())
    event = CompleteEvent(completion_requested=True)
    return [c.text for c in completer.get_completions(Document(text), event)]


def test_every_offered_name_attaches_exactly_that_file_and_mentions_no_server(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    for name in HOSTILE_NAMES:
        (project / name).write_text(f"content of {name}\n")
        (project / "sub" / name).write_text(f"deeper {name}\n")
    offers = offered(project, "see @") + offered(project, "see @sub/") + offered(project, "@no")
    assert "with\\ plain\\ space.txt" in offers  # a plain space still works, escaped
    for text in offers:
        message = f"see @{text} please"
        assert find_mentions(message, SERVERS) == [], f"{text!r} mentions a server"
        if text.endswith("/"):
            continue
        found = read_file_mentions(message, project, SERVERS, 10_000, ())
        assert found.refused == [] and len(found.attached) == 1, (text, found)
        attached = found.attached[0]
        name = text.replace("\\ ", " ")
        assert attached.startswith(f"@{name} ("), (text, attached)
    for name in HOSTILE_NAMES[:3]:
        assert name not in offers and f"sub/{name}" not in offers
