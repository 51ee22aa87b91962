"""How deeply a decoded document nests, measured without recursion.

Real settings, MCP documents and frontmatter nest a few levels. A hostile file nested
thousands of levels deep makes a recursive decoder or validator raise RecursionError (or
worse, later, in code that walks the value), so readers reject anything deeper than
MAX_DEPTH with a clear error naming the file.
"""

from __future__ import annotations

MAX_DEPTH = 100


def too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and dicts in `value` nest more than `limit` levels deep."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list | tuple):
            children = list(item)
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
