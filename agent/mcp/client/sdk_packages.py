"""The mcp SDK's two package `__init__` files, run when a name is first asked of them.

`import mcp.client.session` first runs mcp/__init__.py and mcp/client/__init__.py. Between
them they import the SDK's whole server side (starlette, uvicorn, sse_starlette, the OAuth
authorization server) and the high-level `Client`, none of which a client of ours uses:
about 0.1 s of CPU in a one-shot run with one stdio server, where every CPU second is a
second of waiting (the run is bound by the interpreter lock while litellm imports).

The finder below gives those two packages a loader that makes the package module, so that
its submodules import as usual, and runs the package's own `__init__` into it the first time
a name is looked up on it that it does not have yet (`from mcp import Client`, `mcp.types`,
`from mcp.client import session`). Whoever asks the packages for a name gets exactly what
a plain import gives; only when their `__init__` runs changes.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:  # this module loads with every agent.mcp import: nothing more at run time
    from collections.abc import Sequence
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any

DEFERRED = frozenset({"mcp", "mcp.client"})


class _DeferredInit:
    """A package's loader whose `exec_module` leaves the `__init__` for the first missing name."""

    def __init__(self, loader: Any) -> None:
        import threading

        self._loader = loader
        # A second thread asking meanwhile waits for the names. (It could wait forever only
        # if it held an import the `__init__` needs, i.e. if an SDK module looked up a missing
        # package name while loading; none does in mcp 2.3.0: no `from mcp import NAME`.)
        self._lock = threading.RLock()
        self._ran = False

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        """The loader's own module object (None: the import system's default)."""
        module: ModuleType | None = self._loader.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Leave a module `__getattr__` that runs the real `__init__` on the first miss."""

        def missing_name(name: str) -> Any:
            self.run_init(module)
            try:
                return module.__dict__[name]
            except KeyError:
                raise AttributeError(
                    f"module {module.__name__!r} has no attribute {name!r}"
                ) from None

        module.__getattr__ = missing_name  # type: ignore[method-assign]

    def run_init(self, module: ModuleType) -> None:
        """Run the package's own `__init__` into `module`, once; another thread asking
        meanwhile waits for it, the thread running it gets on at once (a miss, as in a plain
        import of a package not yet fully initialized)."""
        with self._lock:
            if self._ran:
                return
            self._ran = True
            try:
                self._loader.exec_module(module)
            finally:
                module.__dict__.pop("__getattr__", None)  # from now on a miss is a plain miss

    def __getattr__(self, name: str) -> Any:
        # get_resource_reader, get_filename, is_package, ...: the real loader answers.
        return getattr(self._loader, name)


class DeferredPackageInits:
    """A meta path finder: the real spec of each DEFERRED package, with a _DeferredInit loader."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The spec the other finders give `name`, its loader wrapped, for DEFERRED names."""
        if name not in DEFERRED:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec: ModuleSpec | None = find(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = cast("Loader", _DeferredInit(spec.loader))
                return spec
        return None


def defer_package_inits() -> None:
    """Install the finder (once) ahead of the path finders; a package already imported stays."""
    if not any(isinstance(finder, DeferredPackageInits) for finder in sys.meta_path):
        sys.meta_path.insert(0, DeferredPackageInits())
