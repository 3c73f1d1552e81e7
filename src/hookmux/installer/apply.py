"""Carry out an install or uninstall plan through one journal: every write atomic, the
installed manifest validated before any host file is touched, all of it rolled back on any
failure (``transaction.run``)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from hookmux.errors import InstallError
from hookmux.installer import record as records, transaction, tree
from hookmux.installer.journal import Journal
from hookmux.installer.plan import Plan
from hookmux.installer.wiring_plan import FileChange


def _apply_wiring(journal: Journal, change: FileChange) -> None:
    if not change.changed:
        return
    if change.new is None:
        journal.delete(change.path)
        return
    if change.backup:
        journal.backup(change.path)
    journal.write(change.path, change.new)


def _validate(target: Path) -> list[str]:
    from hookmux.validation import validate_manifest

    errors, warnings = validate_manifest(target / tree.MANIFEST, hooks_root=str(target))
    for warning in warnings:
        sys.stderr.write(f"hookmux: warning: {warning}\n")
    return list(errors)


def apply_install(plan: Plan, journal: Journal) -> None:
    target, tp = plan.target, plan.tree
    record_path = records.path_of(target)
    final = plan.record.to_bytes()
    pending_path = records.pending_path(target)
    nothing_to_do = not tp.changes and not any(c.changed for c in plan.wiring) and (
        record_path.is_file() and record_path.read_bytes() == final) and not pending_path.exists() and (
        not plan.extra_writes)
    if nothing_to_do:
        _compile(plan.record.python, _installed_modules(plan))
        return
    journal.write(pending_path, plan.pending.to_bytes(), 0o644)
    for parent in ["."] + sorted(tp.new_dirs):
        journal.mkdirs(target / parent)
    for rel, legacy in tp.moves.items():
        journal.move(target / rel, target / legacy)
    for rel in tp.backups:
        if (target / rel).is_file():
            journal.backup(target / rel)
    for rel, want in tp.writes.items():
        journal.write(target / rel, want.data, want.mode)
    for rel in tp.deletes:
        journal.delete(target / rel)
    errors = _validate(target)
    if errors:
        raise InstallError("the installed manifest is invalid:\n  " + "\n  ".join(errors))
    for change in plan.wiring:
        _apply_wiring(journal, change)
    for name, data in plan.extra_writes.items():
        journal.write(Path(name), data)
    if not record_path.is_file() or record_path.read_bytes() != final:
        journal.write(record_path, final, 0o644)
    journal.delete(pending_path)
    _compile(plan.record.python, _installed_modules(plan))


def _installed_modules(plan: Plan) -> list[Path]:
    return [plan.target / rel for rel in plan.record.files if rel.endswith(".py")]


def _compile(python: str, scripts: list[Path]) -> None:
    """Byte-compile the installed modules with the wired interpreter.

    Hooks import them on every tool call; with PYTHONDONTWRITEBYTECODE set (or a
    read-only target) they would otherwise be compiled anew each time. All of
    them, every time: compileall skips what is up to date, and a rerun after a
    crash must not leave the files the crashed run copied without bytecode.
    Best effort: a hook without bytecode still works, just slower. Uninstall
    removes the bytecode with the files.
    """
    if not scripts:
        return
    try:
        subprocess.run([python, "-m", "compileall", "-q", *map(str, scripts)],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        pass


def _pycache_of(target: Path, rels: list[str]) -> list[Path]:
    """Bytecode the hooks' own imports left beside the installed modules."""
    out = []
    for rel in rels:
        if not rel.endswith(".py"):
            continue
        cache = (target / rel).parent / "__pycache__"
        stem = Path(rel).stem + "."
        try:
            out += [cache / n for n in os.listdir(cache) if n.startswith(stem) and n.endswith(".pyc")]
        except OSError:
            continue
    return out


def apply_uninstall(plan: Plan, journal: Journal) -> None:
    target = plan.target
    for change in plan.wiring:
        _apply_wiring(journal, change)
    if plan.old_record is None:
        _remove_created_dirs(plan, journal)
        return
    caches = _pycache_of(target, plan.removals)
    for pyc in caches:
        journal.delete(pyc)
    for cache_dir in sorted({pyc.parent for pyc in caches}):
        journal.rmdir_if_empty(cache_dir)
    for rel in plan.removals:
        journal.delete(target / rel)
    for rel, data in plan.rewrites.items():
        journal.write(target / rel, data)
    for legacy, rel in plan.restores.items():
        if not os.path.lexists(target / rel):
            journal.move(target / legacy, target / rel)
    for record_file in (records.path_of(target), records.pending_path(target)):
        if record_file.is_file():
            journal.delete(record_file)
    dirs = sorted(set(plan.old_record.dirs), key=lambda d: (-len(Path(d).parts), d))
    for rel in dirs:
        folder = target / rel
        journal.rmdir_if_empty(folder / "__pycache__")
        journal.rmdir_if_empty(folder)
    _remove_created_dirs(plan, journal)


def _remove_created_dirs(plan: Plan, journal: Journal) -> None:
    for change in plan.wiring:
        if change.changed and change.new is None:
            for folder in change.info.get("created_dirs", []):
                journal.rmdir_if_empty(Path(folder))


def execute(plan: Plan, out: TextIO, err: TextIO) -> int:
    code = transaction.run(lambda journal: (apply_uninstall if plan.uninstall else apply_install)(plan, journal), err)
    if code == 0:
        for note in plan.notes:
            err.write(f"hookmux: {note}\n")
    return code
