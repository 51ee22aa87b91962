"""What the project walks of list_files and search_files skip, and how they match a glob.

Shared so both tools see the same files: a file list_files shows is one search_files
searches. Only the standard library: search_files' child process imports this.
"""

from __future__ import annotations

import fnmatch

# Version control, dependencies and caches: never what a question about the project is about.
SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".cache",
    }
)  # fmt: skip
DEFAULT_GLOB = "**/*"


def matches_glob(relative: str, pattern: str) -> bool:
    """Whether the project-relative path matches `pattern` (fnmatch: `*` crosses folders)."""
    # `**/` also matches files at the top level, as people expect from shells with globstar.
    return fnmatch.fnmatch(relative, pattern) or (
        pattern.startswith("**/") and fnmatch.fnmatch(relative, pattern[3:])
    )
