"""The live manifest belongs to the user too: merge hookmux's rows into it, take them out again.

``<target>/_dispatch/manifest.json`` holds hookmux's rows and the user's own. hookmux's rows
are the ones the install record lists (``Record.manifest``: per event the settings values and
the rows hookmux wrote), never guessed from names or scripts; everything else is the user's.
On install and upgrade:

- a user's row keeps its place, its order and its exact text (the file is edited like
  settings.json, see ``jsonedit``);
- a row of hookmux's that is still as installed is replaced by the shipped row, or dropped
  when no longer shipped; a newly shipped row goes after its shipped predecessor;
- a row of hookmux's the user edited (a changed ``timeout``, say) is the user's edit: kept
  as it is, reported here and by ``hookmux status``, never overwritten. Deleting the row by
  hand does not stop hookmux: install puts a shipped row back;
- an event's ``settings_matcher``/``settings_timeout`` follow the same rule, and a matcher
  hookmux owns is widened until it reaches every row (``reach``); a matcher the user set
  that keeps a row from ever running stops the install with the exact fix.

Without a record (a first install, or after uninstall) a row named like a shipped row of
the same event is the one the shipped row replaces; with a record from before row
tracking, the whole file counts as hookmux's when it is byte-identical to what was
installed. Uninstall removes hookmux's rows (edited ones too: their scripts go), keeps the
user's rows and events, and deletes the file only when nothing of the user's is left.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path

from hookmux import matchers, reach
from hookmux.installer import jsonedit, jsonfile
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.record import Record, sha256

MANIFEST = "_dispatch/manifest.json"
SETTINGS_KEYS = ("settings_matcher", "settings_timeout")
_ABSENT = object()


@dataclass
class Merged:
    data: bytes | None  # install: the bytes to write; uninstall: None = delete the file
    rows: dict = field(default_factory=dict)  # the record's "manifest": hookmux's part as written
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    user_rows: list[str] = field(default_factory=list)  # "events.E.checks[i](name='n')"


def owned(manifest: dict) -> dict:
    """hookmux's part of a manifest, the way the record keeps it."""
    out = {}
    for event, spec in (manifest.get("events") or {}).items():
        if isinstance(spec, dict):
            out[event] = {"settings": {k: spec[k] for k in SETTINGS_KEYS if k in spec},
                          "checks": {r["name"]: r for r in spec.get("checks") or [] if isinstance(r, dict)}}
    return out


def _same(a, b) -> bool:
    return jsonedit.canon(a) == jsonedit.canon(b)


class Owner:
    """Tells hookmux's rows and settings from the user's, by the record."""

    def __init__(self, recorded: list[dict], fallback: dict | None):
        self.recorded = recorded  # the record's rows (and, mid-install, the previous ones)
        self.fallback = fallback  # no row record: hookmux's by name against these

    def row(self, event: str, row) -> str | None:
        """"ours" (as installed), "edited" (hookmux's, changed by the user) or None (the user's)."""
        name = row.get("name") if isinstance(row, dict) else None
        versions = [r[event]["checks"][name] for r in self.recorded
                    if name in r.get(event, {}).get("checks", {})]
        if versions:
            return "ours" if any(_same(row, v) for v in versions) else "edited"
        if self.fallback is not None and name in self.fallback.get(event, {}).get("checks", {}):
            return "ours"
        return None

    def recorded_event(self, event: str) -> bool:
        return any(event in r for r in self.recorded)

    def setting(self, event: str, key: str, spec: dict) -> bool:
        """May hookmux set this event's ``key``? Yes when it holds what hookmux wrote, or nothing."""
        versions = [r[event]["settings"].get(key, _ABSENT) for r in self.recorded if event in r]
        if versions:
            value = spec.get(key, _ABSENT)
            return any(value is v or (value is not _ABSENT and v is not _ABSENT and _same(value, v))
                       for v in versions)
        if self.fallback is not None and event in self.fallback:
            return True
        return key not in spec


def _owner(record: Record | None, live: jsonfile.JsonFile, wanted: dict) -> Owner:
    if record is None:
        return Owner([], owned(wanted))
    if record.manifest:
        return Owner([record.manifest] + ([record.manifest_replacing] if record.manifest_replacing else []), None)
    if record.ours_unedited(MANIFEST, sha256(live.raw)):
        return Owner([owned(live.data)], None)
    return Owner([], owned(wanted))


def _load(path: Path) -> jsonfile.JsonFile | None:
    """The live manifest, or None when it is not a manifest hookmux can merge into."""
    loaded = jsonfile.load(path)
    if not loaded.exists:
        return loaded
    events = loaded.data.get("events")
    if not isinstance(events, dict) or not all(
            isinstance(spec, dict) and isinstance(spec.get("checks", []), list) for spec in events.values()):
        return None
    return loaded


