"""Which file an interpreter runs: the script a trusted launch depends on beyond its program.

`python3 server.py`, `node build/index.js` or `uv run tool.py` run a file of the project that
a pull or a sandboxed command may rewrite, so trust covers it as it covers the program (a
stdio server's launch and a command tool's, program_files.py). One detector for both: the
interpreter is known by its name as written and by the file a link leads to (`./py` ->
python3.12), `env` by the program it runs, and each interpreter's arguments are read as it
reads them: options that take a value skip it (`python -W ignore x.py`, `node -r pre.js x.js`),
code given as text has no script (`-c`, `-e`: the text is in the arguments, covered already),
`-m pkg.mod` is the module's file where Python finds it first (the working directory), with
each package's __init__.py it runs before (Script.preloads, as node's `-r ./pre.js`), and
`npx NAME` is the project's `node_modules/.bin/NAME` (the package's bin file it leads to).

Only the file the interpreter is given is covered, not what it imports; finding it costs a
few `stat` calls, and nothing walks a folder (node_modules is never listed).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

# Programs that run a script named in their arguments (python3.12, node, bash, uv run, ...).
_INTERPRETER = re.compile(
    r"(python|pypy|node|nodejs|bun|bunx|deno|bash|sh|dash|zsh|ksh|fish|ruby|perl|php|lua|luajit"
    r"|Rscript|pwsh|tclsh|uv|npx|npm|pnpm)[0-9.]*"
)
# env's options that take the next element as their value (GNU coreutils, BSD).
_ENV_OPTIONS_WITH_VALUE = frozenset(
    {"-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P"}
)
_SCRIPT_SUFFIXES = (".py", ".pyw", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")
_SHELL_OPTIONS = frozenset({"-c", "-o", "-O", "+o", "+O", "--rcfile", "--init-file"})


@dataclass(frozen=True)
class Script:
    """The file an interpreter would run, as an absolute path.

    `required`: the interpreter is given this file, so a launch whose script is missing cannot
    start. Not required: a file the interpreter would run first if it appeared (`python -m
    mod` of an installed module, `npx NAME` of a package not installed in the project); it is
    recorded all the same, so its appearing asks again."""

    path: str
    required: bool = True
    # Files of the project the interpreter runs before the script (`node -r ./pre.js`,
    # `--import ./loader.mjs`): a pull controls them as it does the script.
    preloads: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Grammar:
    """How one interpreter reads its arguments before the script."""

    short_values: str = ""  # one-letter options taking a value (attached or the next element)
    inline_code: str = ""  # one-letter options whose value is the program itself: no script
    long_values: frozenset[str] = frozenset()
    long_code: frozenset[str] = frozenset()
    module: str = ""  # python's -m
    # Every long option it knows, when it refuses others (python: `--url x` runs nothing).
    known_long: frozenset[str] | None = None


_PYTHON = _Grammar(
    short_values="WXQ",
    inline_code="c",
    long_values=frozenset({"--check-hash-based-pycs"}),
    module="m",
    known_long=frozenset({"--check-hash-based-pycs", "--help-env", "--help-xoptions"}),
)
_NODE = _Grammar(
    short_values="rC",
    inline_code="ep",
    long_values=frozenset(
        {
            "--require", "--import", "--loader", "--experimental-loader", "--input-type",
            "--conditions", "--title", "--inspect-port", "--redirect-warnings", "--env-file",
            "--watch-path", "--disable-warning", "--icu-data-dir", "--openssl-config",
        }
    ),
    long_code=frozenset({"--eval", "--print"}),
)  # fmt: skip
_GRAMMARS = {
    "python": _PYTHON,
    "pypy": _PYTHON,
    "node": _NODE,
    "nodejs": _NODE,
    "ruby": _Grammar(short_values="rICEF", inline_code="e"),
    "perl": _Grammar(short_values="IMmx", inline_code="eE"),
    "php": _Grammar(short_values="cdz", inline_code="rRBE"),
    "lua": _Grammar(short_values="l", inline_code="e"),
    "luajit": _Grammar(short_values="lj", inline_code="e"),
    "Rscript": _Grammar(inline_code="e"),
}
_BUN = _Grammar(
    short_values="r",
    inline_code="ep",
    long_values=frozenset({"--cwd", "--preload", "--config", "--env-file", "--tsconfig-override"}),
    long_code=frozenset({"--eval", "--print"}),
)
_DENO = _Grammar(
    short_values="cL",
    long_values=frozenset({"--config", "--import-map", "--lock", "--cert", "--location", "--seed"}),
)
_UV_RUN = _Grammar(
    short_values="pC",
    long_values=frozenset(
        {
            "--with", "--with-editable", "--with-requirements", "--python", "--project",
            "--directory", "--package", "--extra", "--group", "--only-group", "--no-group",
            "--index", "--default-index", "--index-url", "--extra-index-url", "--find-links",
            "--env-file", "--config-file", "--cache-dir", "--resolution", "--prerelease",
            "--exclude-newer", "--link-mode", "--index-strategy", "--keyring-provider",
            "--refresh-package", "--upgrade-package", "--reinstall-package", "--config-setting",
            "--no-binary-package", "--no-build-package", "--color",
        }
    ),
    module="m",
)  # fmt: skip
_NPX = _Grammar(
    short_values="p",
    inline_code="c",
    long_values=frozenset({"--package", "--cache", "--registry", "--workspace", "--userconfig"}),
    long_code=frozenset({"--call"}),
)


def interpreter_family(program: str) -> str | None:
    """The interpreter `program` is ("python", "node", ...) by its name as written or the file
    a link leads to; None when it is none of them."""
    for name in (os.path.basename(program), os.path.basename(os.path.realpath(program))):
        match = _INTERPRETER.fullmatch(name)
        if match:
            return match.group(1)
    return None


def find_script(program: str | None, arguments: Sequence[str], cwd: str) -> Script | None:
    """The script `program` runs given `arguments` in `cwd`, or None when it runs none (not an
    interpreter, code given as text, standard input, a subcommand that runs no file)."""
    if program is None:
        return None
    elements = list(arguments)
    names = {os.path.basename(program), os.path.basename(os.path.realpath(program))}
    if "env" in names:  # `env [-u NAME] [NAME=value] python3 tool.py` runs its first word
        elements = _after_env(elements)
        if not elements:
            return None
        program, elements = elements[0], elements[1:]
    family = interpreter_family(program)
    if family is None:
        return None
    return _script_of(family, elements, cwd)


def _script_of(family: str, elements: list[str], cwd: str) -> Script | None:
    if family in ("bun", "bunx", "deno", "uv", "npx", "npm", "pnpm"):
        return _launcher_script(family, elements, cwd)
    if family in ("bash", "sh", "dash", "zsh", "ksh", "fish"):
        return _shell_script(elements, cwd)
    if family in ("pwsh", "tclsh"):  # no grammar known: the first element not an option
        target = next((element for element in elements if not element.startswith("-")), None)
        return None if target is None else _file_script(target, cwd)
    position = _first_operand(_GRAMMARS[family], elements)
    if position is None:
        return None
    kind, value, _after = position
    if kind == "module":
        return python_module(value, cwd)
    if value == "-":  # standard input
        return None
    if family in ("node", "nodejs"):
        preloads = node_preloads(elements[: position[2] - 1], cwd)
        return Script(_node_entry(os.path.join(cwd, value)), preloads=preloads)
    return _file_script(value, cwd)


_NODE_PRELOAD_OPTIONS = frozenset(
    {"-r", "--require", "--import", "--loader", "--experimental-loader"}
)


def node_preloads(options: Sequence[str], cwd: str) -> tuple[str, ...]:
    """The project files node's options (or NODE_OPTIONS) run before the script: the value of
    -r, --require, --import or a loader that is a path (`./pre.js`, `/abs/x.mjs`,
    `file:///x.mjs`); a bare name is a package, found by node's rules, not covered."""
    found = []
    elements = list(options)
    for index, element in enumerate(elements):
        name, equals, value = element.partition("=")
        if not equals:
            if element not in _NODE_PRELOAD_OPTIONS or index + 1 >= len(elements):
                continue
            value = elements[index + 1]
        elif name not in _NODE_PRELOAD_OPTIONS:
            continue
        if value.startswith("file://"):
            value = value[len("file://") :]
        if value.startswith(("./", "../", "/")):
            found.append(_node_entry(os.path.abspath(os.path.join(cwd, value))))
    return tuple(found)


