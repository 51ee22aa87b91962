"""What README.md and docs/ say, checked against the code: commands, settings keys, links.

The docs promise behaviour (tests hold the behaviour); what these checks hold is that every
`agent ...` command, flag and settings key a page names exists, so a renamed flag or a key
that never was cannot sit in the docs unnoticed. Each function returns the problems it found,
one line each, naming the file and line.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path

from agent.cli import OPTIONS, TABLE, Arg, Exclusive

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"

# Fenced blocks whose lines are shell commands (or a terminal's transcript of them).
SHELL_BLOCKS = {"", "sh", "bash", "shell", "console", "text"}
SEPARATORS = {"|", "||", "&&", ";"}
HELP_FLAGS = {"-h", "--help"}
# `word.ext` spans that are file names, not `section.key` settings.
FILE_ENDINGS = {"py", "yaml", "yml", "json", "md", "key", "log", "png", "txt", "toml", "cfg"}
FILE_ENDINGS |= {"pem", "crt", "pub", "tfstate", "js", "html", "lock", "jsonl"}
# `word:` spans that are not settings: URL schemes and search_tools' server prefix.
NOT_SETTINGS = {"data", "file", "javascript", "http", "https", "github", "mailto"}


@dataclasses.dataclass(frozen=True)
class Snippet:
    """A piece of code in a page: its text, where it is, and the fence's language (None for
    an inline code span)."""

    path: Path
    line: int
    text: str
    language: str | None

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    """README.md and every page under docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