def _where(path: Path, event: str, index: int, row) -> str:
    return f"{path}: {reach.describe(event, index, row if isinstance(row, dict) else {})}"


def plan_install(target: Path, shipped: bytes, record: Record | None,
                 live: jsonfile.JsonFile | None = None) -> Merged | None:
    """The live manifest with hookmux's rows merged in; None: not a manifest (handled as a file).
    ``live``: the manifest to merge into instead of the file (adopt's, without its rows)."""
    path = target / MANIFEST
    wanted = json.loads(shipped)
    live = _load(path) if live is None else live
    if live is None:
        return None
    if not live.exists:
        merged = Merged(shipped, owned(wanted))
        _widen(path, wanted, {event: True for event in wanted["events"]}, merged)
        if merged.data is not shipped:
            merged.data = (json.dumps(wanted, indent=2, ensure_ascii=False) + "\n").encode()
        merged.rows = _recorded(wanted, wanted, {event: set(SETTINGS_KEYS) for event in wanted["events"]})
        return merged
    owner = _owner(record, live, wanted)
    new = copy.deepcopy(live.data)
    merged = Merged(None)
    for key, value in wanted.items():
        if key != "events":
            new[key] = value
    events = new.setdefault("events", {})
    ours_settings: dict[str, set] = {}
    for event in list(events):
        spec = events[event]
        wspec = wanted["events"].get(event, {"checks": []})
        ours_settings[event] = {k for k in SETTINGS_KEYS if owner.setting(event, k, spec)}
        spec["checks"] = _merge_rows(path, event, spec.get("checks", []), wspec.get("checks", []), owner, merged)
        for key in ours_settings[event]:
            if key in wspec:
                spec[key] = wspec[key]
            elif event not in wanted["events"]:
                spec.pop(key, None)
        if (event not in wanted["events"] and not spec["checks"] and owner.recorded_event(event)
                and len(ours_settings[event]) == len(SETTINGS_KEYS)):
            del events[event]
    for event, wspec in wanted["events"].items():
        if event not in events:
            events[event] = copy.deepcopy(wspec)
            ours_settings[event] = set(SETTINGS_KEYS)
    _widen(path, new, {e: "settings_matcher" in keys for e, keys in ours_settings.items()}, merged)
    if merged.user_rows:
        merged.notes.append(f"{path}: your rows kept: {', '.join(merged.user_rows)}")
    merged.rows = _recorded(new, wanted, ours_settings)
    merged.data = live.raw if _same(new, live.data) else live.render(new)
    return merged


def _merge_rows(path: Path, event: str, rows: list, shipped: list, owner: Owner, merged: Merged) -> list:
    shipped_by_name = {r["name"]: r for r in shipped}
    out: list = []
    taken: set = set()
    for index, row in enumerate(rows):
        state = owner.row(event, row)
        name = row.get("name") if isinstance(row, dict) else None
        if state == "ours":
            if name in shipped_by_name and name not in taken:
                out.append(copy.deepcopy(shipped_by_name[name]))
                taken.add(name)
            continue
        if state == "edited":
            taken.add(name)
            if name in shipped_by_name:
                merged.notes.append(f"{_where(path, event, len(out), row)}: hookmux's row as you edited it is "
                                    "kept; hookmux's own version is not applied")
            else:
                merged.notes.append(f"{_where(path, event, len(out), row)}: hookmux no longer ships this row; "
                                    "your edited copy is kept and is yours now")
        elif name in shipped_by_name:
            merged.errors.append(f"{_where(path, event, index, row)}: a row of yours has the name of a row "
                                 f"hookmux ships; rename yours (names are unique per event)")
        else:
            merged.user_rows.append(reach.describe(event, len(out), row))
        out.append(row)
    order = [r["name"] for r in shipped]
    for i, name in enumerate(order):
        if name in taken:
            continue
        out.insert(_slot(out, order[:i], order[i + 1:]), copy.deepcopy(shipped_by_name[name]))
        taken.add(name)
    return out


def _slot(rows: list, before: list[str], after: list[str]) -> int:
    """Where a newly shipped row goes: after its nearest shipped predecessor, else before its
    nearest successor, else at the end."""
    names = [r.get("name") if isinstance(r, dict) else None for r in rows]
    for name in reversed(before):
        if name in names:
            return names.index(name) + 1
    for name in after:
        if name in names:
            return names.index(name)
    return len(rows)


