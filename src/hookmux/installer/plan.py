"""The install and uninstall transactions: plan every change first (refusing bad input before
anything is touched), print a diff for ``--dry-run``, else apply under a lock and roll
everything back on any failure."""
from __future__ import annotations

import contextlib
import dataclasses
import difflib
import functools
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from hookmux import __version__, resources
from hookmux.errors import HookmuxError
from hookmux.installer import atomic, commands, entries, jsonfile, manifest_merge, merge, record as records, tree
from hookmux.installer.journal import Journal
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.codex_hooks import hooks_file as codex_file
from hookmux.installer.wiring_files import CLAUDE, CODEX, COPILOT, HOSTS, Host, copilot_file

LOCK_TIMEOUT = 120


class InstallError(HookmuxError):
    pass


@dataclass
class FileChange:
    path: Path
    host: Host
    old: bytes | None  # None: the file does not exist
    new: bytes | None  # None: delete the file
    backup: bool = False  # the file holds none of hookmux's entries yet: back it up first
    info: dict = field(default_factory=dict)  # the record's "wired" entry after the change
    others: list[str] = field(default_factory=list)  # targets of other installs wired in this file

    @property
    def changed(self) -> bool:
        return self.old != self.new


def version() -> str:
    return __version__


@contextlib.contextmanager
def lock():
    """One install/uninstall at a time for this user (HOOKMUX_STATE_DIR or the XDG state dir)."""
    from filelock import FileLock, Timeout

    folder = records.state_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        held = FileLock(str(folder / "install.lock"), timeout=LOCK_TIMEOUT)
        held.acquire()
    except Timeout:
        raise InstallError(f"{folder / 'install.lock'}: another hookmux install/uninstall holds it") from None
    except OSError as exc:
        raise InstallError(f"{folder}: cannot create the install lock ({exc.strerror})") from None
    try:
        yield
    finally:
        held.release()


# ---------------------------------------------------------------- planning


def plan_wiring(path: Path, host: Host, wanted: list, target: str, recorded: dict | None) -> FileChange:
    loaded = jsonfile.load(path)
    created = set(recorded.get("created") or ()) if recorded else None
    new_data, made = merge.merge(loaded.data, wanted, target, host.dialect, created, str(path), sweep=not wanted)
    created_file = bool(recorded and recorded.get("created_file")) or not loaded.exists or (
        bool(wanted) and merge.hookmux_only_file(loaded.data, host.dialect))
    info = {"host": host.name, "created_file": created_file, "created": made}
    dirs = list(recorded.get("created_dirs", [])) if recorded else []
    if wanted and not loaded.exists:
        dirs += [str(d) for d in _missing_dirs(atomic.real_path(path).parent) if str(d) not in dirs]
    if dirs:
        info["created_dirs"] = dirs
    old = loaded.raw if loaded.exists else None
    change = _change(path, host, loaded, new_data, wanted, target, info, old)
    if change.changed and change.old is not None:
        _refuse_read_only(path)
    change.others = sorted({parsed.target for _, _, parsed in merge.find_any(loaded.data, host.dialect)
                            if not commands.same_target(parsed.target, target)})
    return change


def same_file_key(mapping: dict, path: os.PathLike | str) -> str | None:
    """The key of ``mapping`` naming the same file as ``path`` (compared by real path)."""
    if str(path) in mapping:
        return str(path)
    real = commands.real(path)
    return next((key for key in mapping if commands.real(key) == real), None)


def _change(path: Path, host: Host, loaded: jsonfile.JsonFile, new_data: dict, wanted: list, target: str,
            info: dict, old: bytes | None) -> FileChange:
    if not wanted:
        if not loaded.exists:
            return FileChange(path, host, None, None, info=info)
        if new_data == loaded.data:
            return FileChange(path, host, old, old, info=info)
        if info["created_file"] and host.trivially_empty(new_data) and not path.is_symlink():
            return FileChange(path, host, old, None, info=info)  # a link is kept: the real file is edited
        return FileChange(path, host, old, _restored_bytes(path, new_data) or loaded.render(new_data), info=info)
    if loaded.exists and new_data == loaded.data:
        return FileChange(path, host, old, old, info=info)
    first_change = loaded.exists and not merge.find(loaded.data, target, host.dialect) and not (
        merge.hookmux_only_file(loaded.data, host.dialect))
    return FileChange(path, host, old, loaded.render(new_data), backup=first_change, info=info)


