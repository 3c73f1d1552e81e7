"""What ``hookmux status`` reports: the installed tree against its record and the package, and
every wired hook command's interpreter and script."""
from __future__ import annotations

import json
import os
from pathlib import Path

from hookmux import breakers, resources
from hookmux.installer import commands, entries, jsonfile, manifest_merge, merge, record as records, tree
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.codex_hooks import hooks_file as codex_file
from hookmux.installer.gemini_hooks import settings_file as gemini_file
from hookmux.installer.plan import version
from hookmux.installer.wiring_files import CLAUDE, CODEX, COPILOT, CURSOR, GEMINI, HOSTS, QWEN, copilot_file, \
    same_file_key


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def inspect_wiring(path: Path, host, target: Path, wanted: list | None = None) -> dict:
    """Every hookmux entry in ``path``; with ``wanted`` (the entries install writes) also the
    wanted ones that are missing and the ones of this target that are not wanted."""
    report = {"file": str(path), "host": host.name, "exists": path.exists(), "entries": [],
              "missing": [], "unexpected": [], "outdated": [], "unrecognised": []}
    try:
        loaded = jsonfile.load(path)
    except JsonFileError as exc:
        report["error"] = str(exc)
        return report
    for event, hook, parsed in merge.find_any(loaded.data, host.dialect):
        report["entries"].append({
            "event": event,
            "role": parsed.role,
            "command": merge.text(hook, host.dialect),
            "this_target": commands.same_target(parsed.target, target),
            "python_ok": _executable(parsed.python) if parsed.python else True,  # an HTTP hook has none
            "script_ok": os.path.isfile(parsed.script),
        })
    for event, _, hook, _ in merge.entries_of(loaded.data, host.dialect):
        command = hook.get(host.dialect.command_key)
        if commands.references(command, target) and not commands.ours(command, target):
            report["unrecognised"].append(f"{event}: {command}")
    if wanted is not None:
        _compare(report, loaded.data, host, target, wanted)
    return report


def _compare(report: dict, data: dict, host, target: Path, wanted: list) -> None:
    found: dict[tuple[str, str], list] = {}
    for slot, parsed in merge.find(data, str(target), host.dialect):
        found.setdefault((slot.event, parsed.role), []).append((slot.hook, parsed))
    for entry in wanted:
        slots = found.pop((entry.event, entry.role), [])
        if not slots:
            report["missing"].append(f"{entry.event} {entry.role}")
            continue
        hook, parsed = slots[0]
        if merge.text(hook, host.dialect) != entry.command_with(parsed.options):
            report["outdated"].append(f"{entry.event} {entry.role}: {merge.text(hook, host.dialect)}")
        report["unexpected"] += [f"{entry.event} {entry.role} (a second one)" for _ in slots[1:]]
    for (event, role), slots in found.items():
        report["unexpected"] += [f"{event} {role}" for _ in slots]


def status(target: Path, settings: Path | None, copilot_dir: Path | None, codex_home: Path | None = None,
           gemini_home: Path | None = None, cursor_file: Path | None = None, qwen_file: Path | None = None) -> dict:
    report: dict = {"target": str(target), "package": version(), "installed": False, "problems": []}
    rec = _record(target, report["problems"])
    manifest = _installed(report, target, rec) if rec else None
    if not rec:
        report["problems"].append(f"{target}: hookmux is not installed here (no {records.NAME})")
    report["wired"] = []
    for name, host in _wired_files(rec, settings, copilot_dir, codex_home, gemini_home, cursor_file, qwen_file).items():
        report["wired"].append(_wired_report(report, name, host, target, rec, manifest))
    if rec:
        from hookmux.installer.warm_pool import pools_of, refusal

        report["warm_pools"] = pools_of(target)
        report["warm_pool_refused"] = refusal()
        report["breakers"] = breakers.of_tree(str(target))
        report["problems"] += [line for line in map(breakers.problem, report["breakers"]) if line]
    hint = reinstall_hint(target, rec) if rec else "hookmux install"
    for item in report["wired"]:
        report["problems"] += _wiring_problems(item, target, rec, hint)
    return report


def _record(target: Path, problems: list[str]) -> records.Record | None:
    try:
        return records.load(target)
    except JsonFileError as exc:
        problems.append(str(exc))
        return None


