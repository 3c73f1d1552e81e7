"""Where the shipped hooks tree, schema and examples are.

A wheel carries them under ``hookmux/_tree``; an editable install or a source
checkout finds them at the repository root.
"""
from __future__ import annotations

from pathlib import Path

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