def _refuse_read_only(path: Path) -> None:
    """A file the user made read-only (``chmod a-w``) is not silently replaced: ``os.replace``
    would succeed anyway, because it needs only the folder to be writable."""
    mode = atomic.file_mode(atomic.real_path(path))
    if mode is not None and not mode & 0o200:
        raise JsonFileError(f"{path}: is read-only (mode {mode:04o}); hookmux will not rewrite it. "
                            f"Make it writable (chmod u+w) and run the command again")


def _missing_dirs(folder: Path) -> list[Path]:
    """``folder`` and its ancestors that do not exist yet, deepest first."""
    out = []
    while not os.path.lexists(folder):
        out.append(folder)
        folder = folder.parent
    return out


def _restored_bytes(path: Path, data: dict) -> bytes | None:
    """The newest backup's exact bytes when they hold the same data (keeps the user's format)."""
    for backup in reversed(atomic.existing_backups(path)):
        try:
            if jsonfile.load(backup).data == data:
                return backup.read_bytes()
        except (JsonFileError, OSError):
            continue
        return None
    return None


@dataclass
class Plan:
    target: Path
    record: records.Record
    old_record: records.Record | None
    tree: tree.TreePlan | None
    wiring: list[FileChange]
    uninstall: bool = False
    removals: list[str] = field(default_factory=list)  # uninstall: installed files to delete
    rewrites: dict[str, bytes] = field(default_factory=dict)  # uninstall: files keeping the user's part
    restores: dict[str, str] = field(default_factory=dict)  # uninstall: legacy -> rel
    kept: list[str] = field(default_factory=list)  # uninstall: edited installed files left alone
    notes: list[str] = field(default_factory=list)
    pending: records.Record | None = None  # install: the record written first
    extra_writes: dict[str, bytes] = field(default_factory=dict)  # install: adopt's undo backups (adopt.carry)


def plan_install(target: Path, settings: Path | None, copilot_dir: Path | None, python: str,
                 agents_dirs: list[str], source: Path | None = None, codex_home: Path | None = None,
                 serve: bool = False, preview: bool = False) -> Plan:
    tree_root = (source or resources.hooks_tree()).resolve()
    if target.resolve() == tree_root or tree_root in target.resolve().parents:
        raise InstallError(f"{target}: is inside the hooks tree hookmux installs from ({tree_root})")
    old = records.load(target)
    wanted = tree.wanted_files(str(target), agents_dirs, source)
    carry = None
    if old is not None and old.adopted:  # merged as if nothing were adopted, then laid over again
        from hookmux.adopt.carry import Carry

        carry = Carry(target, old)
    live_manifest = manifest_merge.plan_install(target, wanted[tree.MANIFEST].data, old,
                                                carry.plain if carry else None)
    if live_manifest is not None:
        wanted[tree.MANIFEST].data = carry.readopt(live_manifest.data) if carry else live_manifest.data
    tp = tree.plan(target, wanted, old, merged={tree.MANIFEST} if live_manifest else frozenset())
    tp.errors += live_manifest.errors if live_manifest else []
    if tp.errors:
        raise InstallError("\n".join(tp.errors))
    tp.notes += live_manifest.notes if live_manifest else []
    manifest = json.loads(wanted[tree.MANIFEST].data)
    new = records.Record(target=str(target), hookmux=version(), python=python, files=tp.files,
                         legacy=tp.legacy, agents_dirs=list(agents_dirs),
                         source=str(source) if source else "",
                         dirs=sorted(set(old.dirs if old else []) | set(tp.new_dirs)),
                         wired=dict(old.wired) if old else {},
                         manifest=live_manifest.rows if live_manifest else {},
                         adopted=carry.adopted if carry else {})
    changes = []
    for path, host in ((settings, CLAUDE), (copilot_file(copilot_dir) if copilot_dir else None, COPILOT),
                       (codex_file(codex_home) if codex_home else None, CODEX)):
        if path is None:
            continue
        recorded_as = same_file_key(new.wired, path)
        recorded = new.wired.pop(recorded_as) if recorded_as else None
        wanted_of = host.wanted
        if serve and host is CLAUDE:  # a preview (--dry-run) makes no port or secret file
            wanted_of = functools.partial(entries.claude_serve_entries, create=not preview)
        change = plan_wiring(path, host, wanted_of(manifest, str(target), python), str(target), recorded)
        new.wired[str(path)] = change.info
        changes.append(change)
        if carry:
            carry.rewire(path, host, wanted_of, python)
        tp.notes += [f"{path}: also runs hookmux installed in {other}" for other in change.others]
    notes = tp.notes + (carry.notes if carry else [])
    return Plan(target, new, old, tp, changes, notes=notes, pending=_pending(new, old, tp),
                extra_writes=carry.writes if carry else {})


