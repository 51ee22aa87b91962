"""The house rules of agent/, read from the source with `ast`: layers, owners, function sizes.

Layers (../shared/DESIGN.md): cli -> {ui, web, commands} -> chat -> {model, tools, session};
{mcp, skills} -> tools; session -> skills (the activated skill snapshots a session keeps);
everything may import the ground floor.
"""

from __future__ import annotations

import ast
import inspect
import sys
import tomllib
from collections.abc import Iterator
from importlib import import_module
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from agent.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agent"

GROUND = {"messages", "errors", "settings", "home", "text", "project", "resources", "depth"}
GROUND |= {"redaction", "link_file", "loopback", "processes", "__init__"}

# What each unit may import besides itself and the ground floor.
ALLOWED = {
    "cli": {"ui", "web", "commands", "chat", "model", "tools", "session", "mcp", "skills"},
    "ui": {"chat", "model", "tools", "session", "mcp", "skills"},
    "web": {"chat", "model", "tools", "session", "mcp", "skills"},
    "commands": {"chat", "model", "tools", "session", "mcp", "skills"},
    "chat": {"model", "tools", "session", "mcp", "skills"},
    "mcp": {"tools"},
    "skills": {"tools"},
    "model": set(),
    "tools": set(),
    "session": {"skills"},  # a session file keeps activated skill snapshots (skills' data type)
}

# Each third-party library and the module or subpackage that owns it (DESIGN.md). anyio is the
# async runtime every layer awaits on, so it has no single owner.
OWNERS = {
    "litellm": ("agent/model/litellm_model.py",),
    "mcp": ("agent/mcp/",),
    "mcp_types": ("agent/mcp/",),
    "httpx2": ("agent/mcp/", "agent/model/openai_compatible.py"),
    "prompt_toolkit": ("agent/ui/",),
    "rich": ("agent/ui/",),
    "markdown_it": ("agent/ui/",),
    "starlette": ("agent/web/",),
    "uvicorn": ("agent/web/",),
    "jsonschema": ("agent/tools/validation.py",),
    "referencing": ("agent/tools/validation.py",),
    "regex": ("agent/tools/validation.py",),
    "pydantic": ("agent/settings.py",),
    "yaml": ("agent/settings.py", "agent/skills/"),
    "platformdirs": ("agent/home.py",),
}
EVERYWHERE = {"anyio"}

# The wings inside a package and the wings each may import besides itself (ARCHITECTURE.md).
# The package's own top-level modules (the MCP runtime, store, host...; the chat loop) may import
# every wing; a wing imports none of them but its package's floor (below), so what runs the
# package stands on the wings and never the other way round.
WINGS = {
    "agent.mcp": {
        "config": set(),
        "forms": set(),
        "catalog": set(),
        "trust": {"config"},
        "oauth": {"config"},
        "programs": {"config"},
        "client": {"config", "oauth", "programs", "catalog", "forms"},
    },
    "agent.ui": {
        "dialogs": set(),
        "slash": {"dialogs"},
        "completion": {"slash", "dialogs"},
    },
}
# Top-level modules every wing of the package may stand on (the terminal's drawing: styles, the
# renderer, the spinner, the type-ahead reader). A floor module imports no wing.
FLOORS = {
    "agent.mcp": set[str](),
    "agent.ui": {
        "style",
        "render",
        "markdown",
        "spinner",
        "typeahead",
        "tool_calls",
        "interrupt",
        "fit",
        "notices",
        "todo_list",
    },
}
MAX_FUNCTION_LINES = 60
# Functions allowed over the limit (declarative tables only), and why.
LONG_FUNCTIONS: dict[str, str] = {}


def source_files() -> list[Path]:
    """Every module of the agent package."""
    return sorted(PACKAGE.rglob("*.py"))


