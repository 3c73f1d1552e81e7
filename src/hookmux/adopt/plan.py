"""The adopt plan: a verdict per hook entry, the manifest rows the adoptable ones become, the
host files without them, and the processes each tool call starts before and after.

Nothing here writes; ``apply`` does, through the installer's journal.
"""
from __future__ import annotations

import copy
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from hookmux import matchers, resources, wiring
from hookmux.errors import InstallError
from hookmux.adopt import analysis, command, discover
from hookmux.adopt.discover import Entry
from hookmux.installer import jsonfile, merge, record as records, tree
from hookmux.installer.wiring_files import CLAUDE, COPILOT, Host, copilot_file

HOOKMUX = "hookmux"  # the kind of hookmux's own entries (dispatcher, gate)
ROW_PREFIX = "adopted/"
SIDE_EFFECT = "adopted"  # the rows' audit label: what the user's script does is not known
MAX_TIMEOUT = 600
# The events a manifest may hold (the schema's list).
MANIFEST_EVENTS = tuple(json.loads(resources.schema_path().read_text(encoding="utf-8"))
                        ["properties"]["events"]["propertyNames"]["enum"])
# Keys of an entry that only label it; any other key changes how the host runs it.
_PLAIN_KEYS = {"claude": {"type", "command", "timeout", "statusMessage"},
               "copilot": {"type", "bash", "timeoutSec", "matcher", "comment", "description"}}


class AdoptError(InstallError):
    """An adopt (or undo) hookmux refuses; the CLI prints it like an install error."""


@dataclass
class Candidate:
    entry: Entry
    kind: str  #: analysis.ADOPTABLE / BLOCKER / NOT_ADOPTABLE, or HOOKMUX
    reason: str = ""
    event: str = ""  #: the manifest (canonical) event
    row: dict | None = None  #: the manifest row, when adopted


@dataclass
class FilePlan:
    path: Path
    host: Host
    loaded: jsonfile.JsonFile
    new_data: dict
    wired: bool  #: holds the target's dispatcher entries (the installer's merge runs on it)
    removed: list[dict] = field(default_factory=list)  #: undo information per adopted entry
    made: list[str] | None = None  #: the record's "created" after the merge (wired files)

    @property
    def new_bytes(self) -> bytes:
        return self.loaded.raw if self.new_data == self.loaded.data else self.loaded.render(self.new_data)

    @property
    def changed(self) -> bool:
        return self.new_bytes != self.loaded.raw


@dataclass
class AdoptPlan:
    target: Path
    record: records.Record
    manifest: jsonfile.JsonFile
    new_manifest: dict
    candidates: list[Candidate]
    files: list[FilePlan]
    events: dict[str, dict] = field(default_factory=dict)  #: event -> its settings before adopt
    notes: list[str] = field(default_factory=list)
    wires: bool = True  #: adopting changes the dispatcher's settings entries (not so for the plugin's)

    @property
    def adopted(self) -> list[Candidate]:
        return [c for c in self.candidates if c.row is not None]

    @property
    def manifest_path(self) -> Path:
        return self.target / tree.MANIFEST

    @property
    def new_manifest_bytes(self) -> bytes:
        return self.manifest.render(self.new_manifest) if self.adopted else self.manifest.raw


# ---------------------------------------------------------------- classifying one entry


def _event_of(entry: Entry) -> str:
    return wiring.COPILOT_EVENTS.get(entry.event, entry.event) if entry.host.name == COPILOT.name else entry.event


