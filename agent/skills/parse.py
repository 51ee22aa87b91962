"""One SKILL.md file: frontmatter and body, checked against the Agent Skills specification.

Lenient where the meaning is clear (a warning; the skill loads), skipped where it is not (an
error). Decisions beyond the spec:
- A missing or unusable `name` falls back to the directory name with a warning: the spec makes
  the two equal, so the directory says what the name was meant to be.
- Frontmatter values keep their text: `version: 1.10` stays "1.10", `on: yes` stays "yes",
  `date: 2025-01-01` stays "2025-01-01". Only plain `~`, `null` and empty values are null;
  `disable-model-invocation` reads true/yes/on or false/no/off from its text.
- An unquoted `: ` in a value (`description: Use when: ...`) breaks YAML; such values are
  quoted and the frontmatter parsed once more, with a warning saying what to fix.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from agent.skills.model import FLAG_FALSE, FLAG_TRUE, Diagnostic, Scope, Skill, SkippedSkill
from agent.skills.names import name_problems
from agent.text import plural

try:  # libyaml: discovery parses every skill at every start
    from yaml import CBaseLoader as _NodeLoader
except ImportError:  # pragma: no cover (PyYAML built without libyaml)
    from yaml import BaseLoader as _NodeLoader  # type: ignore[assignment]

SKILL_FILE = "SKILL.md"
MAX_DESCRIPTION_LENGTH = 1024
MAX_COMPATIBILITY_LENGTH = 500
SPEC_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
KNOWN_KEYS = (*SPEC_KEYS, "disable-model-invocation")

_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_MAX_VALUES = 10_000
# `key: value` where the value is a plain (unquoted, not block, not flow) scalar.
_PLAIN_VALUE_LINE = re.compile(
    r"^(?P<head>[ \t]*[^\s#'\"?:\-\[\]{}][^:#]*?:[ \t]+)"
    r"(?P<value>[^\s'\"|>\[\]{}&*!%@`#].*?)[ \t]*$"
)
_COLON_IN_VALUE = re.compile(r":(?:[ \t]|$)")
_BLOCK_SCALAR_START = re.compile(
    r"^(?P<indent>[ \t]*)[^#\s][^#]*:[ \t]+[|>][-+0-9]*[ \t]*(?:#.*)?$"
)
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")
_DELIMITER = re.compile(r"^---[ \t]*$", re.MULTILINE)

_Warn = Callable[[str], None]


class _NodeOnlyLoader(_NodeLoader):
    """Parses YAML into nodes only; _to_text_data builds the values (PyYAML's constructor and
    resolver are most of its time, and would turn `1.10` into a float)."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        return ""  # tags are not used: every scalar stays text


def parse_skill_file(path: Path, scope: Scope) -> Skill | SkippedSkill:
    """Read and check one SKILL.md; a SkippedSkill says why it cannot be used."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return _skipped(path, scope, f"no such file; a skill is a folder holding a {SKILL_FILE}")
    except IsADirectoryError:
        return _skipped(path, scope, f"is a folder; a skill's instructions are in {SKILL_FILE}")
    except OSError as error:
        return _skipped(path, scope, f"cannot be read: {error.strerror or error}")
    return parse_skill_bytes(data, path, scope)


def parse_skill_bytes(data: bytes, path: Path, scope: Scope) -> Skill | SkippedSkill:
    """Check the contents of the SKILL.md at `path` (already read)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return _skipped(path, scope, not_utf8(data, error))
    diagnostics: list[Diagnostic] = []
    split = read_frontmatter(text, diagnostics)
    if isinstance(split, Diagnostic):
        return SkippedSkill(path, scope, (split,))
    frontmatter, body = split
    return _check(frontmatter, body, data, path, scope, diagnostics)


def not_utf8(data: bytes, error: UnicodeDecodeError) -> str:
    """What to say of a file that is not UTF-8 (the byte and its line, never the text)."""
    line = data.count(b"\n", 0, error.start) + 1
    byte = data[error.start]
    return f"is not UTF-8 text (byte 0x{byte:02x} on line {line}); save it as UTF-8"


def read_frontmatter(
    text: str, diagnostics: list[Diagnostic]
) -> tuple[dict[str, Any], str] | Diagnostic:
    """A Markdown file's frontmatter fields (every value text, see _to_text_data) and its body,
    or the error that keeps it from being read; warnings go into `diagnostics`. Shared by
    SKILL.md files and subagent definitions (agent_definitions.py)."""
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    first_end = text.find("\n")
    if (text if first_end < 0 else text[:first_end]).rstrip() != "---":
        return Diagnostic(
            "error",
            "has no frontmatter: the file must start with a line ---, then name: and "
            "description:, then a line ---",
        )
    # The first later line that is exactly `---` closes it: an indented `---` inside a block
    # value, or one in the body further down, is not a delimiter.
    close = _DELIMITER.search(text, first_end + 1) if first_end >= 0 else None
    if close is None:
        return Diagnostic(
            "error",
            "the frontmatter opened on line 1 is never closed: add a line --- after its last field",
        )
    loaded = _load_frontmatter(text[first_end + 1 : close.start()], diagnostics)
    if isinstance(loaded, Diagnostic):
        return loaded
    if not isinstance(loaded, dict):
        what = "empty" if loaded is None else f"{describe_value(loaded)}, not fields"
        return Diagnostic(
            "error", f"the frontmatter is {what}: write fields such as name: and description:"
        )
    frontmatter = {str(key): value for key, value in loaded.items()}
    body = _LEADING_BLANK_LINES.sub("", text[close.end() :]).rstrip()
    return frontmatter, body


