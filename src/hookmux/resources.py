"""Where the shipped hooks tree, schema and examples are.

``runtime(name)`` gives the CLI the runtime's own modules (``hosts``, ``event``,
``state`` from ``hooks/_common``): host facts and ``state_dir()`` exist once, in
the hooks tree, and the CLI reads that same file instead of a copy.

A wheel carries them under ``hookmux/_tree``; an editable install or a source
checkout finds them at the repository root.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

_PACKAGED = Path(__file__).resolve().parent / "_tree"
_CHECKOUT = Path(__file__).resolve().parents[2]


def _root() -> Path:
    if (_PACKAGED / "hooks").is_dir():
        return _PACKAGED
    return _CHECKOUT


def hooks_tree() -> Path:
    """The package's own hooks tree (never a live hooks directory)."""
    return _root() / "hooks"


def schema_path() -> Path:
    return _root() / "manifest.schema.json"


def examples_dir() -> Path:
    return _root() / "examples"


def shipped_manifest() -> Path:
    return hooks_tree() / "_dispatch" / "manifest.json"


RUNTIME_PACKAGE = "hookmux._runtime"


def runtime(name: str) -> ModuleType:
    """``hooks/_common/<name>.py`` of the package's hooks tree, imported as ``hookmux._runtime.<name>``."""
    if RUNTIME_PACKAGE not in sys.modules:
        from importlib.util import module_from_spec, spec_from_file_location

        folder = hooks_tree() / "_common"
        spec = spec_from_file_location(RUNTIME_PACKAGE, folder / "__init__.py",
                                       submodule_search_locations=[str(folder)])
        package = module_from_spec(spec)
        sys.modules[RUNTIME_PACKAGE] = package
        try:
            spec.loader.exec_module(package)
        except BaseException:
            del sys.modules[RUNTIME_PACKAGE]
            raise
    return importlib.import_module(f"{RUNTIME_PACKAGE}.{name}")