def _installed(report: dict, target: Path, rec: records.Record) -> dict | None:
    """The installed tree's part of the report; returns the installed manifest (None: unreadable)."""
    problems = report["problems"]
    report.update(installed=True, hookmux=rec.hookmux, python=rec.python, source=rec.source,
                  python_ok=_executable(rec.python), legacy=rec.legacy,
                  adopted=[row.get("name") for row in rec.adopted.get("rows", [])])
    try:
        wanted = tree.wanted_files(str(target), rec.agents_dirs, Path(rec.source) if rec.source else None)
    except Exception as exc:  # a broken package or agents folder: still report the rest
        wanted = {}
        problems.append(f"cannot read the package's hooks tree: {exc}")
    files = _files(target, rec, wanted)
    rows = report["manifest"] = _manifest_rows(target, rec, wanted)
    if rows["outdated"]:
        files["outdated"].append(tree.MANIFEST)
    problems += _row_problems(target, rows)
    report["files"] = files
    if files["missing"] or files["modified"]:
        problems.append(f"installed files changed since install: "
                        f"{len(files['missing'])} missing, {len(files['modified'])} modified")
    if files["outdated"] or files["not_installed"]:
        problems.append("the package differs from the installed tree; run hookmux install again")
    if rec.pending:
        problems.append("an install was interrupted; run hookmux install again")
    if not report["python_ok"]:
        problems.append(f"recorded interpreter {rec.python} is missing: the hooks do nothing until you run "
                        f"{reinstall_hint(target, rec)}")
    return _hooks_root(report, target)


def _files(target: Path, rec: records.Record, wanted: dict) -> dict:
    """The recorded files against the disk (ok, modified, missing) and the package (outdated, not installed)."""
    files = {"ok": 0, "modified": [], "missing": [], "outdated": [], "not_installed": []}
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
        if rel in wanted and records.sha256(wanted[rel].data) != sha and not (rel == tree.MANIFEST and rec.adopted):
            files["outdated"].append(rel)
    files["not_installed"] = sorted(set(wanted) - set(rec.files))
    return files


def _manifest_rows(target: Path, rec: records.Record, wanted: dict) -> dict:
    """The installed manifest's rows against the shipped one and the matchers wired in Claude settings."""
    shipped = json.loads(wanted[tree.MANIFEST].data) if tree.MANIFEST in wanted else None
    wired_matchers = {}
    for name, info in rec.wired.items():
        if info.get("host") == CLAUDE.name:
            try:
                wired_matchers.update(manifest_merge.wired_matchers(jsonfile.load(name).data, target))
            except JsonFileError:
                pass
    return manifest_merge.inspect(target, rec, shipped, wired_matchers)


def _row_problems(target: Path, rows: dict) -> list[str]:
    where_file = target / tree.MANIFEST
    problems = [rows["error"]] if "error" in rows else []
    if rows["missing"]:
        problems.append(f"{where_file}: hookmux's rows missing: {', '.join(rows['missing'])}; "
                        "hookmux install puts them back")
    problems += [f"{where_file}: {where} never runs: the matcher wired in the settings "
                 "lets none of its tools through; run hookmux install to rewire" for where in rows["unwired"]]
    problems += [f"{where_file}: {where} never runs: its event's settings_matcher "
                 "lets none of its tools through; hookmux install widens it" for where in rows["unreachable"]]
    return problems


def _hooks_root(report: dict, target: Path) -> dict | None:
    """The installed manifest (None: unreadable), its hooks_root checked against ``target``."""
    try:
        manifest = json.loads((target / tree.MANIFEST).read_bytes())
        report["hooks_root"] = manifest.get("hooks_root")
        resolve = resources.runtime("manifest").resolve_hooks_root
        if not commands.same_target(resolve(manifest, str(target / tree.MANIFEST)), target):
            report["problems"].append(f"installed manifest's hooks_root {manifest.get('hooks_root')!r} is not {target}")
    except (OSError, ValueError, AttributeError) as exc:
        manifest = None
        report["problems"].append(f"{target / tree.MANIFEST}: unreadable ({exc})")
    return manifest


def _wired_files(rec, settings: Path | None, copilot_dir: Path | None, codex_home: Path | None,
                 gemini_home: Path | None = None, cursor_file: Path | None = None, qwen_file: Path | None = None) -> dict:
    """file -> host: the recorded ones, then those named on the command line."""
    wired: dict[str, object] = {}
    for name, info in (rec.wired.items() if rec else ()):
        wired[name] = HOSTS.get(info.get("host"), CLAUDE)
    for path, host in ((settings, CLAUDE), (copilot_file(copilot_dir) if copilot_dir else None, COPILOT),
                       (codex_file(codex_home) if codex_home else None, CODEX),
                       (gemini_file(gemini_home) if gemini_home else None, GEMINI), (cursor_file, CURSOR),
                       (qwen_file, QWEN)):
        if path is not None and not same_file_key(wired, path):
            wired[str(path)] = host
    return wired


def _wired_report(report: dict, name: str, host, target: Path, rec, manifest) -> dict:
    """One wired file's entries (against what install writes, when recorded); sets the report's
    ``server`` when it wires Claude Code's dispatcher as HTTP hooks."""
    item = inspect_wiring(Path(name), host, target)
    serving = host is CLAUDE and any(e["this_target"] and e["command"].startswith("http") for e in item["entries"])
    if rec and isinstance(manifest, dict) and name in rec.wired:
        wanted = (entries.claude_serve_entries if serving else host.wanted)(manifest, str(target), rec.python)
        item = inspect_wiring(Path(name), host, target, wanted)
    if serving:
        from hookmux.serve.probe import probe, warnings

        running = probe(str(target))
        report["server"] = {"running": bool(running), "pid": running and running.get("pid"),
                            "port": running and running.get("port"), "warnings": warnings(str(target), name)}
    return item