def module_name(path: Path) -> str:
    """agent/ui/chat.py -> agent.ui.chat; agent/mcp/__init__.py -> agent.mcp."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST, *, runtime_only: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and runtime_only and _is_type_checking(node):
            yield from _import_nodes(
                ast.Module(body=node.orelse, type_ignores=[]), runtime_only=True
            )
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _import_nodes(node, runtime_only=runtime_only)


def imported_modules(path: Path, *, runtime_only: bool = False) -> set[str]:
    """Absolute names of what the file imports (`from a import b` counts a.b when b is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = (
        module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    )
    names: set[str] = set()
    for node in _import_nodes(tree, runtime_only=runtime_only):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            base = f"{anchor}.{base}" if base else anchor
        names.add(base)
        names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def agent_modules() -> dict[str, Path]:
    """Module name -> file, for every module of the package."""
    return {module_name(path): path for path in source_files()}


def unit_of(module: str) -> str:
    """The layer unit a module belongs to: a subpackage, the chat layer, ground, model or cli."""
    parts = module.split(".")
    if len(parts) == 1:
        return "ground"
    top = parts[1]
    if top == "__main__":  # `python -m agent` is the command line's other door
        return "cli"
    if top == "chat":
        return "chat"
    if top in GROUND:  # a module, or a package of the ground floor (processes)
        return "ground"
    return top


def agent_imports(path: Path, *, runtime_only: bool = False) -> set[str]:
    """The agent modules the file imports, by module name."""
    known = agent_modules()
    return {name for name in imported_modules(path, runtime_only=runtime_only) if name in known}


def layer_violations() -> dict[str, tuple[str, str]]:
    """Every import that points up or sideways: `importer -> imported` -> (unit, unit)."""
    found = {}
    for name, path in agent_modules().items():
        unit = unit_of(name)
        for target in sorted(agent_imports(path)):
            other = unit_of(target)
            if other in (unit, "ground") or other in ALLOWED.get(unit, set()):
                continue
            found[f"{name} -> {target}"] = (unit, other)
    return found


def wing_of(package: str, module: str) -> str | None:
    """The wing of `package` a module sits in, "top" for the package's own modules, else None."""
    if module == package:
        return "top"
    if not module.startswith(package + "."):
        return None
    rest = module[len(package) + 1 :].split(".")
    if len(rest) > 1 and rest[0] in WINGS[package]:
        return rest[0]
    return "floor" if rest[0] in FLOORS[package] else "top"


def wing_violations() -> dict[str, tuple[str, str]]:
    """Every import from one wing to a wing it may not import: `importer -> imported` -> wings."""
    found = {}
    for package, allowed in WINGS.items():
        for name, path in agent_modules().items():
            wing = wing_of(package, name)
            if wing in (None, "top"):
                continue
            for target in sorted(agent_imports(path)):
                other = wing_of(package, target)
                if other in (None, wing, "floor") or other in allowed.get(wing, set()):
                    continue
                found[f"{name} -> {target}"] = (wing, other)
    return found


def import_circles() -> list[tuple[str, ...]]:
    """Strongly connected groups of modules that import each other (type hints included)."""
    graph = {name: sorted(agent_imports(path) - {name}) for name, path in agent_modules().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[tuple[str, ...]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, []):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                circles.append(tuple(sorted(group)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(circles)


def third_party_imports() -> dict[str, set[str]]:
    """Top-level third-party module -> the files under agent/ that import it."""
    found: dict[str, set[str]] = {}
    for path in source_files():
        for name in imported_modules(path):
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top in ("agent", "__future__", ""):
                continue
            found.setdefault(top, set()).add(path.relative_to(ROOT).as_posix())
    return found


def long_functions() -> dict[str, int]:
    """`file::function` -> its length in lines, for every function over the limit."""
    found = {}
    for path in source_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found[f"{path.relative_to(ROOT).as_posix()}::{node.name}"] = length
    return found


def stray_imports() -> set[tuple[str, str]]:
    """(library, file) for each import of a library outside its owner."""
    return {
        (library, path)
        for library, files in third_party_imports().items()
        for path in files
        if library not in EVERYWHERE
        and not any(path.startswith(owner) for owner in OWNERS.get(library, ()))
    }


# Where a module may be looked up in sys.modules rather than imported. Elsewhere a lookup
# could meet a module another thread is half-way through importing (the MCP side and litellm
# import in background threads): an import statement waits for it, a lookup does not.
SYS_MODULES_READERS = {
    "agent/cli.py",  # the signal handler, which must not wait for an import's lock
}


def sys_modules_readers() -> set[str]:
    """The files that read `sys.modules`."""
    found = set()
    for path in source_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "modules"
                and isinstance(node.value, ast.Name)
                and node.value.id == "sys"
            ):
                found.add(path.relative_to(ROOT).as_posix())
    return found


def test_no_module_is_looked_up_in_sys_modules_where_another_thread_may_be_importing_it() -> None:
    assert sys_modules_readers() - SYS_MODULES_READERS == set()


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert import_circles() == []


def test_no_module_imports_a_higher_layer() -> None:
    assert layer_violations() == {}


def test_no_wing_imports_the_top_of_its_package_or_a_wing_it_does_not_stand_on() -> None:
    assert wing_violations() == {}


@pytest.mark.parametrize("package", sorted(WINGS))
def test_the_wings_stand_on_each_other_without_a_circle(package: str) -> None:
    allowed = WINGS[package]
    placed: list[str] = []
    while len(placed) < len(allowed):  # peel off the wings whose own wings are all placed
        ready = sorted(w for w in allowed if w not in placed and allowed[w] <= set(placed))
        assert ready, f"wings that import each other in {package}: {set(allowed) - set(placed)}"
        placed.extend(ready)


@pytest.mark.parametrize("package", sorted(WINGS))
def test_every_wing_is_in_the_table_and_says_in_a_line_what_it_owns(package: str) -> None:
    folder = ROOT.joinpath(*package.split("."))
    wings = {p.parent.name for p in folder.glob("*/__init__.py")}
    assert wings == set(WINGS[package])
    for wing in wings:
        init = folder / wing / "__init__.py"
        tree = ast.parse(init.read_text(encoding="utf-8"))
        docstring = ast.get_docstring(tree) or ""
        assert docstring and "\n" not in docstring, f"{init}: one line saying what it owns"
        assert len(tree.body) == 1, f"{init}: the docstring only (importing a wing costs nothing)"


def test_each_third_party_library_is_imported_by_its_one_owner() -> None:
    assert stray_imports() == set()


def test_the_declared_dependencies_are_exactly_the_libraries_imported() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {
        requirement.split(";")[0]
        .split("[")[0]
        .split("=")[0]
        .split(">")[0]
        .split("<")[0]
        .strip()
        .lower()
        .replace("_", "-")
        for requirement in project["dependencies"]
    }
    distributions = packages_distributions()
    imported = {
        distributions[library][0].lower().replace("_", "-") for library in third_party_imports()
    }
    assert (sorted(imported - declared), sorted(declared - imported)) == ([], [])


def test_no_function_is_longer_than_sixty_lines_but_the_known_ones() -> None:
    assert {
        name: lines for name, lines in long_functions().items() if name not in LONG_FUNCTIONS
    } == {}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_in_the_table_names_a_function_that_takes_what_it_passes(
    command: str,
) -> None:
    entry = COMMANDS[command]
    function = getattr(import_module(entry.module), entry.function)

    inspect.signature(function).bind(*entry.positional, **dict.fromkeys(entry.keywords))
