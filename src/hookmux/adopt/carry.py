"""``hookmux install`` (a reinstall, an upgrade) while hooks are adopted: the installer merges
the shipped manifest as if nothing were adopted, and the adoption is laid over the result
again, so the adopted rows, the host files' state and the undo data all survive.

- ``plain``: the live manifest without the adopted rows and with each adopted event's settings
  as before the adopt (``apply.strip``): what the installer's merge would find without them;
- ``readopt``: the merged manifest with each adopted row back exactly as it is, after the row
  it followed, and each adopted event's settings widened again from the merged ones (values
  the user changed by hand after adopt are kept);
- the undo data follows the upgrade: the events' settings before are the merged ones, and a
  backup (manifest, host file) no longer holding what the upgrade alone would have written is
  rewritten to it, so ``adopt --undo`` and ``uninstall`` end where they would without adopt.
"""
from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

from hookmux.adopt import apply, plan as adopt_plan
from hookmux.errors import InstallError
from hookmux.installer import atomic, jsonfile, merge, record as records, tree
from hookmux.installer.wiring_files import CLAUDE, HOSTS, same_file_key

SETTINGS_KEYS = ("settings_matcher", "settings_timeout")


def _file(like: jsonfile.JsonFile, raw: bytes) -> jsonfile.JsonFile:
    text = raw.decode("utf-8-sig")
    return dataclasses.replace(like, exists=True, raw=raw, text=text, data=json.loads(text))


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


class Carry:
    def __init__(self, target: Path, old: records.Record):
        self.target = target
        self.adopted = copy.deepcopy(old.adopted)
        self.wired = dict(old.wired)
        self.writes: dict[str, bytes] = {}  # backups to (re)write in the install transaction
        self.notes: list[str] = []
        self.live = jsonfile.load(target / tree.MANIFEST)
        self.plain: jsonfile.JsonFile | None = None
        self.plain_manifest: dict | None = None
        if self.live.exists and isinstance(self.live.data.get("events"), dict):
            data = apply.strip(self.live.data, self.adopted)
            backup = self._manifest_backup()
            raw = backup.raw if backup is not None and _same(backup.data, data) else self.live.render(data)
            self.plain = _file(self.live, raw)

    def _manifest_backup(self) -> jsonfile.JsonFile | None:
        info = self.adopted.get("manifest") or {}
        try:
            loaded = jsonfile.load(info["backup"])
        except (KeyError, OSError, jsonfile.JsonFileError):
            return None
        return loaded if loaded.exists and records.sha256(loaded.raw) == info.get("before") else None

    # ------------------------------------------------------------ the manifest

    def readopt(self, merged: bytes) -> bytes:
        """The merged manifest (``merged``, from ``plain``) with the adoption laid over it again."""
        if self.plain is None:
            return merged
        plain = _file(self.plain, merged)
        self.plain_manifest = plain.data
        final = copy.deepcopy(plain.data)
        events = final.setdefault("events", {})
        live_events = self.live.data["events"]
        kept = 0
        for event, old_before in (self.adopted.get("events") or {}).items():
            existed = event in events
            spec = events.setdefault(event, {"checks": []})
            self.adopted["events"][event] = {"existed": existed, **{k: spec.get(k) for k in SETTINGS_KEYS}}
            live_spec = live_events.get(event) if isinstance(live_events.get(event), dict) else {}
            live_rows = live_spec.get("checks") or []
            rows = [r for r in live_rows if apply.is_adopted(self.adopted, event, r)]
            if not rows:
                if not existed:
                    del events[event]
                continue
            kept += len(rows)
            wanted = self._settings_names(event)
            longest = max([r["timeout"] for r in rows if isinstance(r.get("timeout"), (int, float))] or [0])
            expected = {k: old_before[k] for k in SETTINGS_KEYS if old_before.get(k) is not None}
            adopt_plan.widen_event(expected, event, bool(old_before.get("existed")), wanted, longest)
            if all(expected.get(k) == live_spec.get(k) for k in SETTINGS_KEYS):
                adopt_plan.widen_event(spec, event, existed, wanted, longest)
            else:  # set by hand since adopt: the user's
                for key in SETTINGS_KEYS:
                    if key in live_spec:
                        spec[key] = live_spec[key]
                    else:
                        spec.pop(key, None)
            spec["checks"] = _interleave(spec.get("checks") or [], live_rows,
                                         lambda row, e=event: apply.is_adopted(self.adopted, e, row))
            if not existed:
                events[event] = {k: spec[k] for k in (*SETTINGS_KEYS, "checks") if k in spec}
        out = self.live.raw if _same(final, self.live.data) else plain.render(final)
        self._refresh_manifest_backup(merged, out)
        if kept:
            self.notes.append(f"{self.target / tree.MANIFEST}: {kept} adopted hook(s) kept behind the dispatcher "
                              "(hookmux adopt --undo puts them back)")
        return out

    def _settings_names(self, event: str) -> list:
        out = []
        for info in (self.adopted.get("files") or {}).values():
            host = HOSTS.get(info.get("host"), CLAUDE)
            out += [adopt_plan.settings_names_of(host, e) for e in info.get("entries") or []
                    if e.get("manifest_event") == event]
        return out

    def _refresh_manifest_backup(self, merged: bytes, final: bytes) -> None:
        info = self.adopted.setdefault("manifest", {})
        if info.get("record_sha") is not None:
            info["record_sha"] = records.sha256(merged)
        info["after"] = records.sha256(final)
        backup = self._manifest_backup()
        if backup is not None and backup.raw == merged:
            return
        path = info.get("backup") or str(atomic.backup_path(self.target / tree.MANIFEST))
        info["backup"], info["before"] = path, records.sha256(merged)
        self.writes[path] = merged

    # ------------------------------------------------------------ the host files

    def rewire(self, path: Path, host, wanted_of, python: str) -> None:
        """Refresh the host file's backup to what the upgrade alone would make of it. A file
        not wired before is refused: the adopted rows would run in its sessions too."""
        if same_file_key(self.wired, path) is None:
            raise InstallError(f"{path}: not wired to {self.target} yet, and hooks are adopted there: the "
                               "adopted hooks would run from it too. Run hookmux adopt --undo first, or install "
                               "with the files wired now")
        info = (self.adopted.get("files") or {}).get(str(path))
        if info is None or self.plain_manifest is None:
            return
        try:
            backup = jsonfile.load(info.get("backup", ""))
        except (OSError, jsonfile.JsonFileError):
            return
        if not backup.exists or records.sha256(backup.raw) != info.get("before"):
            return  # undo already cannot restore it exactly: it says so then
        wanted = wanted_of(self.plain_manifest, str(self.target), python)
        data, made = merge.merge(backup.data, wanted, str(self.target), host.dialect,
                                 set(info.get("created") or ()), str(path))
        if data == backup.data:
            return
        raw = backup.render(data)
        self.writes[str(backup.path)] = raw
        info["before"], info["created"] = records.sha256(raw), made


def _interleave(rows: list, live_rows: list, adopted) -> list:
    """``rows`` with the adopted rows of ``live_rows`` put back, each after the row it followed."""
    out = list(rows)
    names = lambda: [r.get("name") if isinstance(r, dict) else None for r in out]  # noqa: E731
    at = 0
    for row in live_rows:
        if adopted(row):
            out.insert(at, row)
            at += 1
        elif isinstance(row, dict) and row.get("name") in names():
            at = names().index(row.get("name")) + 1
    return out
