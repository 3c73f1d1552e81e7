"""B7: the user's own adopted hooks (``hookmux adopt``) timed both ways — one dispatcher running
their rows, against each hook as its own process, with the command lines the settings held
before adopt. Both run through ``/bin/sh -c``, as a host runs hook commands.

Opt-in (``hookmux bench --adopted``): it runs the user's scripts, in the bench's throwaway HOME.
"""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from hookmux import matchers, wiring
from hookmux.adopt import discover
from hookmux.matchers import CLAUDE_TOOLS
from hookmux.bench.cases import BenchSetup, Case
from hookmux.installer import record as records, tree



class NoAdoptedHooks(Exception):
    pass


def _with_manifest(command: str, script: Path, manifest: Path) -> str:
    """The installed dispatcher command line, reading ``manifest`` (the option goes right after
    the script, wherever the installer puts the event and any suffix)."""
    quoted = shlex.quote(str(script))
    return command.replace(quoted, f"{quoted} --manifest {shlex.quote(str(manifest))}", 1)


def _sh(command: str) -> str:
    return shlex.join(["/bin/sh", "-c", command])


def _tool_for(checks: list[dict]) -> str | None:
    """A tool name every row selects (Bash when it is one), so every hook runs."""
    for tool in ("Bash",) + CLAUDE_TOOLS:
        if all(c.get("matcher") is None or re.search(c["matcher"], tool) for c in checks):
            return tool
    return None


def adopted_cases(setup: BenchSetup, target: Path) -> list[Case]:
    rec = records.load(target)
    if rec is None or not rec.adopted:
        raise NoAdoptedHooks(f"{target}: no hooks adopted there (hookmux adopt --apply)")
    rows = rec.adopted.get("rows") or []
    events = [r["event"] for r in rows]
    event = max(dict.fromkeys(events), key=events.count)
    names = {r["name"] for r in rows if r["event"] == event}
    manifest = json.loads((target / tree.MANIFEST).read_text(encoding="utf-8"))
    spec = manifest["events"][event]
    checks = [c for c in spec["checks"] if c.get("name") in names]
    originals = []
    for file_name, info in (rec.adopted.get("files") or {}).items():
        project = discover.project_dir_of(Path(file_name))
        if project is not None:
            setup.env["CLAUDE_PROJECT_DIR"] = str(project)
        for entry in info.get("entries") or []:
            if entry.get("manifest_event") == event:
                originals.append(entry["hook"].get("command") or entry["hook"].get("bash"))
    bench_manifest = setup.base / "adopted-manifest.json"
    bench_manifest.write_text(json.dumps({"version": 1, "hooks_root": str(target), "events": {event: {
        "settings_matcher": "*", "settings_timeout": spec.get("settings_timeout", 10), "checks": checks}}}) + "\n")
    fields = {}
    if event in matchers.TOOL_EVENTS:
        tool = _tool_for(checks) or "Bash"
        fields = {"tool_name": tool, "tool_use_id": "toolu_bench_adopted",
                  "tool_input": {"command": "git status", "description": "Show the working tree status"}}
    payload = setup.payloads / "adopted.json"
    payload.write_text(json.dumps(setup._claude(event, **fields)) + "\n", encoding="utf-8")
    dispatcher = _with_manifest(wiring.dispatcher_command(setup.python, target, event),
                                target.joinpath(*wiring.DISPATCH_SCRIPT), bench_manifest)
    stdin = lambda _run: str(payload)  # noqa: E731
    count = len(originals)
    return [
        Case("B7.dispatch", f"your {count} adopted {event} hooks behind one dispatcher (sh -c)", [_sh(dispatcher)],
             stdin, _exit_0_or_1, exits=(0, 1)),
        Case("B7.separate", f"the same {count} hooks as {count} processes, as before adopt (sh -c)",
             [_sh(c) for c in originals], stdin, _exit_0_or_1, exits=(0, 1)),
    ]


def _exit_0_or_1(outcome) -> str | None:
    for code, _out, err in outcome:
        if code not in (0, 1):
            return f"exit {code}: {err.strip()[-300:]}"
    return None