FENCE = re.compile(r"^```(\S*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)


def snippets(path: Path, text: str | None = None) -> Iterator[Snippet]:
    """Every fenced block's lines and every inline code span of a page."""
    text = path.read_text(encoding="utf-8") if text is None else text
    prose = text
    for fence in FENCE.finditer(text):
        first = text.count("\n", 0, fence.start(2)) + 1
        for offset, line in enumerate(fence.group(2).splitlines()):
            yield Snippet(path, first + offset, line, fence.group(1))
        # Blank the block out (keeping its line breaks) so its backticks start no span.
        blank = re.sub(r"[^\n]", " ", fence.group(0))
        prose = prose[: fence.start()] + blank + prose[fence.end() :]
    for span in SPAN.finditer(prose):
        line = prose.count("\n", 0, span.start()) + 1
        yield Snippet(path, line, " ".join(span.group(2).split()), None)


def agent_commands(snippet: Snippet) -> Iterator[list[str]]:
    """The words after `agent` of each command line in a snippet (`$ agent ...`,
    `git diff | agent -p ...`, `agent mcp list   # comment`), placeholders' brackets removed."""
    if snippet.language is not None and snippet.language not in SHELL_BLOCKS:
        return
    text = snippet.text.strip().removeprefix("$ ")
    if not re.search(r"(^|[|;&]\s*)agent(\s|$)", text):
        return
    words = shlex.split(text, comments=True)  # ValueError: a page's quotes do not pair up
    command: list[str] = []
    for word in [*words, ";"]:
        if word in SEPARATORS:
            if command[:1] == ["agent"]:
                yield [w for w in map(placeholder, command[1:]) if w]
            command = []
        else:
            command.append(word)


def placeholder(word: str) -> str:
    """A word of a synopsis as a command line would have it: `[--all]` is `--all`,
    `NAME...` is `NAME`, `...` is nothing."""
    return word.replace("[", "").replace("]", "").removesuffix("...")


def flag_table(args: Sequence[Arg | Exclusive]) -> dict[str, Arg]:
    """Each flag spelling ("-o", "--output") and its argument."""
    table = {}
    for arg in args:
        for each in arg.args if isinstance(arg, Exclusive) else (arg,):
            for flag in each.flags.split():
                if flag.startswith("-"):
                    table[flag] = each
    return table


def command_problems(words: list[str]) -> list[str]:
    """What is wrong with `agent WORDS...` by cli.py's OPTIONS and TABLE ([] when nothing)."""
    groups = {group.name: group for group in TABLE}
    if not words or words[0] not in groups:
        return flag_problems(words, flag_table(OPTIONS), words_allowed=False)
    group = groups[words[0]]
    if len(words) == 1 or words[1] in HELP_FLAGS:
        return []  # the group itself (`agent mcp`, `agent mcp --help`)
    commands = {command.name: command for command in group.commands}
    command = commands.get(words[1])
    if command is None:
        return [f"agent {group.name} has no command {words[1]!r} (it has: {', '.join(commands)})"]
    return flag_problems(words[2:], flag_table(command.args), words_allowed=True)


def flag_problems(words: list[str], flags: dict[str, Arg], words_allowed: bool) -> list[str]:
    """Unknown flags, values outside a flag's choices and, where the command takes no
    positional words, words that are no flag's value."""
    problems: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            break
        if not word.startswith("-") or word == "-":
            if not words_allowed:
                problems.append(f"{word!r} is neither a flag nor a flag's value")
            continue
        name, equals, value = word.partition("=")
        arg = flags.get(name)
        if name in HELP_FLAGS:
            continue
        if arg is None:
            problems.append(f"no flag {name} (there are: {', '.join(sorted(flags)) or 'none'})")
            continue
        if arg.action in ("store_true", "version"):
            continue
        if not equals and index < len(words) and not words[index].startswith("-"):
            value = words[index]
            index += 1
        for choice in value.split("|") if value and arg.choices else ():
            if choice not in arg.choices:
                problems.append(f"{name} takes {'|'.join(arg.choices)}, not {choice!r}")
    return problems


def documented_command_problems(snippets_: Iterator[Snippet]) -> list[str]:
    """Every `agent ...` command of the snippets that cli.py would not take, with its place."""
    problems = []
    for snippet in snippets_:
        try:
            commands = list(agent_commands(snippet))
        except ValueError as error:
            problems.append(f"{snippet.where()}: `{snippet.text}`: {error}")
            continue
        for words in commands:
            for problem in command_problems(words):
                problems.append(f"{snippet.where()}: `agent {' '.join(words)}`: {problem}")
    return problems


def settings_keys() -> set[str]:
    """Every key of settings.yaml: top-level names and `section.key` of each section."""
    from agent.settings import load_settings

    settings = load_settings(ROOT / "no-such-settings.yaml")  # the shipped defaults
    keys = set()
    for field in dataclasses.fields(settings):
        keys.add(field.name)
        section = getattr(settings, field.name)
        if dataclasses.is_dataclass(section):
            keys |= {f"{field.name}.{inner.name}" for inner in dataclasses.fields(section)}
    return keys


def named_setting(snippet: Snippet, sections: set[str]) -> str | None:
    """The settings key an inline span names (`mcp.defer_tools_at_share`, `model:`), if any."""
    if snippet.language is not None:
        return None
    text = snippet.text
    if re.fullmatch(r"[a-z][a-z0-9_]*:", text):
        return None if text[:-1] in NOT_SETTINGS else text[:-1]
    dotted = re.fullmatch(r"([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)", text)
    if dotted is None or dotted.group(2) in FILE_ENDINGS:
        return None
    if dotted.group(1) in sections or "_" in dotted.group(2):
        return text
    return None


def unknown_settings(snippets_: Iterator[Snippet], keys: set[str]) -> list[str]:
    """Spans naming a settings key the settings model does not have."""
    sections = {key for key in keys if "." not in key}
    problems = []
    for snippet in snippets_:
        key = named_setting(snippet, sections)
        if key is not None and key not in keys:
            problems.append(f"{snippet.where()}: `{snippet.text}` is no settings key")
    return problems


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def anchor(heading: str) -> str:
    """GitHub's id for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {anchor(match) for match in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def links(path: Path) -> Iterator[tuple[int, str]]:
    """Each link and image target in a page's prose, with its line."""
    text = path.read_text(encoding="utf-8")
    prose = FENCE.sub(lambda block: re.sub(r"[^\n]", " ", block.group(0)), text)
    for match in LINK.finditer(prose):
        yield prose.count("\n", 0, match.start()) + 1, match.group(1)


def broken_links(path: Path) -> list[str]:
    """Links to files of this repository, or to headings, that lead nowhere."""
    problems = []
    for line, target in links(path):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto: ... outside the repository
        file_part, _, fragment = target.partition("#")
        goal = (path.parent / file_part).resolve() if file_part else path
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        where = f"{shown}:{line}: {target}"
        if not goal.exists():
            problems.append(f"{where}: no such file")
        elif fragment and goal.suffix == ".md" and fragment not in anchors(goal):
            problems.append(f"{where}: no heading #{fragment} in {goal.name}")
    return problems


# Words after `/` that are folders of a path (`/tmp`), not slash commands.
ROOT_FOLDERS = {"tmp", "usr", "dev", "etc", "home", "opt", "var", "proc", "src"}


def slash_problems(snippets_: Iterator[Snippet]) -> list[str]:
    """Spans naming a chat command (`/undo N`, `/mcp defer NAME on|off|auto`) that the chat's
    command table, or /mcp's usage, does not have."""
    from agent.ui.slash.commands import COMMANDS
    from agent.ui.slash.mcp import USAGE

    mcp_actions = set(re.findall(r"[\[|]\s*([a-z]+)", USAGE))
    problems = []
    for snippet in snippets_:
        words = snippet.text.replace("\\|", "|").split()
        if snippet.language is not None or not re.fullmatch(r"/[a-z_]+", words[0] if words else ""):
            continue
        name = words[0][1:]
        if name in ROOT_FOLDERS or name.startswith("mcp__"):
            continue
        if name not in COMMANDS:
            problems.append(f"{snippet.where()}: `{snippet.text}`: the chat has no /{name}")
        elif name == "mcp" and len(words) > 1:
            for action in placeholder(words[1]).split("|"):
                if action not in mcp_actions:
                    problems.append(f"{snippet.where()}: `{snippet.text}`: /mcp has no {action}")
    return problems
