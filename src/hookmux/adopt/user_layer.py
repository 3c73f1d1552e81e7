"""``hookmux adopt`` when hookmux runs as a plugin: the adopted rows go into the user layer
(``manifest.user_layer_path()``), the undo record beside it (``adopted.json``, 0600).

The plan, the entries' removal, the backups and the journal are adopt's own (``plan``,
``apply``); what differs is where the rows go and which hooks can go there: the plugin's
``hooks/hooks.json`` runs the dispatcher only on its own events and matchers, so a hook on
anything else stays where it is.
"""
from __future__ import annotations

import copy
import json
import os
from pathlib import Path

from hookmux import matchers, plugin, resources
from hookmux.adopt import analysis, discover
from hookmux.adopt.apply import FORMAT, UndoPlan, _exact_or_render, adopted_rows, strip, undo_host_files, \
    write_host_files
from hookmux.adopt.plan import AdoptError, AdoptPlan, FilePlan, _add_rows, _name_rows, _remove_entries, classify
from hookmux.installer import jsonfile, record as records
from hookmux.installer.journal import Journal
from hookmux.installer.wiring_files import CLAUDE

RECORD = "adopted.json"
_DISPATCH = "/hooks/_dispatch/dispatch.py"


def layer_path() -> Path:
    return Path(resources.runtime("manifest").user_layer_path())


def record_path(layer: Path) -> Path:
    return layer.parent / RECORD


class LayerPlan(AdoptPlan):
    """An adopt plan whose manifest is the user layer."""

    layer: Path = Path()

    @property
    def manifest_path(self) -> Path:
        return self.layer


def served() -> dict[str, list[tuple[str | None, float]]]:
    """event -> [(matcher, timeout)] of the plugin's dispatcher entries (hooks/hooks.json)."""
    out: dict[str, list[tuple[str | None, float]]] = {}
    for event, groups in plugin.shipped_hooks_json()["hooks"].items():
        for group in groups:
            for hook in group["hooks"]:
                if _DISPATCH in hook["command"]:
                    out.setdefault(event, []).append((group.get("matcher"), hook["timeout"]))
    return out


def why_not_served(event: str, matcher: str | None, wiring: dict) -> str:
    """Why the plugin's dispatcher would not run a row of ``event`` for every call the hook's
    Claude Code ``matcher`` selects; "" when it would."""
    entries = wiring.get(event)
    if not entries:
        return f"the plugin runs the dispatcher on {', '.join(wiring)} only, not on {event}"
    if event not in matchers.TOOL_EVENTS or any(matchers.every_tool(m) for m, _ in entries):
        return ""
    wired = " or ".join(repr(m) for m, _ in entries)
    if matchers.every_tool(matcher):
        return f"it runs on every tool; the plugin runs the dispatcher on {event} for {wired} only"
    tools = [t for t in matchers.CLAUDE_TOOLS if matchers.host_catches(CLAUDE, matcher, t)]
    missing = [t for t in tools if not any(matchers.host_catches(CLAUDE, m, t) for m, _ in entries)]
    if not tools or missing:
        return (f"its matcher {matcher!r} selects {missing[0] if missing else 'tools'} the plugin's dispatcher does "
                f"not run on ({event} for {wired} only)")
    return ""