def classify(entry: Entry, base: Path | None, project_dir: Path | None) -> Candidate:
    if entry.hookmux_role:
        return Candidate(entry, HOOKMUX, f"hookmux's {entry.hookmux_role}", _event_of(entry))
    event = _event_of(entry)
    if entry.hook.get("type") != "command":
        return Candidate(entry, analysis.NOT_ADOPTABLE, f"a {entry.hook.get('type')!r} hook, not a command", event)
    extra = sorted(set(entry.hook) - _PLAIN_KEYS[entry.host.name])
    if extra:
        return Candidate(entry, analysis.NOT_ADOPTABLE,
                         f"sets {', '.join(map(repr, extra))}, which a manifest row cannot express", event)
    if event not in MANIFEST_EVENTS:
        return Candidate(entry, analysis.NOT_ADOPTABLE, f"the dispatcher does not serve {entry.event}", event)
    if event not in matchers.TOOL_EVENTS and not matchers.every_tool(entry.matcher):
        return Candidate(entry, analysis.NOT_ADOPTABLE,
                         f"its matcher on {entry.event} selects something other than a tool; a row cannot", event)
    try:
        matchers.row_matcher(entry.host, entry.matcher)
    except re.error as exc:
        return Candidate(entry, analysis.NOT_ADOPTABLE, f"matcher {entry.matcher!r} is not a Python regex ({exc})",
                         event)
    launch = command.parse(entry.command, base, project_dir)
    if not launch.ok:
        return Candidate(entry, analysis.NOT_ADOPTABLE, launch.reason, event)
    if not launch.script.is_file():
        return Candidate(entry, analysis.NOT_ADOPTABLE, f"{launch.script}: no such file", event)
    verdict = analysis.classify_file(launch.script, entry.event)
    candidate = Candidate(entry, verdict.kind, verdict.reason, event)
    if verdict.kind == analysis.ADOPTABLE:
        args = list(launch.args)
        if verdict.call == "argv0":
            args = [str(launch.script)] + args
        elif verdict.call == "none":
            args = []
        candidate.row = {"name": "", "script": str(launch.script), "args": args,
                         "timeout": min(entry.timeout, MAX_TIMEOUT - 1)}
        matcher = matchers.row_matcher(entry.host, entry.matcher)
        if matcher is not None:
            candidate.row["matcher"] = matcher
        candidate.row.update({"side_effect": SIDE_EFFECT, "emits": True})
    return candidate


# ---------------------------------------------------------------- the whole plan


def _sources(settings: Path | None, copilot_dir: Path | None) -> list[tuple[Path, Host, Path | None, Path | None]]:
    """(file, host, base for relative scripts, $CLAUDE_PROJECT_DIR) for every file scanned."""
    out = []
    if settings is not None:
        project = discover.project_dir_of(settings)
        out.append((settings, CLAUDE, project, project))
    if copilot_dir is not None:
        base = discover.copilot_base(copilot_dir)
        for path in discover.copilot_files(copilot_dir):
            out.append((path, COPILOT, base, None))
        out.append((copilot_file(copilot_dir), COPILOT, base, None))
    return out


def _serving_file(path: Path, host: Host, rec: records.Record, copilot_dir: Path | None) -> Path:
    """The file whose dispatcher entries would run a row adopted from ``path``."""
    if host.name == COPILOT.name and copilot_dir is not None:
        return copilot_file(copilot_dir)
    return path


def build(target: Path, settings: Path | None, copilot_dir: Path | None) -> AdoptPlan:
    rec = records.load(target)
    if rec is None:
        raise AdoptError(f"{target}: hookmux is not installed there; run hookmux install first")
    if rec.pending:
        raise AdoptError(f"{target}: an install was interrupted; run hookmux install again first")
    if getattr(rec, "adopted", None):
        raise AdoptError(f"{target}: hooks are already adopted; run hookmux adopt --undo first to adopt again")
    manifest = jsonfile.load(target / tree.MANIFEST)
    if not manifest.exists:
        raise AdoptError(f"{target / tree.MANIFEST}: missing; run hookmux install again")
    new_manifest = copy.deepcopy(manifest.data)
    candidates: list[Candidate] = []
    files: list[FilePlan] = []
    wired_files = set(rec.wired)
    for path, host, base, project in _sources(settings, copilot_dir):
        loaded = jsonfile.load(path)
        if not loaded.exists:
            continue
        serving = str(_serving_file(path, host, rec, copilot_dir))
        others = sorted(wired_files - {serving})
        found = [classify(e, base, project) for e in discover.entries_of(loaded.data, path, host)]
        for candidate in found:
            if candidate.row is not None and serving not in wired_files:
                candidate.kind, candidate.row = analysis.NOT_ADOPTABLE, None
                candidate.reason = f"hookmux's dispatcher in {target} is not wired into {serving}"
            elif candidate.row is not None and others:
                candidate.kind, candidate.row = analysis.NOT_ADOPTABLE, None
                candidate.reason = (f"the dispatcher in {target} also runs from {others[0]}; "
                                    "a row would run there too")
        candidates += found
        files.append(FilePlan(path, host, loaded, copy.deepcopy(loaded.data), str(path) in wired_files))
    plan = AdoptPlan(target, rec, manifest, new_manifest, candidates, files)
    _name_rows(plan)
    _add_rows(plan)
    for file_plan in files:
        _remove_entries(file_plan, [c for c in plan.adopted if c.entry.file == file_plan.path])
        if file_plan.wired:
            _rewire(plan, file_plan)
    return plan