def _pending(new: records.Record, old: records.Record | None, tp: tree.TreePlan) -> records.Record:
    """The record written before anything else: what a crashed run leaves for the next one.

    Its files are those hookmux may own after a crash at any point: the installed ones (with
    both hashes while being replaced or deleted) and the ones not there before. A foreign file
    about to be kept as .legacy is not listed, so a rerun still moves it aside.
    """
    previous = old.files if old else {}
    pending = dataclasses.replace(new, pending=True, files={}, replacing={}, adopted=old.adopted if old else {},
                                  manifest_replacing=old.manifest if old and old.manifest != new.manifest else {})
    for rel, sha in new.files.items():
        if rel in previous or rel in tp.fresh:
            pending.files[rel] = sha
        if rel in previous and previous[rel] != sha:
            pending.replacing[rel] = previous[rel]
    for rel in tp.deletes:
        pending.files[rel] = previous[rel]
    return pending


def plan_uninstall(target: Path, settings: Path | None, copilot_dir: Path | None,
                   codex_home: Path | None = None) -> Plan:
    old = records.load(target)
    files: dict[str, Host] = {}
    if old:
        for name, info in old.wired.items():
            files[name] = HOSTS.get(info.get("host"), CLAUDE)
    for path, host in ((settings, CLAUDE), (copilot_file(copilot_dir) if copilot_dir else None, COPILOT),
                       (codex_file(codex_home) if codex_home else None, CODEX)):
        if path is not None and not same_file_key(files, path):
            files[str(path)] = host
    changes = [plan_wiring(Path(name), host, [], str(target), old.wired.get(name) if old else None)
               for name, host in files.items()]
    plan = Plan(target, records.Record(target=str(target)), old, None, changes, uninstall=True)
    for change in changes:
        plan.notes += _swept_notes(change, target)
    if old is None:
        if target.exists():
            plan.notes.append(f"{target}: no hookmux install record; removed hookmux's entries only")
        return plan
    live_manifest = manifest_merge.plan_uninstall(target, old)
    if live_manifest is not None:
        plan.notes += live_manifest.notes
        if live_manifest.data is not None:
            plan.rewrites[tree.MANIFEST] = live_manifest.data
    for rel, sha in old.files.items():
        path = target / rel
        current = tree.read_regular(path)
        if current is None or rel in plan.rewrites:
            continue
        if rel == tree.MANIFEST and live_manifest is not None:
            plan.removals.append(rel)
            continue
        if old.ours_unedited(rel, records.sha256(current)):
            plan.removals.append(rel)
        else:
            plan.kept.append(rel)
            plan.notes.append(f"{path}: edited since hookmux installed it; left in place")
    for rel, legacy in old.legacy.items():
        if rel in plan.kept or rel in plan.rewrites or not os.path.lexists(target / legacy):
            plan.notes.append(f"{target / legacy}: not restored to {target / rel}; do it by hand")
            continue
        plan.restores[legacy] = rel
    return plan