def _first_operand(grammar: _Grammar, elements: list[str]) -> tuple[str, str, int] | None:
    """("file", the first operand, the index after it) or ("module", -m's value, ...); None
    when the program is given as text (-c, -e) or nothing follows."""
    index = 0
    while index < len(elements):
        element = elements[index]
        index += 1
        if element == "--":
            return ("file", elements[index], index + 1) if index < len(elements) else None
        if element.startswith("--"):
            name = element.split("=", 1)[0]
            unknown = grammar.known_long is not None and name not in grammar.known_long
            if name in grammar.long_code or unknown:  # `--help` and `--version` run nothing
                return None
            if name in grammar.long_values and "=" not in element:
                index += 1
            continue
        if not element.startswith("-") or element == "-":
            return ("file", element, index)
        for offset, letter in enumerate(element[1:], start=2):
            attached = element[offset:]
            if letter in grammar.inline_code:
                return None
            if letter in grammar.module or letter in grammar.short_values:
                value = attached or (elements[index] if index < len(elements) else None)
                index += 0 if attached else 1
                if letter in grammar.module:
                    return None if value is None else ("module", value, index)
                break
    return None


def _shell_script(elements: list[str], cwd: str) -> Script | None:
    """bash and its kin: `-c` is text, `-s` reads standard input, `-o NAME` takes a value."""
    index = 0
    while index < len(elements):
        element = elements[index]
        index += 1
        if element == "--":
            return _file_script(elements[index], cwd) if index < len(elements) else None
        if element in _SHELL_OPTIONS or (element[:1] in "-+" and len(element) > 1):
            letters = element[1:] if not element.startswith("--") else ""
            if "c" in letters or "s" in letters:
                return None
            if element in _SHELL_OPTIONS or letters.endswith(("o", "O")):
                index += 1
            continue
        return _file_script(element, cwd) if element != "-" else None
    return None