def build(settings: Path) -> LayerPlan:
    layer = layer_path()
    if record_path(layer).exists():
        raise AdoptError(f"{record_path(layer)}: hooks are already adopted into the user layer; run hookmux adopt "
                         "--undo first to adopt again")
    manifest = jsonfile.load(layer)
    data = copy.deepcopy(manifest.data) if manifest.exists else {"version": 1}  # as new-check starts one
    if not isinstance(data.get("events", {}), dict):
        raise AdoptError(f"{layer}: \"events\" is not an object")
    wiring = served()
    candidates, files = [], []
    loaded = jsonfile.load(settings)
    if loaded.exists:
        project = discover.project_dir_of(settings)
        for entry in discover.entries_of(loaded.data, settings, CLAUDE):
            candidate = classify(entry, project, project)
            if candidate.row is not None:
                why = why_not_served(candidate.event, entry.matcher, wiring)
                if why:
                    candidate.kind, candidate.row, candidate.reason = analysis.NOT_ADOPTABLE, None, why
                else:  # the host stops the plugin's dispatcher at its entry's timeout
                    longest = max(t for _, t in wiring[candidate.event]) - 1
                    candidate.row["timeout"] = min(candidate.row["timeout"], longest)
            candidates.append(candidate)
        files.append(FilePlan(settings, CLAUDE, loaded, copy.deepcopy(loaded.data), False))
    plan = LayerPlan(layer.parent, records.Record(target=str(layer.parent)), manifest, data, candidates, files)
    plan.layer = layer
    _name_rows(plan)
    _add_rows(plan)
    plan.wires = False
    for event, before in plan.events.items():  # the plugin's hooks.json, not the layer, wires the events
        spec = plan.new_manifest["events"][event]
        for key in ("settings_matcher", "settings_timeout"):
            if before[key] is None:
                spec.pop(key, None)
            else:
                spec[key] = before[key]
    for file_plan in files:
        _remove_entries(file_plan, [c for c in plan.adopted if c.entry.file == file_plan.path])
    return plan


def apply(plan: LayerPlan, journal: Journal, validate) -> None:
    """``validate(data, layer_path)``: the errors the dispatcher's merge would find (rolled back on any)."""
    files = write_host_files(plan, journal)
    layer = plan.layer
    backup = journal.backup(layer) if plan.manifest.exists else None
    new = plan.new_manifest_bytes
    journal.write(layer, new)
    errors = validate(plan.new_manifest, layer)
    if errors:
        raise AdoptError("the user layer with the adopted rows is invalid:\n  " + "\n  ".join(errors))
    record = {"format": FORMAT, "layer": str(layer), "rows": adopted_rows(plan), "events": plan.events,
              "manifest": {"backup": str(backup) if backup else "", "existed": plan.manifest.exists,
                           "before": records.sha256(plan.manifest.raw) if plan.manifest.exists else None,
                           "after": records.sha256(new)},
              "files": files}
    journal.write(record_path(layer), (json.dumps(record, indent=2) + "\n").encode(), 0o600)


def plan_undo() -> UndoPlan | None:
    path = record_path(layer_path())
    try:
        adopted = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise AdoptError(f"{path}: cannot read the adopt record ({exc})") from None
    layer = Path(adopted.get("layer") or layer_path())
    undo = UndoPlan(layer.parent, None)
    undo.layer, undo.record_file, undo.remove_layer = layer, path, False
    loaded = jsonfile.load(layer)
    if not loaded.exists:
        undo.notes.append(f"{layer}: missing; the adopted rows are gone with it")
    else:
        data = strip(loaded.data, adopted)
        info = adopted.get("manifest") or {}
        if not info.get("existed") and data == {"version": 1, "events": {}}:
            undo.remove_layer = True  # adopt made the layer; nothing of the user's is in it
        else:
            new = _exact_or_render(loaded, data, Path(info.get("backup") or ""), info.get("before"), undo)
            if new != loaded.raw:
                undo.writes.append((layer, new, loaded.raw))
    undo_host_files(adopted, undo, None, None)
    return undo


def apply_undo(undo: UndoPlan, journal: Journal) -> None:
    for path, new, _old in undo.writes:
        journal.write(path, new)
    if undo.remove_layer:
        journal.delete(undo.layer)
    journal.delete(undo.record_file)
    for backup in undo.deletes:
        if backup.is_file():
            journal.delete(backup)


def runs_as_plugin(target: Path, settings: Path) -> bool:
    """No settings install at ``target``, and the plugin on for some host."""
    from hookmux import plugin_installs

    if (target / records.NAME).exists():
        return False
    return bool(plugin_installs.found(project=os.getcwd(), claude_settings=settings))


def adopted_here() -> bool:
    return record_path(layer_path()).exists()
