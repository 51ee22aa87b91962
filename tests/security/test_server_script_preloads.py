"""A trusted stdio server's files that run before or decide its script (issue 39, finding 5 again).

Trust covers the script an interpreter runs (test_server_script_trust.py). Two launches run
other files of the project first, files a hostile pull controls as much as the script:
`node --import ./preload.js server.js` (or `-r`, or NODE_OPTIONS=--require ./preload.js in
the server's env) runs preload.js before the script, and `npm start` runs what
the project's package.json says; `python -m fx_pkg` runs fx_pkg/__init__.py before
fx_pkg/__main__.py. After either file is rewritten to plant a canary outside the
project, the next `agent -p hi` must not start the server and must say what changed.
Real `agent`, scripted model, real node and npm.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from tests.security.test_server_script_trust import (
    NODE_SERVER,
    PYTHON_SERVER,
    _add_server,
    _offered,
    _project,
    _starts,
    _trust,
)
from tests.security.test_trust_binds_launch import say_hi

NODE = shutil.which("node")
NPM = shutil.which("npm")
NPX = shutil.which("npx")
GCC = shutil.which("gcc")
NODE_MODES = ("preload", "node-options", "npm-start", "npx-runner")


def _node_layout(project: Path, how: str) -> tuple[dict[str, object], Path, str, str]:
    """The definition, the file the attack rewrites, its new content, and what the question
    says changed."""
    assert NODE is not None
    canary = project.parent / "CANARY"
    (project / "server.js").write_text(NODE_SERVER, encoding="utf-8")
    plant = f"require('fs').writeFileSync({json.dumps(str(canary))}, 'ran');\n"
    said = f"the script it runs or a file it loads changed ({project / 'server.js'})"
    if how in ("preload", "node-options"):
        preload = project / "preload.js"
        preload.write_text("// sets things up\n", encoding="utf-8")
        if how == "node-options":  # in the server's env, as trusted
            env = {"NODE_OPTIONS": "--require ./preload.js"}
            return {"command": NODE, "args": ["server.js"], "env": env}, preload, plant, said
        definition = {"command": NODE, "args": ["--import", "./preload.js", "server.js"]}
        return definition, preload, plant, said
    assert NPM is not None
    (project / "evil.js").write_text(plant, encoding="utf-8")
    manifest = project / "package.json"
    package = {"name": "fx", "version": "1.0.0", "scripts": {"start": "node server.js"}}
    manifest.write_text(json.dumps(package), encoding="utf-8")
    package["scripts"]["start"] = "node evil.js; node server.js"  # type: ignore[index]
    if how == "npx-runner":  # `npx runjs server.js`: the package's bin runs the file given
        runner = project / "node_modules" / "runjs"
        runner.mkdir(parents=True)
        (runner / "package.json").write_text('{"name": "runjs", "bin": "cli.js"}')
        cli = runner / "cli.js"
        cli.write_text("#!/usr/bin/env node\nrequire(require('path').resolve(process.argv[2]));\n")
        cli.chmod(0o755)
        (project / "node_modules" / ".bin").mkdir()
        (project / "node_modules" / ".bin" / "runjs").symlink_to("../runjs/cli.js")
        manifest.write_text('{"name": "fx", "version": "1.0.0"}', encoding="utf-8")
        said = f"the script it runs or a file it loads changed ({cli})"
        definition: dict[str, object] = {"command": NPX, "args": ["runjs", "server.js"]}
        return definition, project / "server.js", plant + NODE_SERVER, said
    said = f"the script it runs changed ({manifest})"
    return {"command": NPM, "args": ["--silent", "start"]}, manifest, json.dumps(package), said


def _package_layout(project: Path) -> tuple[dict[str, object], Path, str, str]:
    """`python -m fx_pkg` runs fx_pkg/__init__.py before fx_pkg/__main__.py."""
    package = project / "fx_pkg"
    package.mkdir()
    (package / "__main__.py").write_text(PYTHON_SERVER, encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    plant = f"open({str(project.parent / 'CANARY')!r}, 'w').write('ran')\n"
    said = f"the script it runs or a file it loads changed ({package / '__main__.py'})"
    definition: dict[str, object] = {"command": sys.executable, "args": ["-m", "fx_pkg"]}
    return definition, package / "__init__.py", plant, said


def _compiled_init_layout(project: Path) -> tuple[dict[str, object], Path, str, str]:
    """`python -m fx_pkg`, then a compiled fx_pkg/__init__ added beside __init__.py: Python
    loads an extension module before the source of the same name."""
    definition, init, _plant, said = _package_layout(project)
    return definition, init.with_name("__init__" + EXTENSION_SUFFIXES[0]), "compiled", said


def _compile_init(target: Path) -> None:
    """An extension module that plants the canary and is still the package fx_pkg."""
    canary = json.dumps(str(target.parent.parent.parent / "CANARY"))
    package = json.dumps(str(target.parent))
    source = target.parent.parent / "init.c"
    source.write_text(
        "#include <Python.h>\n#include <stdio.h>\n"
        'static struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "fx_pkg", 0, -1, 0};\n'
        "PyMODINIT_FUNC PyInit_fx_pkg(void) {\n"
        f'  FILE *f = fopen({canary}, "w"); if (f) {{ fputs("ran", f); fclose(f); }}\n'
        "  PyObject *o = PyModule_Create(&m);\n"
        f'  PyModule_AddObject(o, "__path__", Py_BuildValue("[s]", {package}));\n'
        "  return o;\n}\n"
    )
    include = sysconfig.get_paths()["include"]
    assert GCC is not None
    subprocess.run(
        [GCC, "-shared", "-fPIC", f"-I{include}", str(source), "-o", str(target)], check=True
    )
    source.unlink()


def _env_split_layout(project: Path) -> tuple[dict[str, object], Path, str, str]:
    """`env -S "python3 server.py"`: env splits the string into the command it runs."""
    script = project / "server.py"
    script.write_text(PYTHON_SERVER, encoding="utf-8")
    plant = f"open({str(project.parent / 'CANARY')!r}, 'w').write('ran')\n" + PYTHON_SERVER
    definition: dict[str, object] = {
        "command": "env",
        "args": ["-S", f"{sys.executable} server.py"],
    }
    return definition, script, plant, f"the script it runs changed ({script})"


def _modes() -> list[object]:
    headers = Path(sysconfig.get_paths()["include"], "Python.h").is_file()
    compiled = pytest.mark.skipif(GCC is None or not headers, reason="no C compiler or headers")
    node = pytest.mark.skipif(NODE is None or NPM is None, reason="node or npm is not installed")
    return [
        "python-package",
        "env-split",
        pytest.param("compiled-init", marks=compiled),
        *(
            pytest.param(how, marks=node)
            for how in ("preload", "node-options", "npm-start", "npx-runner")
        ),
    ]


@pytest.mark.parametrize("how", _modes())
def test_a_changed_file_run_before_the_script_is_not_run_until_trusted_again(
    tmp_path: Path, agent_home: Path, how: str
) -> None:
    project = _project(tmp_path)
    if how in ("python-package", "env-split", "compiled-init"):
        layouts = {
            "python-package": _package_layout,
            "env-split": _env_split_layout,
            "compiled-init": _compiled_init_layout,
        }
        definition, target, content, said = layouts[how](project)
    else:
        definition, target, content, said = _node_layout(project, how)
    _add_server(project, definition)
    _starts(project)

    if how == "compiled-init":
        _compile_init(target)
    else:
        target.write_text(content, encoding="utf-8")
    done, requests = say_hi(project)

    assert done.returncode == 0, done.stderr
    assert not (project.parent / "CANARY").exists(), done.stderr
    assert not [name for name in _offered(requests) if name.startswith("mcp__fx__")]
    assert "MCP server fx is not trusted here: what it runs changed" in done.stderr
    assert said in done.stderr, done.stderr

    shown = _trust(project)
    assert said in shown, shown
    _starts(project)
    assert (project.parent / "CANARY").exists()  # the person trusted the new file
