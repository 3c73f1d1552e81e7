"""What ``hookmux status`` reports: the installed tree against its record and the package, and
every wired hook command's interpreter and script."""
from __future__ import annotations

import json
import os
from pathlib import Path

from hookmux import resources
from hookmux.installer import jsonfile, manifest_merge, merge, record as records, tree
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.plan import version
from hookmux.installer.wiring_files import CLAUDE, COPILOT, HOSTS, copilot_file


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def inspect_wiring(path: Path, host, target: Path) -> dict:
    report = {"file": str(path), "host": host.name, "exists": path.exists(), "entries": []}
    try:
        loaded = jsonfile.load(path)
    except JsonFileError as exc:
        report["error"] = str(exc)
        return report
    for event, hook, parsed in merge.find_any(loaded.data, host.dialect):
        report["entries"].append({
            "event": event,
            "role": parsed.role,
            "command": hook.get(host.dialect.command_key),
            "this_target": os.path.normpath(parsed.target) == os.path.normpath(str(target)),
            "python_ok": _executable(parsed.python),
            "script_ok": os.path.isfile(parsed.script),
        })
    return report


def status(target: Path, settings: Path | None, copilot_dir: Path | None) -> dict:
    report: dict = {"target": str(target), "package": version(), "installed": False, "problems": []}
    problems = report["problems"]
    try:
        rec = records.load(target)
    except JsonFileError as exc:
        problems.append(str(exc))
        rec = None
    wired: dict[str, object] = {}
    if rec:
        report.update(installed=True, hookmux=rec.hookmux, python=rec.python, source=rec.source,
                      python_ok=_executable(rec.python), legacy=rec.legacy)
        for name, info in rec.wired.items():
            wired[name] = HOSTS.get(info.get("host"), CLAUDE)
        files = {"ok": 0, "modified": [], "missing": [], "outdated": [], "not_installed": []}
        try:
            wanted = tree.wanted_files(str(target), rec.agents_dirs, Path(rec.source) if rec.source else None)
        except Exception as exc:  # a broken package or agents folder: still report the rest
            wanted = {}
            problems.append(f"cannot read the package's hooks tree: {exc}")
        for rel, sha in sorted(rec.files.items()):
            if rel == tree.MANIFEST and rec.manifest:
                files["ok"] += 1  # the user's part of it is theirs: reported row by row below
                continue
            current = tree.read_regular(target / rel)
            if current is None:
                files["missing"].append(rel)
            elif records.sha256(current) != sha:
                files["modified"].append(rel)
            else:
                files["ok"] += 1
            if rel in wanted and records.sha256(wanted[rel].data) != sha:
                files["outdated"].append(rel)
        files["not_installed"] = sorted(set(wanted) - set(rec.files))
        shipped = json.loads(wanted[tree.MANIFEST].data) if tree.MANIFEST in wanted else None
        wired_matchers = {}
        for name, info in rec.wired.items():
            if info.get("host") == CLAUDE.name:
                try:
                    wired_matchers.update(manifest_merge.wired_matchers(jsonfile.load(name).data, target))
                except JsonFileError:
                    pass
        rows = report["manifest"] = manifest_merge.inspect(target, rec, shipped, wired_matchers)
        if rows["outdated"]:
            files["outdated"].append(tree.MANIFEST)
        if "error" in rows:
            problems.append(rows["error"])
        if rows["missing"]:
            problems.append(f"{target / tree.MANIFEST}: hookmux's rows missing: {', '.join(rows['missing'])}; "
                            "hookmux install puts them back")
        for where in rows["unwired"]:
            problems.append(f"{target / tree.MANIFEST}: {where} never runs: the matcher wired in the settings "
                            "lets none of its tools through; run hookmux install to rewire")
        for where in rows["unreachable"]:
            problems.append(f"{target / tree.MANIFEST}: {where} never runs: its event's settings_matcher "
                            "lets none of its tools through; hookmux install widens it")
        report["files"] = files
        if files["missing"] or files["modified"]:
            problems.append(f"installed files changed since install: "
                            f"{len(files['missing'])} missing, {len(files['modified'])} modified")
        if files["outdated"] or files["not_installed"]:
            problems.append("the package differs from the installed tree; run hookmux install again")
        if rec.pending:
            problems.append("an install was interrupted; run hookmux install again")
        if not report["python_ok"]:
            problems.append(f"recorded interpreter {rec.python} is missing")
        try:
            manifest = json.loads((target / tree.MANIFEST).read_bytes())
            report["hooks_root"] = manifest.get("hooks_root")
            resolve = resources.runtime("manifest").resolve_hooks_root
            if resolve(manifest, str(target / tree.MANIFEST)) != os.path.normpath(str(target)):
                problems.append(f"installed manifest's hooks_root {manifest.get('hooks_root')!r} is not {target}")
        except (OSError, ValueError, AttributeError) as exc:
            problems.append(f"{target / tree.MANIFEST}: unreadable ({exc})")
    else:
        problems.append(f"{target}: hookmux is not installed here (no {records.NAME})")
    if settings is not None:
        wired.setdefault(str(settings), CLAUDE)
    if copilot_dir is not None:
        wired.setdefault(str(copilot_file(copilot_dir)), COPILOT)
    report["wired"] = [inspect_wiring(Path(name), host, target) for name, host in wired.items()]
    for item in report["wired"]:
        if "error" in item:
            problems.append(item["error"])
        ours = [e for e in item["entries"] if e["this_target"]]
        if rec and item["file"] in rec.wired and not ours:
            problems.append(f"{item['file']}: recorded as wired but holds no hookmux entry for {target}")
        for entry in item["entries"]:
            if not (entry["python_ok"] and entry["script_ok"]):
                problems.append(f"{item['file']}: {entry['event']} runs a missing "
                                f"{'interpreter' if not entry['python_ok'] else 'script'}: {entry['command']}")
    return report


