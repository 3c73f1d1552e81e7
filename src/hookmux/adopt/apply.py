"""Write an adopt plan, and take it back, through the installer's machinery: one journal (every
write atomic, rolled back on any failure), a backup of each file before its first change, the
installer's merge for the dispatcher entries, and the install record.

The record's ``adopted`` holds what undo needs: per host file its bytes' hashes before and
after and its backup, per adopted entry its exact JSON value and place, per manifest event its
settings before. Undo rebuilds the data (entries put back at their places, rows taken out,
settings matchers restored, the dispatcher entries re-merged); when that equals the backup's
data the backup's bytes are written, so a file nothing else changed comes back byte for byte.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import TextIO

from hookmux.adopt.plan import AdoptError, AdoptPlan
from hookmux.installer import jsonfile, merge, record as records, transaction, tree
from hookmux.installer.show import diff
from hookmux.installer.journal import Journal
from hookmux.installer.wiring_files import HOSTS, CLAUDE

FORMAT = 1


# ---------------------------------------------------------------- apply


def apply(plan: AdoptPlan, journal: Journal) -> None:
    rec = plan.record
    target = plan.target
    manifest_path = plan.manifest_path
    new_manifest = plan.new_manifest_bytes
    files = write_host_files(plan, journal)
    manifest_backup = journal.backup(manifest_path)
    journal.write(manifest_path, new_manifest)
    errors = _validate(target)
    if errors:
        raise AdoptError("the manifest with the adopted rows is invalid:\n  " + "\n  ".join(errors))
    old_sha = rec.files.get(tree.MANIFEST)
    if old_sha is not None and old_sha == records.sha256(plan.manifest.raw):
        rec.files[tree.MANIFEST] = records.sha256(new_manifest)
    rec.adopted = {
        "format": FORMAT,
        "rows": adopted_rows(plan),
        "events": plan.events,
        "manifest": {"backup": str(manifest_backup), "before": records.sha256(plan.manifest.raw),
                     "after": records.sha256(new_manifest), "record_sha": old_sha},
        "files": files,
    }
    journal.write(records.path_of(target), rec.to_bytes(), 0o644)


def adopted_rows(plan: AdoptPlan) -> list[dict]:
    return [{"event": c.event, "name": c.row["name"], "script": c.row["script"], "file": str(c.entry.file)}
            for c in plan.adopted]


def write_host_files(plan: AdoptPlan, journal: Journal) -> dict[str, dict]:
    """Each changed host file backed up and written; the record's ``files`` (undo's information)."""
    rec = plan.record
    files: dict[str, dict] = {}
    for file_plan in plan.files:
        if not file_plan.changed:
            continue
        backup = journal.backup(file_plan.path)
        new = file_plan.new_bytes
        journal.write(file_plan.path, new)
        entry = {"host": file_plan.host.name, "backup": str(backup),
                 "before": records.sha256(file_plan.loaded.raw), "after": records.sha256(new),
                 "entries": file_plan.removed}
        if file_plan.wired:
            entry["created"] = list(rec.wired.get(str(file_plan.path), {}).get("created") or [])
            rec.wired.setdefault(str(file_plan.path), {})["created"] = file_plan.made or []
        files[str(file_plan.path)] = entry
    return files


def _validate(target: Path) -> list[str]:
    from hookmux.validation import validate_manifest

    errors, _ = validate_manifest(target / tree.MANIFEST, hooks_root=str(target))
    return list(errors)


# ---------------------------------------------------------------- undo


class UndoPlan:
    """What undo writes: (path, new bytes) per file, backups to delete, the record after."""

    def __init__(self, target: Path, rec: records.Record | None):
        self.target = target
        self.record = rec
        self.writes: list[tuple[Path, bytes, bytes | None]] = []  # path, new, old
        self.deletes: list[Path] = []
        self.notes: list[str] = []


def plan_undo(target: Path) -> UndoPlan | None:
    rec = records.load(target)
    if rec is None or not rec.adopted:
        return None
    adopted = rec.adopted
    undo = UndoPlan(target, rec)
    manifest_path = target / tree.MANIFEST
    manifest_info = adopted.get("manifest") or {}
    restored_manifest = _undo_manifest(manifest_path, adopted, undo)
    undo_host_files(adopted, undo, rec, restored_manifest)
    record_sha = manifest_info.get("record_sha")
    if record_sha is not None and tree.MANIFEST in rec.files:
        rec.files[tree.MANIFEST] = record_sha
    rec.adopted = {}
    return undo


def undo_host_files(adopted: dict, undo: UndoPlan, rec: records.Record | None, restored_manifest: dict | None) -> None:
    """The writes that put each adopted entry back into its host file (``rec``: the install whose
    dispatcher entries are re-merged; None when no file is wired)."""
    target = undo.target
    for name, info in (adopted.get("files") or {}).items():
        path = Path(name)
        host = HOSTS.get(info.get("host"), CLAUDE)
        loaded = jsonfile.load(path)
        data = copy.deepcopy(loaded.data) if loaded.exists else {}
        _put_back(data, info.get("entries") or [], host)
        if rec is not None and name in rec.wired:
            wired = rec.wired[name]
            created = set(info.get("created") or ())
            wanted = host.wanted(restored_manifest, str(target), rec.python) if restored_manifest is not None else []
            data, _ = merge.merge(data, wanted, str(target), host.dialect, created, name)
            wired["created"] = sorted(created)
        new = _exact_or_render(loaded, data, Path(info.get("backup", "")), info.get("before"), undo)
        if not loaded.exists or new != loaded.raw:
            undo.writes.append((path, new, loaded.raw if loaded.exists else None))


def _undo_manifest(path: Path, adopted: dict, undo: UndoPlan) -> dict | None:
    loaded = jsonfile.load(path)
    if not loaded.exists:
        undo.notes.append(f"{path}: missing; the adopted rows are gone with it")
        return None
    data = strip(loaded.data, adopted)
    info = adopted.get("manifest") or {}
    new = _exact_or_render(loaded, data, Path(info.get("backup", "")), info.get("before"), undo)
    if new != loaded.raw:
        undo.writes.append((path, new, loaded.raw))
    return data


def is_adopted(adopted: dict, event: str, row) -> bool:
    """Is ``row`` (of ``event``) one of the rows adopt added?"""
    if not isinstance(row, dict):
        return False
    key = (event, row.get("name"), row.get("script"))
    return any((r["event"], r["name"], r["script"]) == key for r in adopted.get("rows") or [])


def strip(manifest: dict, adopted: dict) -> dict:
    """``manifest`` as it would be without the adoption: the adopted rows out, each adopted
    event's settings as they were before (the event gone when adopt added it)."""
    data = copy.deepcopy(manifest)
    events = data.get("events") if isinstance(data.get("events"), dict) else {}
    for event, before in (adopted.get("events") or {}).items():
        spec = events.get(event)
        if not isinstance(spec, dict):
            continue
        checks = [c for c in spec.get("checks") or [] if not is_adopted(adopted, event, c)]
        spec["checks"] = checks
        if not before.get("existed") and not checks:
            del events[event]
            continue
        for key in ("settings_matcher", "settings_timeout"):
            if before.get(key) is None:
                spec.pop(key, None)
            else:
                spec[key] = before[key]
    return data


