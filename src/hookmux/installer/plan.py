"""The install and uninstall plans: every change worked out first, refusing bad input before
anything is touched. ``show`` prints a plan (``--dry-run``), ``apply`` carries it out under the
lock and rolls everything back on any failure."""
from __future__ import annotations

import dataclasses
import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol

from hookmux import __version__, resources
from hookmux.errors import InstallError
from hookmux.installer import commands, entries, jsonfile, manifest_merge, merge, record as records, tree
from hookmux.installer.codex_hooks import hooks_file as codex_file
from hookmux.installer.gemini_hooks import settings_file as gemini_file
from hookmux.installer.wiring_files import CLAUDE, CODEX, COPILOT, CURSOR, GEMINI, HOSTS, QWEN, Host, copilot_file, \
    same_file_key
from hookmux.installer.wiring_plan import FileChange, plan_wiring


def version() -> str:
    return __version__


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


class Readopt(Protocol):
    """What a reinstall over adopted hooks needs from adopt (``adopt.carry.Carry`` is one):
    built from the target and its old record, it hands the merge the manifest as if nothing
    were adopted, lays the adoption over the merged one again, and checks each host file."""

    plain: jsonfile.JsonFile | None  #: the live manifest without the adoption
    adopted: dict  #: the record's ``adopted`` after the reinstall
    writes: dict[str, bytes]  #: backups to (re)write in the install transaction
    notes: list[str]

    def readopt(self, merged: bytes) -> bytes: ...

    def rewire(self, path: Path, host: Host, wanted_of, python: str) -> None: ...


def plan_install(target: Path, settings: Path | None, copilot_dir: Path | None, python: str,
                 agents_dirs: list[str], source: Path | None = None, codex_home: Path | None = None,
                 serve: bool = False, preview: bool = False,
                 readopt: Callable[[Path, records.Record], Readopt] | None = None,
                 gemini_home: Path | None = None, cursor_file: Path | None = None, qwen_file: Path | None = None) -> Plan:
    """The install's plan. ``readopt`` (``adopt.carry.Carry``) carries an adoption over; without
    it a target with adopted hooks is refused."""
    tree_root = (source or resources.hooks_tree()).resolve()
    if target.resolve() == tree_root or tree_root in target.resolve().parents:
        raise InstallError(f"{target}: is inside the hooks tree hookmux installs from ({tree_root})")
    old = records.load(target)
    wanted = tree.wanted_files(str(target), agents_dirs, source)
    carry = None
    if old is not None and old.adopted:  # merged as if nothing were adopted, then laid over again
        if readopt is None:
            raise InstallError(f"{target}: hooks are adopted there; this install cannot carry them over")
        carry = readopt(target, old)
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
                       (codex_file(codex_home) if codex_home else None, CODEX),
                       (gemini_file(gemini_home) if gemini_home else None, GEMINI), (cursor_file, CURSOR),
                       (qwen_file, QWEN)):
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
                   codex_home: Path | None = None, gemini_home: Path | None = None,
                   cursor_file: Path | None = None, qwen_file: Path | None = None) -> Plan:
    old = records.load(target)
    files: dict[str, Host] = {}
    if old:
        for name, info in old.wired.items():
            files[name] = HOSTS.get(info.get("host"), CLAUDE)
    for path, host in ((settings, CLAUDE), (copilot_file(copilot_dir) if copilot_dir else None, COPILOT),
                       (codex_file(codex_home) if codex_home else None, CODEX),
                       (gemini_file(gemini_home) if gemini_home else None, GEMINI), (cursor_file, CURSOR),
                       (qwen_file, QWEN)):
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