def _file_script(element: str, cwd: str) -> Script:
    path = os.path.abspath(os.path.join(cwd, element))  # an absolute one stays
    if os.path.isdir(path):  # `python app/` runs app/__main__.py
        return Script(os.path.join(path, "__main__.py"))
    return Script(path)


def python_module(name: str, cwd: str) -> Script | None:
    """The file `python -m name` runs when Python finds it in `cwd` (first on its path):
    pkg/module.py, or pkg/module/__main__.py for a package. Not found there: the file that
    would shadow the installed module if it appeared, not required."""
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    base = cwd
    inits: list[str] = []  # each package's __init__.py: Python runs them before the module
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        folder = os.path.join(base, part)
        package = os.path.isfile(os.path.join(folder, "__init__.py"))
        if not package and last and os.path.isfile(folder + ".py"):
            return Script(folder + ".py", preloads=tuple(inits))
        if not os.path.isdir(folder):
            break
        if package:
            inits.extend(_package_inits(folder))
        if last:
            main = os.path.join(folder, "__main__.py")
            return Script(main, required=os.path.isfile(main), preloads=tuple(inits))
        base = folder
    return Script(os.path.join(cwd, *parts) + ".py", required=False, preloads=tuple(inits))


def _package_inits(folder: str) -> list[str]:
    """A package's __init__.py and any compiled __init__ beside it (`__init__.cpython-312-
    x86_64-linux-gnu.so`): Python loads an extension module before the source of the same
    name, so one that appears runs instead of the __init__.py trust judged. One listing of
    the package's folder."""
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    compiled = sorted(
        name for name in names if name.startswith("__init__.") and name.endswith((".so", ".pyd"))
    )
    return [os.path.join(folder, name) for name in ("__init__.py", *compiled)]


def _node_entry(path: str) -> str:
    """The file node runs for `path`: it as is, with .js, .json or .node added, or a folder's
    package.json `main` or index.js (CommonJS's rules for the main module)."""
    for candidate in (path, path + ".js", path + ".json", path + ".node"):
        if os.path.isfile(candidate):
            return candidate
    if os.path.isdir(path):
        main = _package_main(path)
        if main is not None:
            for candidate in (main, main + ".js", os.path.join(main, "index.js")):
                if os.path.isfile(candidate):
                    return candidate
        return os.path.join(path, "index.js")
    return path


def _package_main(folder: str) -> str | None:
    try:
        with open(os.path.join(folder, "package.json"), "rb") as handle:
            main = json.loads(handle.read(1024 * 1024)).get("main")
    except (OSError, ValueError, AttributeError):
        return None
    return os.path.normpath(os.path.join(folder, main)) if isinstance(main, str) else None