def _name_rows(plan: AdoptPlan) -> None:
    events = plan.new_manifest.get("events") or {}
    for candidate in plan.adopted:
        taken = {r.get("name") for r in (events.get(candidate.event) or {}).get("checks", [])}
        taken |= {c.row["name"] for c in plan.adopted if c.event == candidate.event and c.row["name"]}
        stem = re.sub(r"[^A-Za-z0-9_.-]", "-", Path(candidate.row["script"]).stem)[:80] or "hook"
        name, n = ROW_PREFIX + stem, 1
        while name in taken:
            n += 1
            name = f"{ROW_PREFIX}{stem}-{n}"
        candidate.row["name"] = name


def _add_rows(plan: AdoptPlan) -> None:
    if not plan.adopted:
        return
    events = plan.new_manifest.setdefault("events", {})
    by_event: dict[str, list[Candidate]] = {}
    for candidate in plan.adopted:
        by_event.setdefault(candidate.event, []).append(candidate)
    for event, adopted in by_event.items():
        existed = event in events
        spec = events.setdefault(event, {"checks": []})
        plan.events[event] = {"existed": existed, "settings_matcher": spec.get("settings_matcher"),
                              "settings_timeout": spec.get("settings_timeout")}
        widen_event(spec, event, existed, [matchers.settings_names(c.entry.host, c.entry.matcher) for c in adopted],
                    max(c.row["timeout"] for c in adopted))
        spec.setdefault("checks", []).extend(c.row for c in adopted)
        if not existed:  # keep the schema's key order readable: matcher, timeout, checks
            events[event] = {k: spec[k] for k in ("settings_matcher", "settings_timeout", "checks") if k in spec}


def widen_event(spec: dict, event: str, existed: bool, wanted: list, longest: float) -> None:
    """The event's settings matcher and timeout, widened so the dispatcher runs for every
    adopted hook (``wanted``: their ``matchers.settings_names``) and waits for the slowest."""
    if event in matchers.TOOL_EVENTS:
        spec["settings_matcher"] = matchers.widen_to(spec.get("settings_matcher"), existed, wanted)
    elif "settings_matcher" in spec:
        spec["settings_matcher"] = "*"
    current = spec.get("settings_timeout")
    if not isinstance(current, (int, float)) or current <= longest:
        spec["settings_timeout"] = min(MAX_TIMEOUT, math.floor(longest) + 1)


def settings_names_of(host: Host, removed: dict) -> tuple[list[str], list[str]] | None:
    """``matchers.settings_names`` of an adopted entry, from the record's copy of it."""
    holder = removed.get("hook") if removed.get("group_index") is None else removed.get("group")
    return matchers.settings_names(host, (holder or {}).get("matcher"))


def _remove_entries(file_plan: FilePlan, adopted: list[Candidate]) -> None:
    hooks = file_plan.new_data.get("hooks")
    if not adopted or not isinstance(hooks, dict):
        return
    event_keys = list(hooks)
    for candidate in adopted:
        entry = candidate.entry
        info = {"event": entry.event, "event_position": event_keys.index(entry.event),
                "group_index": entry.group_index, "hook_index": entry.hook_index, "hook": entry.hook,
                "row": candidate.row["name"], "manifest_event": candidate.event}
        if entry.group_index is not None:
            group = file_plan.loaded.data["hooks"][entry.event][entry.group_index]
            info["group"] = {k: v for k, v in group.items() if k != "hooks"}
            taken = sum(1 for c in adopted if (c.entry.event, c.entry.group_index) == (entry.event, entry.group_index))
            info["group_removed"] = taken == len(group["hooks"])
        file_plan.removed.append(info)
    # Take the entries out from the back so the recorded indices stay those of the original file.
    for info in sorted(file_plan.removed, key=lambda i: (i["event_position"], i["group_index"] or 0,
                                                          i["hook_index"]), reverse=True):
        items = hooks[info["event"]]
        if info["group_index"] is None:
            del items[info["hook_index"]]
        else:
            group = items[info["group_index"]]
            del group["hooks"][info["hook_index"]]
            if not group["hooks"]:
                del items[info["group_index"]]
    for event in {i["event"] for i in file_plan.removed}:
        if hooks.get(event) == []:
            del hooks[event]


def _rewire(plan: AdoptPlan, file_plan: FilePlan) -> None:
    """The dispatcher entries the installer wants for the new manifest (the widened matchers)."""
    rec = plan.record
    info = rec.wired.get(str(file_plan.path), {})
    wanted = file_plan.host.wanted(plan.new_manifest, str(plan.target), rec.python)
    file_plan.new_data, file_plan.made = merge.merge(file_plan.new_data, wanted, str(plan.target),
                                                     file_plan.host.dialect, set(info.get("created") or ()),
                                                     str(file_plan.path))


# ---------------------------------------------------------------- processes per tool call


