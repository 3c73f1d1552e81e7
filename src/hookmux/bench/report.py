"""Medians, target verdicts, the machine description, the table and the JSON."""
from __future__ import annotations

import os
import platform
import statistics
import subprocess
from pathlib import Path
from typing import Optional

from hookmux import wiring

FLOOR = "B0"
CPU_TARGET = ("B1.dispatch", "B1.separate", 0.2)  # dispatcher CPU <= 1/5 of the 8 processes
WORKER_TARGET_MS = 1.5  # issue 17: the forked worker adds at most this to a selected call's median wall
# hookmux serve (issue 15): B8.<payload> against B5.<payload>, the same payload one process per call.
SERVE_PREFIX, PROCESS_PREFIX = "B8.", "B5."
SERVE_TARGET_MS = 1.0
SERVE_TARGET_FRACTION = 10
THREADS_SUFFIX = ".threads"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info(python: str) -> dict:
    try:
        version = subprocess.run(
            [python, "-S", "-c", "import sys; print(sys.version.split()[0], sys.implementation.name)"],
            capture_output=True, text=True, timeout=30,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        version = []
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    return {
        "nproc": usable,
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model(),
        "python": python,
        "python_version": " ".join(version) or "unknown",
        "platform": platform.platform(),
        "loadavg_1min": loadavg(),
    }


def loadavg() -> Optional[float]:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _ms(values_ns: list[int]) -> list[float]:
    return [round(v / 1e6, 3) for v in values_ns]


def summarize(cases, samples: dict, problems: dict[str, Optional[str]]) -> dict:
    """One entry per case: command lines, samples in ms, medians, check result."""
    out = {}
    for case in cases:
        entry = {"title": case.title, "commands": case.commands, "check": problems.get(case.name) or "ok"}
        runs = samples.get(case.name) or []
        if runs:
            wall = _ms([s.wall_ns for s in runs])
            cpu = _ms([s.cpu_ns for s in runs])
            entry.update(
                wall_ms=wall,
                cpu_ms=cpu,
                median_wall_ms=round(statistics.median(wall), 3),
                min_wall_ms=min(wall),
                median_cpu_ms=round(statistics.median(cpu), 3),
                unexpected_exits=sum(1 for s in runs for code in s.exit_codes if code not in case.exits),
            )
            if entry["unexpected_exits"] and entry["check"] == "ok":
                entry["check"] = f"{entry['unexpected_exits']} timed process(es) exited with an unexpected code"
        if case.target is not None:
            entry["target_ratio"] = case.target
        out[case.name] = entry
    floor = out.get(FLOOR, {}).get("median_wall_ms")
    floor_cpu = out.get(FLOOR, {}).get("median_cpu_ms")
    for entry in out.values():
        if floor and "median_wall_ms" in entry:
            entry["ratio_to_b0"] = round(entry["median_wall_ms"] / floor, 3)
        if floor_cpu and "median_cpu_ms" in entry:
            entry["cpu_ratio_to_b0"] = round(entry["median_cpu_ms"] / floor_cpu, 3)
    return out


def verdicts(results: dict, python: str) -> list[dict]:
    """Each target of the issue with its measured value and pass/fail."""
    found = []
    for name, entry in results.items():
        if "target_ratio" not in entry:
            continue
        value = entry.get("ratio_to_b0")
        found.append({
            "target": f"{name} wall <= {entry['target_ratio']}x B0",
            "value": value,
            "pass": value is not None and value <= entry["target_ratio"],
        })
    mine, theirs, limit = CPU_TARGET
    a = results.get(mine, {}).get("median_cpu_ms")
    b = results.get(theirs, {}).get("median_cpu_ms")
    if mine in results or theirs in results:
        value = round(a / b, 3) if a is not None and b else None
        found.append({
            "target": f"{mine} CPU <= {limit} x {theirs} CPU",
            "value": value,
            "pass": value is not None and value <= limit,
        })
    for name, entry in results.items():
        twin = results.get(name + THREADS_SUFFIX, {})
        if "median_wall_ms" in entry and "median_wall_ms" in twin:
            value = round(entry["median_wall_ms"] - twin["median_wall_ms"], 3)
            found.append({
                "target": f"{name} wall <= {name}{THREADS_SUFFIX} + {WORKER_TARGET_MS} ms (the worker's cost; "
                          f"CPU {entry['median_cpu_ms'] - twin['median_cpu_ms']:+.2f} ms)",
                "value": value,
                "pass": value <= WORKER_TARGET_MS,
            })
    for name, entry in results.items():
        if not name.startswith(SERVE_PREFIX) or "median_wall_ms" not in entry:
            continue
        value = entry["median_wall_ms"]
        found.append({"target": f"{name} wall <= {SERVE_TARGET_MS} ms", "value": value,
                      "pass": value <= SERVE_TARGET_MS})
        process = results.get(PROCESS_PREFIX + name[len(SERVE_PREFIX):], {}).get("median_wall_ms")
        if process:
            found.append({"target": f"{name} wall <= {PROCESS_PREFIX}{name[len(SERVE_PREFIX):]} wall / "
                                    f"{SERVE_TARGET_FRACTION}", "value": "1/%.1f" % (process / value),
                          "pass": value * SERVE_TARGET_FRACTION <= process})
    found.append({"target": "interpreter is not a version-manager shim", "value": python, "pass": not wiring.looks_like_shim(python)})
    return found


def _load(machine: dict) -> str:
    values = [machine.get("loadavg_1min"), machine.get("loadavg_1min_end")]
    return " -> ".join(f"{v:.2f}" for v in values if v is not None) or "unknown"


def format_table(report: dict) -> str:
    machine = report["machine"]
    settings = report["settings"]
    lines = [
        f"hookmux bench: median of {settings['runs']} runs per case after {settings['warmup']} warm-up rounds, "
        f"round-robin, {'via sh -c' if settings['shell'] else 'argv (no shell)'}; wall and cpu are medians, "
        "x B0 is the ratio of medians to the -S floor",
        f"machine: nproc {machine['nproc']}, {machine['cpu_model']}, {machine['platform']}, "
        f"Python {machine['python_version']} ({machine['python']}), load {_load(machine)}",
        "",
    ]
    rows = [("case", "what", "wall ms", "x B0", "min ms", "cpu ms", "cpu x B0", "target", "result")]
    for name, entry in report["cases"].items():
        target = f"<= {entry['target_ratio']}x" if "target_ratio" in entry else ""
        if entry["check"] != "ok":
            rows.append((name, entry["title"], "-", "-", "-", "-", "-", target, "ERROR"))
            continue
        ratio = entry.get("ratio_to_b0")
        result = ""
        if "target_ratio" in entry and ratio is not None:
            result = "pass" if ratio <= entry["target_ratio"] else "FAIL"
        cpu_ratio = entry.get("cpu_ratio_to_b0")
        rows.append((
            name, entry["title"], f"{entry['median_wall_ms']:.2f}", f"{ratio:.2f}" if ratio is not None else "-",
            f"{entry['min_wall_ms']:.2f}", f"{entry['median_cpu_ms']:.2f}", f"{cpu_ratio:.2f}" if cpu_ratio is not None else "-", target, result,
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    numeric = {2, 3, 4, 5, 6}
    for row in rows:
        cells = [cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    pool = report.get("warm_pool")
    if pool:
        lines += [f"warm pool: {pool['served']} calls served by standbys; the pool's CPU, in no figure above: "
                  f"{pool['cpu_ms']:.1f} ms ({pool['cpu_ms_per_call']:.2f} ms per call, off the call's path)", ""]
    for verdict in report["targets"]:
        value = verdict["value"]
        lines.append(f"{'pass' if verdict['pass'] else 'FAIL'}  {verdict['target']}: {value}")
    profiled = [(n, e["imports_summary"]) for n, e in report["cases"].items() if "imports_summary" in e]
    if profiled:
        lines += ["", "where the start-up goes (-X importtime, median of 5, modules `python -S -c pass` imports left out):"]
        for name, summary in profiled:
            lines.append(f"{name}: {summary[0]}")
            lines += [f"  {line}" for line in summary[1:]]
    errors = [(n, e["check"]) for n, e in report["cases"].items() if e["check"] != "ok"]
    for name, problem in errors:
        lines.append(f"ERROR {name}: {problem}")
    return "\n".join(lines)
