"""Tab at the prompt: prompt_toolkit's menu completion, and going into a server or a folder.

prompt_toolkit's Tab with a menu open moves to the next entry, and past the last one back to
the text as typed. With one entry that is a container (`rs:` of `@r`, `src/` of `@sr`), the
first Tab takes it and the second went back to `@r`: a person pressing Tab again to see the
server's resources saw their word undone. Here that second Tab lists what is inside instead
(the server's resources and templates, the folder's entries), as shells and other agents do.
"""

from __future__ import annotations

from prompt_toolkit.key_binding import KeyPressEvent
from prompt_toolkit.key_binding.bindings.completion import generate_completions

# What a completion that holds more ends with: a server (`@rs:`) or a folder (`@src/`).
_CONTAINERS = (":", "/")


def complete_or_go_into(event: KeyPressEvent) -> None:
    """Tab: complete as prompt_toolkit does, but a taken lone server or folder is gone into."""
    buffer = event.current_buffer
    state = buffer.complete_state
    taken = state.current_completion if state is not None else None
    lone = state is not None and len(state.completions) == 1
    if lone and taken is not None and taken.text.endswith(_CONTAINERS):
        buffer.complete_state = None  # keep the taken text; list anew from there
        buffer.start_completion(insert_common_part=True)
        return
    generate_completions(event)