def _load_frontmatter(block: str, diagnostics: list[Diagnostic]) -> object:
    """The YAML value of the frontmatter, or an error Diagnostic when it cannot be read."""
    try:
        return _load_yaml(block, diagnostics)
    except yaml.YAMLError as error:
        first_error = error
    quoted, fields = _quote_colon_values(block)
    if fields:
        try:
            value = _load_yaml(quoted, diagnostics)
        except yaml.YAMLError:
            pass
        else:
            holds = f"{', '.join(fields)} {'holds' if len(fields) == 1 else 'hold'}"
            diagnostics.append(
                Diagnostic(
                    "warning",
                    f"the frontmatter is not valid YAML ({_yaml_problem(first_error)}): "
                    f'{holds} ": " unquoted; read as if quoted: put the value in double quotes',
                )
            )
            return value
    return Diagnostic("error", f"the frontmatter is not valid YAML ({_yaml_problem(first_error)})")


def _load_yaml(block: str, diagnostics: list[Diagnostic]) -> object:
    loader = _NodeOnlyLoader(block)
    try:
        node = loader.get_single_node()
    except RecursionError:  # the pure-Python composer (no libyaml) recurses once per level
        raise yaml.YAMLError("nested too deeply") from None
    finally:
        loader.dispose()
    if node is None:
        return None
    duplicates: list[str] = []
    try:
        value = _to_text_data(node, [_MAX_VALUES], duplicates)
    except RecursionError:
        raise yaml.YAMLError("nested too deeply") from None
    for key in dict.fromkeys(duplicates):
        diagnostics.append(Diagnostic("warning", f"{key!r} appears twice; the last one is used"))
    return value