def process_counts(plan: AdoptPlan) -> dict[str, list[tuple[str, int, int]]]:
    """event -> [(tool, processes before, after)] for the tools an adopted hook ran on."""
    out: dict[str, list[tuple[str, int, int]]] = {}
    for event in sorted({c.event for c in plan.adopted}, key=MANIFEST_EVENTS.index):
        tools = _tools_for(plan, event)
        rows = []
        for tool in tools:
            before = after = 0
            for file_plan in plan.files:
                before += _count(file_plan.loaded.data, file_plan, event, tool)
                after += _count(file_plan.new_data, file_plan, event, tool)
            rows.append((tool or "each call", before, after))
        out[event] = rows
    return out


def _tools_for(plan: AdoptPlan, event: str) -> list[str | None]:
    if event not in matchers.TOOL_EVENTS:
        return [None]
    tools = []
    for candidate in plan.adopted:
        if candidate.event != event:
            continue
        for tool in matchers.CLAUDE_TOOLS:
            name = matchers.copilot_name(tool) if candidate.entry.host.name == COPILOT.name else tool
            if matchers.host_catches(candidate.entry.host, candidate.entry.matcher, name) and tool not in tools:
                tools.append(tool)
    return tools


def _count(data: dict, file_plan: FilePlan, event: str, tool: str | None) -> int:
    host = file_plan.host
    total = 0
    for entry in discover.entries_of(data, file_plan.path, host):
        if _event_of(entry) != event:
            continue
        if tool is not None:
            name = matchers.copilot_name(tool) if host.name == COPILOT.name else tool
            if not matchers.host_catches(host, entry.matcher, name):
                continue
        total += 1
    return total


# ---------------------------------------------------------------- showing


def describe(plan: AdoptPlan, out: TextIO) -> None:
    out.write(f"dispatcher: {plan.target} (manifest {plan.manifest_path})\n")
    current = None
    for candidate in plan.candidates:
        entry = candidate.entry
        if entry.file != current:
            current = entry.file
            out.write(f"\n{entry.file} ({'Claude Code' if entry.host.name == CLAUDE.name else 'Copilot CLI'}):\n")
        where = f"{entry.event}" + (f"[{entry.group_index}].hooks" if entry.group_index is not None else "") + \
            f"[{entry.hook_index}]" + (f" matcher {entry.matcher!r}" if entry.matcher not in (None, "") else "")
        out.write(f"  {where}: {entry.command}\n")
        if candidate.kind == HOOKMUX:
            out.write(f"      {candidate.reason}\n")
        elif candidate.row is not None:
            row = candidate.row
            out.write(f"      adoptable -> row {row['name']} on {candidate.event} "
                      f"(matcher {row.get('matcher', '(none)')!r}, timeout {row['timeout']}"
                      + (f", args {row['args']}" if row["args"] else "") + ")\n")
        elif candidate.kind == analysis.BLOCKER:
            out.write(f"      blocker: {candidate.reason}\n"
                      "      stays a standalone hook: the dispatcher only advises, it cannot block\n")
        else:
            out.write(f"      not adoptable: {candidate.reason}\n")
    kinds = [c.kind for c in plan.candidates if c.kind != HOOKMUX]
    out.write(f"\n{kinds.count(analysis.ADOPTABLE)} adoptable, {kinds.count(analysis.BLOCKER)} blocker(s), "
              f"{kinds.count(analysis.NOT_ADOPTABLE)} not adoptable\n")
    if not plan.adopted:
        out.write("nothing to adopt\n")
        return
    out.write("\nprocesses per tool call (before -> after):\n")
    for event, rows in process_counts(plan).items():
        cells = "  ".join(f"{tool} {before} -> {after}" for tool, before, after in rows)
        out.write(f"  {event:<16} {cells}\n")
    for event, before in plan.events.items() if plan.wires else ():
        spec = plan.new_manifest["events"][event]
        if before["existed"]:
            out.write(f"{event}: settings matcher {before['settings_matcher']!r} -> {spec.get('settings_matcher')!r}, "
                      f"timeout {before['settings_timeout']} -> {spec.get('settings_timeout')}\n")
        else:
            out.write(f"{event}: new dispatcher entry, matcher {spec.get('settings_matcher', '(none)')!r}, "
                      f"timeout {spec.get('settings_timeout')}\n")


def to_json(plan: AdoptPlan) -> str:
    body = [{"file": str(c.entry.file), "event": c.entry.event, "command": c.entry.command, "kind": c.kind,
             "reason": c.reason, "row": c.row} for c in plan.candidates]
    return json.dumps({"target": str(plan.target), "entries": body,
                       "processes": {e: [list(r) for r in rows] for e, rows in process_counts(plan).items()}},
                      indent=2) + "\n"