def _wiring_problems(item: dict, target: Path, rec, hint: str) -> list[str]:
    problems = [item["error"]] if "error" in item else []
    if item["missing"]:
        problems.append(f"{item['file']}: missing hookmux entries: {', '.join(item['missing'])}; run {hint}")
    if item["unexpected"]:
        problems.append(f"{item['file']}: unexpected hookmux entries: {', '.join(item['unexpected'])}; "
                        f"run {hint}")
    if item["outdated"]:
        problems.append(f"{item['file']}: entries not in the form install writes (no fail-open suffix or "
                        f"-E?): {'; '.join(item['outdated'])}; run {hint}")
    for line in item["unrecognised"]:
        problems.append(f"{item['file']}: an entry runs a hookmux script in a form hookmux does not "
                        f"manage: {line}")
    ours = [e for e in item["entries"] if e["this_target"]]
    if rec and item["file"] in rec.wired and not ours:
        problems.append(f"{item['file']}: recorded as wired but holds no hookmux entry for {target}")
    for entry in item["entries"]:
        if not (entry["python_ok"] and entry["script_ok"]):
            problems.append(f"{item['file']}: {entry['event']} runs a missing "
                            f"{'interpreter' if not entry['python_ok'] else 'script'} (a no-op until "
                            f"fixed): {entry['command']}; run {hint}")
    return problems


def reinstall_hint(target: Path, rec) -> str:
    """The install command that rewires ``target`` with a working interpreter."""
    import shlex

    words = ["hookmux", "install", "--target", str(target)]
    flags = {"copilot": "--copilot-hooks-dir", "codex": "--codex-home", "gemini": "--gemini-home"}
    for name, info in sorted(rec.wired.items(), key=lambda item: (item[1].get("host") in (*flags, "cursor", "qwen"), item[0])):
        flag = flags.get(info.get("host"))
        if info.get("host") in ("cursor", "qwen"):
            words.append("--" + info["host"])  # ~/.cursor/hooks.json, ~/.qwen/settings.json: the one file each wires
            continue
        words += [flag, str(Path(name).parent)] if flag else ["--settings", name]
    if not _executable(rec.python):
        words += ["--python", "PYTHON"]
    return "`" + shlex.join(words) + "`" + (" with PYTHON an existing python3" if "PYTHON" in words else "")


def render(report: dict) -> str:
    lines = [f"target:    {report['target']}"]
    if report["installed"]:
        files = report["files"]
        lines.append(f"installed: hookmux {report['hookmux']} (package {report['package']})"
                     + (f" from {report['source']}" if report.get("source") else ""))
        lines.append(f"python:    {report['python']} ({'ok' if report['python_ok'] else 'MISSING'})")
        lines.append(f"hooks_root: {report.get('hooks_root')}")
        if "server" in report:
            server = report["server"]
            lines.append(f"server:    pid {server['pid']} on 127.0.0.1:{server['port']}, answers" if server["running"]
                         else "server:    not running (the next Claude Code session starts it)")
            lines += [f"server:    WARNING: {warning}" for warning in server.get("warnings", [])]
        for pool in report.get("warm_pools", []):
            lines.append(f"warm pool: pid {pool['pid']} ({pool['python']}), {pool['served']} calls served, "
                         f"{pool['cpu_ms'] / 1000:.1f} s CPU")
        if report.get("warm_pool_refused"):
            lines.append(f"warm pool: off, every call forks a worker: {report['warm_pool_refused']}")
        elif not report.get("warm_pools"):
            lines.append("warm pool: not running (the next call that selects a check starts it)")
        lines.append(f"files:     {files['ok']} ok, {len(files['modified'])} modified, "
                     f"{len(files['missing'])} missing, {len(files['outdated'])} differ from the package")
        for key in ("modified", "missing", "outdated", "not_installed"):
            for rel in files[key]:
                lines.append(f"  {key.replace('_', ' ')}: {rel}")
        if report.get("adopted"):
            lines.append(f"adopted:   {len(report['adopted'])} hooks behind the dispatcher (hookmux adopt --undo)")
        for rel, legacy in report.get("legacy", {}).items():
            lines.append(f"  user's file kept as: {legacy}")
        rows = report.get("manifest", {})
        adopted = [f"(name={name!r})" for name in report.get("adopted") or []]
        for where in rows.get("user_rows", []):
            lines.append(f"  {'adopted row' if any(where.endswith(a) for a in adopted) else 'your row'}: {where}")
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
            flags += [f"CODEX: {entry['trust'].upper()}"] if entry.get("trust", "trusted") != "trusted" else []
            lines.append(f"  {entry['event']:<18} {entry['role']:<8} {'ok' if not flags else ', '.join(flags)}"
                         + (" (trusted)" if entry.get("trust") == "trusted" else ""))
    lines += breakers.render(report.get("breakers") or [])
    lines += [f"problem:   {p}" for p in report["problems"]] or ["status:    ok"]
    return "\n".join(lines) + "\n"