def _exact_or_render(loaded: jsonfile.JsonFile, data: dict, backup: Path, before_sha: str | None,
                     undo: UndoPlan) -> bytes:
    """The backup's bytes when they hold exactly ``data``; else ``data`` in the file's own style."""
    try:
        raw = backup.read_bytes() if backup.name else None
    except OSError:
        raw = None
    if raw is not None:
        if records.sha256(raw) == before_sha:
            try:
                if _same(jsonfile.load(backup).data, data):
                    undo.deletes.append(backup)
                    return raw
            except jsonfile.JsonFileError:
                pass
        undo.notes.append(f"{loaded.path}: changed since adopt; the adopted entries were put back into it "
                          f"(its state before adopt is kept in {backup})")
    if not loaded.exists:
        return jsonfile.dump(data, jsonfile.Style())
    return loaded.render(data)


def _same(a: dict, b: dict) -> bool:
    """Equal data, telling 1, 1.0 and true apart; key order does not matter."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _put_back(data: dict, removed: list[dict], host) -> None:
    """Every removed entry at its recorded place (in the original file's order)."""
    if not removed:
        return
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise AdoptError('"hooks" is no longer an object; put the adopted entries back by hand')
    ordered = sorted(removed, key=lambda i: (i["event_position"], i["group_index"] or 0, i["hook_index"]))
    recreated: dict[tuple[str, int], dict] = {}
    for info in ordered:
        event = info["event"]
        if event not in hooks:
            keys = list(hooks)
            position = min(info["event_position"], len(keys))
            rebuilt = {k: hooks[k] for k in keys[:position]}
            rebuilt[event] = []
            rebuilt.update({k: hooks[k] for k in keys[position:]})
            hooks.clear()
            hooks.update(rebuilt)
        items = hooks[event]
        if info["group_index"] is None:
            items.insert(min(info["hook_index"], len(items)), copy.deepcopy(info["hook"]))
            continue
        key = (event, info["group_index"])
        group = recreated.get(key) or _group_at(items, info)
        if info.get("group_removed"):
            recreated[key] = group
        group["hooks"].insert(min(info["hook_index"], len(group["hooks"])), copy.deepcopy(info["hook"]))


def _group_at(items: list, info: dict) -> dict:
    """The matcher group the entry came from: still at its index (unless adopt removed it),
    else re-created there."""
    index = info["group_index"]
    wanted = info.get("group") or {}
    if not info.get("group_removed") and index < len(items):
        candidate = items[index]
        if isinstance(candidate, dict) and isinstance(candidate.get("hooks"), list) and \
                {k: v for k, v in candidate.items() if k != "hooks"} == wanted:
            return candidate
    group = dict(wanted)
    group["hooks"] = []
    items.insert(min(index, len(items)), group)
    return group


def apply_undo(undo: UndoPlan, journal: Journal) -> None:
    for path, new, _old in undo.writes:
        journal.write(path, new)
    journal.write(records.path_of(undo.target), undo.record.to_bytes(), 0o644)
    for backup in undo.deletes:
        if backup.is_file():
            journal.delete(backup)


def describe_undo(undo: UndoPlan, out: TextIO) -> None:
    for path, new, old in undo.writes:  # the installer's diff, so both read alike
        out.write(diff(str(path), old, new))
    for backup in undo.deletes:
        out.write(f"delete {backup}\n")


def run_transaction(action, err: TextIO) -> int:
    """``action(journal)`` in the installer's transaction (rolled back on any failure)."""
    return transaction.run(action, err, describe=lambda exc: f"{type(exc).__name__}: {exc}")