def _swept_notes(change: FileChange, target: Path) -> list[str]:
    """Entries uninstall removes although they are not in hookmux's form: they run its scripts."""
    if change.old is None:
        return []
    notes = []
    data = jsonfile.load(change.path).data
    for event, _, hook, _ in merge.entries_of(data, change.host.dialect):
        command = hook.get(change.host.dialect.command_key)
        if commands.references(command, target) and not commands.ours(command, target):
            script = next(str(target.joinpath(*tail)) for role, tail in commands.ROLES.items()
                          if tail[-1] in command)
            notes.append(f"{change.path}: removed a {event} entry that runs {script}, "
                         f"which uninstall deletes: {command}")
    return notes


# ---------------------------------------------------------------- showing


def _diff(name: str, old: bytes | None, new: bytes | None) -> str:
    def lines(data):
        return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)

    out = "".join(difflib.unified_diff(lines(old), lines(new), fromfile=name if old is not None else "/dev/null",
                                       tofile=name if new is not None else "/dev/null"))
    return out if out.endswith("\n") or not out else out + "\n"


def describe(plan: Plan, out: TextIO) -> None:
    target = plan.target
    if plan.tree is not None:
        tp = plan.tree
        for rel, legacy in tp.moves.items():
            out.write(f"move   {target / rel} -> {target / legacy}\n")
        for rel in tp.backups:
            out.write(f"backup {target / rel}\n")
        for rel in tp.writes:
            out.write(f"write  {target / rel}\n")
            if rel == tree.MANIFEST and (target / rel).is_file():  # merged into the user's: show how
                out.write(_diff(str(target / rel), (target / rel).read_bytes(), tp.writes[rel].data))
        for rel in tp.deletes:
            out.write(f"delete {target / rel}\n")
        for name in plan.extra_writes:
            out.write(f"write  {name}\n")
        record_path = records.path_of(target)
        if not record_path.is_file() or plan.record.to_bytes() != record_path.read_bytes():
            out.write(f"write  {record_path}\n")
    for rel in plan.removals:
        out.write(f"delete {target / rel}\n")
    for rel, data in plan.rewrites.items():
        out.write(_diff(str(target / rel), (target / rel).read_bytes(), data))
    for legacy, rel in plan.restores.items():
        out.write(f"move   {target / legacy} -> {target / rel}\n")
    if plan.uninstall and plan.old_record is not None:
        out.write(f"delete {records.path_of(target)}\n")
    for change in plan.wiring:
        if change.changed:
            out.write(_diff(str(change.path), change.old, change.new))


# ---------------------------------------------------------------- applying


def _apply_wiring(journal: Journal, change: FileChange) -> None:
    if not change.changed:
        return
    if change.new is None:
        journal.delete(change.path)
        return
    if change.backup:
        journal.backup(change.path)
    from hookmux.serve.files import carries_secret

    journal.write(change.path, change.new, 0o600 if carries_secret(change.new) else None)  # issue 32


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
    journal = Journal()
    try:
        if plan.uninstall:
            apply_uninstall(plan, journal)
        else:
            apply_install(plan, journal)
    except BaseException as exc:
        failures = journal.rollback()
        message = str(exc) if isinstance(exc, (InstallError, JsonFileError)) else _describe_error(exc)
        err.write(f"hookmux: {message}\nhookmux: nothing was changed\n" if not failures else
                  f"hookmux: {message}\nhookmux: rollback incomplete:\n  " + "\n  ".join(failures) + "\n")
        if not isinstance(exc, Exception):
            raise
        return 1
    for note in plan.notes:
        err.write(f"hookmux: {note}\n")
    return 0


def _describe_error(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"