def render(report: dict) -> str:
    lines = [f"target:    {report['target']}"]
    if report["installed"]:
        files = report["files"]
        lines.append(f"installed: hookmux {report['hookmux']} (package {report['package']})"
                     + (f" from {report['source']}" if report.get("source") else ""))
        lines.append(f"python:    {report['python']} ({'ok' if report['python_ok'] else 'MISSING'})")
        lines.append(f"hooks_root: {report.get('hooks_root')}")
        lines.append(f"files:     {files['ok']} ok, {len(files['modified'])} modified, "
                     f"{len(files['missing'])} missing, {len(files['outdated'])} differ from the package")
        for key in ("modified", "missing", "outdated", "not_installed"):
            for rel in files[key]:
                lines.append(f"  {key.replace('_', ' ')}: {rel}")
        for rel, legacy in report.get("legacy", {}).items():
            lines.append(f"  user's file kept as: {legacy}")
        rows = report.get("manifest", {})
        for where in rows.get("user_rows", []):
            lines.append(f"  your row: {where}")
        for where in rows.get("edited", []):
            lines.append(f"  hookmux's row as you edited it (kept by install): {where}")
    else:
        lines.append("installed: no")
    for item in report["wired"]:
        state = "missing" if not item["exists"] else f"{len(item['entries'])} hookmux entries"
        lines.append(f"wired:     {item['file']} ({item['host']}): {state}")
        for entry in item["entries"]:
            flags = [] if entry["this_target"] else ["OTHER TARGET"]
            flags += [] if entry["python_ok"] else ["PYTHON MISSING"]
            flags += [] if entry["script_ok"] else ["SCRIPT MISSING"]
            lines.append(f"  {entry['event']:<18} {entry['role']:<8} {'ok' if not flags else ', '.join(flags)}")
    lines += [f"problem:   {p}" for p in report["problems"]] or ["status:    ok"]
    return "\n".join(lines) + "\n"