def _launcher_script(family: str, elements: list[str], cwd: str) -> Script | None:
    """bun, deno and `uv run` take a script or a subcommand; npx, bunx and `npm exec` a
    package's bin. What a launcher runs may be fetched or chosen by rules of its own, so its
    script is recorded but not required."""
    if family in ("npm", "pnpm"):
        command = [element for element in elements if not element.startswith("-")][:1]
        if command in (["exec"], ["x"]):
            return _package_bin(elements[elements.index(command[0]) + 1 :], cwd)
        # `npm start`, `npm run serve`, `npm test`: what runs is what package.json says.
        return Script(os.path.join(_local_prefix(cwd), "package.json"), required=False)
    if family in ("npx", "bunx"):
        return _package_bin(elements, cwd)
    if family == "uv":
        return _uv_run(elements[1:], cwd) if elements[:1] == ["run"] else None
    grammar = _BUN if family == "bun" else _DENO
    position = _first_operand(grammar, elements)
    if position is not None and position[1] in ("run", "serve"):  # `deno run`, `bun run`
        position = _first_operand(grammar, elements[position[2] :])
    elif position is not None and family == "bun" and position[1] == "x":  # `bun x` is bunx
        return _package_bin(elements[position[2] :], cwd)
    bun_script = position is not None and family == "bun" and ":" not in position[1]
    if bun_script and position is not None and not _names_a_file(position[1], cwd):
        # `bun run start`: what runs is what package.json's script says.
        return Script(os.path.join(_local_prefix(cwd), "package.json"), required=False)
    if position is None or not _names_a_file(position[1], cwd):
        return None  # another subcommand, a URL, `npm:` or `jsr:`
    return Script(os.path.abspath(os.path.join(cwd, position[1])), required=False)


def _names_a_file(target: str, cwd: str) -> bool:
    if ":" in target:  # https://..., npm:pkg, jsr:@std/x
        return False
    return target.endswith(_SCRIPT_SUFFIXES) or os.path.isfile(os.path.join(cwd, target))


def _uv_run(elements: list[str], cwd: str) -> Script | None:
    """`uv run [options] server.py`, `uv run -m module`, `uv run python server.py`."""
    for index, element in enumerate(elements):
        if element == "--directory" and index + 1 < len(elements):
            cwd = os.path.join(cwd, elements[index + 1])
        elif element.startswith("--directory="):
            cwd = os.path.join(cwd, element.split("=", 1)[1])
    position = _first_operand(_UV_RUN, elements)
    if position is None:
        return None
    kind, target, after = position
    if kind == "module":
        return python_module(target, cwd)
    if _names_a_file(target, cwd):
        return _file_script(target, cwd)
    family = interpreter_family(target)  # a command: `uv run python server.py`
    if family is None or family == "uv":
        return None
    return _script_of(family, elements[after:], cwd)


def _package_bin(elements: list[str], cwd: str) -> Script | None:
    """The bin file `npx NAME` runs from the project: node_modules/.bin/NAME where npm's local
    prefix is (the nearest folder up holding node_modules or package.json), through its link
    to the package's file; when not installed there, the path that would run if it were."""
    position = _first_operand(_NPX, elements)
    if position is None or position[1].startswith((".", "/")) or ":" in position[1]:
        return None
    spec = position[1]
    scope, _, rest = spec.rpartition("/") if spec.startswith("@") else ("", "", spec)
    name = rest.split("@", 1)[0]
    if not name:
        return None
    prefix = _local_prefix(cwd)
    link = os.path.join(prefix, "node_modules", ".bin", name)
    if os.path.exists(link):
        return Script(os.path.realpath(link))
    package = os.path.join(prefix, "node_modules", *(p for p in (scope, name) if p))
    declared = _declared_bin(package, name)
    if declared is not None:
        return Script(os.path.realpath(declared))
    return Script(link, required=False)


def _local_prefix(cwd: str) -> str:
    folder = cwd
    while True:
        if any(os.path.exists(os.path.join(folder, n)) for n in ("node_modules", "package.json")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return cwd
        folder = parent


def _declared_bin(package: str, name: str) -> str | None:
    """A package's bin file from its package.json: `bin` as one path, or its entry `name`,
    or its only entry (npx runs a package whose single bin has another name)."""
    try:
        with open(os.path.join(package, "package.json"), "rb") as handle:
            declared = json.loads(handle.read(1024 * 1024)).get("bin")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(declared, dict):
        declared = declared.get(name) or (
            next(iter(declared.values())) if len(declared) == 1 else None
        )
    return os.path.join(package, declared) if isinstance(declared, str) else None


def _after_env(elements: Sequence[str]) -> list[str]:
    """What `env` runs: its elements after its options and NAME=value assignments."""
    rest = list(elements)
    while rest and (rest[0].startswith("-") or "=" in rest[0]):
        option = rest.pop(0)
        split = None  # `env -S "python3 server.py"`: the string is the command's first words
        if option in ("-S", "--split-string") and rest:
            split = rest.pop(0)
        elif option.startswith(("-S", "--split-string=")):
            split = option.split("=", 1)[1] if option.startswith("--") else option[2:]
        elif option in _ENV_OPTIONS_WITH_VALUE and rest:
            rest.pop(0)
        if split is not None:
            try:
                return _after_env([*shlex.split(split), *rest])
            except ValueError:  # env refuses unbalanced quotes: nothing runs
                return []
    return rest