def _to_text_data(node: yaml.Node, budget: list[int], duplicates: list[str]) -> Any:
    """Text, lists and dicts: every scalar is its text, except plain `~`, null and empty.

    Tags are ignored (`!!float 1.10` is "1.10" too). Aliases are copied, within a budget of
    values, so `&a [*a]` or nested aliases cannot make a small file huge. Repeated keys are
    recorded; the last one wins, as in PyYAML.
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise yaml.YAMLError(f"more than {_MAX_VALUES} values (aliases included)")
    if isinstance(node, yaml.ScalarNode):
        plain = not node.style  # None from PyYAML, "" from libyaml
        return None if plain and node.value in _NULLS else str(node.value)
    if isinstance(node, yaml.SequenceNode):
        return [_to_text_data(item, budget, duplicates) for item in node.value]
    mapping: dict[str, Any] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise yaml.MarkedYAMLError(
                problem="a key must be text, not a list or map", problem_mark=key_node.start_mark
            )
        key = str(key_node.value)
        if key in mapping:
            duplicates.append(key)
        mapping[key] = _to_text_data(value_node, budget, duplicates)
    return mapping


def _quote_colon_values(block: str) -> tuple[str, list[str]]:
    """`key: a: b` becomes `key: "a: b"`; other lines are left alone. Also: the keys quoted."""
    lines = []
    fields = []
    block_indent: int | None = None  # inside a `key: |` block, whose lines are text already
    for line in block.split("\n"):
        indent = len(line) - len(line.lstrip(" \t"))
        if block_indent is not None and (not line.strip() or indent > block_indent):
            lines.append(line)
            continue
        block_indent = None
        if start := _BLOCK_SCALAR_START.match(line):
            block_indent = len(start["indent"])
        elif (match := _PLAIN_VALUE_LINE.match(line)) and _COLON_IN_VALUE.search(match["value"]):
            line = match["head"] + json.dumps(match["value"], ensure_ascii=False)
            fields.append(match["head"].strip().removesuffix(":").strip())
        lines.append(line)
    return "\n".join(lines), fields


def _yaml_problem(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    if mark is None:
        return str(problem)
    # The frontmatter starts on the file's second line.
    return f"line {mark.line + 2}: {problem}"


def _check(
    frontmatter: dict[str, Any],
    body: str,
    data: bytes,
    path: Path,
    scope: Scope,
    diagnostics: list[Diagnostic],
) -> Skill | SkippedSkill:
    def warn(message: str) -> None:
        diagnostics.append(Diagnostic("warning", message))

    description = _description(frontmatter)
    if isinstance(description, Diagnostic):
        # Skipped, but every other field is still checked: `agent skills validate` lists all
        # of a file's problems at once, not one per run.
        diagnostics.append(description)
        description = ""
    elif len(description) > MAX_DESCRIPTION_LENGTH:
        warn(
            f"description is {plural(len(description), 'character')}, over the spec's "
            f"{MAX_DESCRIPTION_LENGTH}; other clients may reject it: shorten it"
        )
    name = _name(frontmatter, path, warn)
    _check_optional_fields(frontmatter, warn)
    disable = _flag(frontmatter, "disable-model-invocation", warn)
    for key in frontmatter:
        if key not in KNOWN_KEYS:
            warn(_unknown_key_message(key))
    if not body.strip():
        warn(
            "the body is empty: after the frontmatter, write the instructions the model follows "
            "when the skill is activated"
        )
    if any(d.level == "error" for d in diagnostics):
        return SkippedSkill(path, scope, tuple(diagnostics))
    return Skill(
        name=name,
        description=description,
        scope=scope,
        path=path,
        body=body,
        content_sha256=hashlib.sha256(data).hexdigest(),
        frontmatter=frontmatter,
        disable_model_invocation=disable,
        diagnostics=tuple(diagnostics),
    )


def _description(frontmatter: Mapping[str, Any]) -> str | Diagnostic:
    value = frontmatter.get("description")
    advice = "say what the skill does and when to use it"
    if value is None:
        missing = "is empty" if "description" in frontmatter else "is missing"
        return Diagnostic("error", f"description {missing}: {advice}")
    if not isinstance(value, str):
        return Diagnostic(
            "error", f"description must be text, not {describe_value(value)}: {advice}"
        )
    if not value.strip():
        return Diagnostic("error", f"description is empty: {advice}")
    return value.strip()


def _name(frontmatter: Mapping[str, Any], path: Path, warn: _Warn) -> str:
    directory = unicodedata.normalize("NFKC", path.parent.name)
    value = frontmatter.get("name")
    if not isinstance(value, str) or not value:
        what = "is missing" if value is None else f"must be text, not {describe_value(value)}"
        if value == "":
            what = "is empty"
        warn(f"name {what}; using the directory name {directory!r}: add name: {directory}")
        name = directory
    else:
        name = unicodedata.normalize("NFKC", value)
        if name != directory:
            warn(
                f"name {name!r} differs from its directory {directory!r}; loaded as {name!r}: "
                "rename one so they match"
            )
    for problem in name_problems(name):
        warn(f"name {name!r}: {problem}; loaded anyway")
    return name


def _check_optional_fields(frontmatter: Mapping[str, Any], warn: _Warn) -> None:
    license_ = frontmatter.get("license")
    if license_ is not None and not isinstance(license_, str):
        warn(f"license must be text, not {describe_value(license_)}; ignored")
    compatibility = frontmatter.get("compatibility")
    if "compatibility" in frontmatter:
        if not isinstance(compatibility, str):
            warn(f"compatibility must be text, not {describe_value(compatibility)}; ignored")
        elif not compatibility.strip():
            warn("compatibility is empty: leave it out, or say what the skill needs")
        elif len(compatibility) > MAX_COMPATIBILITY_LENGTH:
            warn(
                f"compatibility is {plural(len(compatibility), 'character')}, over the spec's "
                f"{MAX_COMPATIBILITY_LENGTH}: shorten it"
            )
    metadata = frontmatter.get("metadata")
    if "metadata" in frontmatter:
        if not isinstance(metadata, dict):
            warn(f"metadata must be a map of text values, not {describe_value(metadata)}; ignored")
        else:
            for key, value in metadata.items():
                if not isinstance(value, str):
                    warn(f"metadata.{key} must be text, not {describe_value(value)}")
    tools = frontmatter.get("allowed-tools")
    if isinstance(tools, list) and all(isinstance(tool, str) for tool in tools):
        warn(
            "allowed-tools is a list; the portable form is one space-separated line: "
            f"allowed-tools: {' '.join(tools)}"
        )
    elif tools is not None and not isinstance(tools, str):
        warn(f"allowed-tools must be space-separated text, not {describe_value(tools)}; ignored")


def _flag(frontmatter: Mapping[str, Any], key: str, warn: _Warn) -> bool:
    value = frontmatter.get(key)
    if value is None:
        return False
    text = value.strip().lower() if isinstance(value, str) else None
    if text in FLAG_TRUE:
        return True
    if text not in FLAG_FALSE:
        warn(f"{key} must be true or false, not {describe_value(value)}; read as false")
    return False


def _unknown_key_message(key: str) -> str:
    close = difflib.get_close_matches(key, KNOWN_KEYS, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"unknown field {key!r}{hint}; ignored. The spec's fields: {', '.join(SPEC_KEYS)}"


def describe_value(value: object) -> str:
    """A frontmatter value as a refusal names it: short text quoted, else its kind."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a map"
    if value is None:
        return "empty"
    return type(value).__name__


def _skipped(path: Path, scope: Scope, message: str) -> SkippedSkill:
    return SkippedSkill(path, scope, (Diagnostic("error", message),))