def _widen(path: Path, manifest: dict, ours: dict, merged: Merged) -> None:
    for event, spec in manifest.get("events", {}).items():
        rows = [r for r in spec.get("checks", []) if isinstance(r, dict)]
        wider = matchers.widen(spec.get("settings_matcher"), rows)
        if wider is None:
            continue
        if ours.get(event):
            merged.notes.append(f"{path}: events.{event}.settings_matcher widened to {wider!r} so that "
                                "every row is reached")
            spec["settings_matcher"] = wider
            merged.data = None
            continue
        for index, row in reach.unreachable(event, spec):
            merged.errors.append(
                f"{_where(path, event, index, row)}: never runs: your events.{event}.settings_matcher "
                f"{spec.get('settings_matcher')!r} lets none of its tools through; set it to {wider!r}")


def _recorded(manifest: dict, wanted: dict, ours_settings: dict) -> dict:
    out = {}
    for event, wspec in wanted["events"].items():
        spec = manifest["events"].get(event, {})
        out[event] = {"settings": {k: spec[k] for k in SETTINGS_KEYS if k in ours_settings.get(event, ()) and k in spec},
                      "checks": {r["name"]: r for r in wspec.get("checks", [])}}
    return out


def plan_uninstall(target: Path, record: Record | None) -> Merged | None:
    """The live manifest without hookmux's rows (``data`` None: delete it); None: not hookmux's
    to edit (no record of its rows, or not a manifest)."""
    path = target / MANIFEST
    try:
        live = _load(path)
    except JsonFileError:
        return None
    if live is None or not live.exists or record is None:
        return None
    if record.manifest:
        owner = Owner([record.manifest] + ([record.manifest_replacing] if record.manifest_replacing else []), None)
    elif record.ours_unedited(MANIFEST, sha256(live.raw)):
        return Merged(None)
    else:
        return None
    new = copy.deepcopy(live.data)
    merged = Merged(None)
    events = new["events"]
    for event in list(events):
        spec = events[event]
        keep = []
        for index, row in enumerate(spec.get("checks", [])):
            state = owner.row(event, row)
            if state == "edited":
                merged.notes.append(f"{_where(path, event, index, row)}: your edit of hookmux's row is removed "
                                    "with its script")
            if state is None:
                merged.user_rows.append(reach.describe(event, len(keep), row))
                keep.append(row)
        spec["checks"] = keep
        if not keep and owner.recorded_event(event) and all(owner.setting(event, k, spec) for k in SETTINGS_KEYS):
            del events[event]
    if not events:
        return merged
    merged.data = live.render(new)
    merged.notes.append(f"{path}: kept with your {len(merged.user_rows)} row(s); hookmux install runs them again")
    return merged


def wired_matchers(settings: dict, target: Path) -> dict:
    """event -> the matcher of the Claude-format settings entry running this target's dispatcher."""
    from hookmux.installer import commands, merge

    out = {}
    for event, _, hook, group in merge.entries_of(settings, merge.CLAUDE):
        parsed = commands.ours(hook.get("command"), target)
        if parsed and parsed.role == "dispatch" and group is not None:
            out[event] = group.get("matcher")
    return out


def inspect(target: Path, record: Record, shipped: dict | None, wired: dict | None = None) -> dict:
    """``hookmux status``'s view: the user's rows, hookmux's rows the user edited or removed,
    rows no settings matcher reaches (the manifest's, and ``wired``: event -> the matcher
    really wired in a Claude-format settings file), and whether the package ships other rows."""
    path = target / MANIFEST
    report = {"user_rows": [], "edited": [], "missing": [], "unreachable": [], "unwired": [], "outdated": False}
    try:
        live = _load(path)
    except JsonFileError as exc:
        report["error"] = str(exc)
        return report
    if live is None or not live.exists:
        return report
    owner = _owner(record, live, shipped or {"events": {}})
    seen = set()
    for event, spec in live.data["events"].items():
        for index, row in enumerate(spec.get("checks", [])):
            state = owner.row(event, row)
            where = reach.describe(event, index, row if isinstance(row, dict) else {})
            if state is None:
                report["user_rows"].append(where)
            else:
                seen.add((event, row.get("name")))
                if state == "edited":
                    report["edited"].append(where)
        report["unreachable"] += [reach.describe(event, i, row) for i, row in reach.unreachable(event, spec)]
        if wired and event in wired:
            as_wired = dict(spec, settings_matcher=wired[event])
            report["unwired"] += [reach.describe(event, i, row) for i, row in reach.unreachable(event, as_wired)
                                  if (event, i) not in {(event, j) for j, _ in reach.unreachable(event, spec)}]
    recorded = record.manifest or {}
    report["missing"] = [f"events.{event}.checks(name={name!r})" for event, part in recorded.items()
                         for name in part.get("checks", {}) if (event, name) not in seen]
    if shipped is not None and record.manifest:
        shipped_rows = {e: p["checks"] for e, p in owned(shipped).items()}
        report["outdated"] = not _same(shipped_rows, {e: p["checks"] for e, p in recorded.items()})
    return report
