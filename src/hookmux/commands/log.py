"""``hookmux log``: what the dispatcher did, from its terminal ledger.

Recent dispatches, outcome counts (ok, timeout, failed open by reason code), per-row counts
and p50/p95 durations. The ledger is ``<state_dir>/ledger/dispatch.jsonl`` (written by
``hooks/_common/ledger.py``; ``HOOKMUX_LEDGER=0`` turns it off); it holds no payload content.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from hookmux import breakers, resources

HELP = "show recent dispatches, per-row counts, timeouts, failed-open counts and p50/p95 durations"
ROW_CODES = ("emitted", "silent", "dropped", "timeout", "error", "import-error", "not-run", "breaker-open")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--recent", type=int, default=20, metavar="N",
                        help="how many recent dispatches to list (default 20)")
    parser.add_argument("--event", help="only dispatches of this event (e.g. PreToolUse)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    ledger = resources.runtime("ledger")
    path = ledger.dispatch_path()
    records = [r for r in ledger.read_records(path) if _valid(r) and args.event in (None, r["event"])]
    report = summarize(records, max(0, args.recent))
    report["path"] = path
    report["enabled"] = not ledger.switched_off()
    report["silence"] = silence_summary()
    report["breakers"] = breakers.everywhere()
    sys.stdout.write(json.dumps(report, indent=2) + "\n" if args.json else render(report))
    return 0


def _valid(record: dict) -> bool:
    return (record.get("v") == 1 and isinstance(record.get("event"), str)
            and isinstance(record.get("ms"), (int, float)) and isinstance(record.get("rows"), list))


def percentile(values: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile: the smallest value with at least ``fraction`` of them at or below it."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * fraction // 1))
    return ordered[int(rank) - 1]


def summarize(records: list[dict], recent: int) -> dict:
    durations = [float(r["ms"]) for r in records]
    outcomes = Counter(r.get("outcome") for r in records)
    reasons = Counter(r.get("reason") for r in records if r.get("outcome") == "failed-open")
    rows: dict[tuple[str, str], Counter] = {}
    row_ms: dict[tuple[str, str], list[float]] = {}
    for record in records:
        for row in record["rows"]:
            if not (isinstance(row, list) and len(row) == 3):
                continue
            name, code, ms = row
            key = (str(name), record["event"])
            rows.setdefault(key, Counter())[str(code)] += 1
            if isinstance(ms, (int, float)) and code != "breaker-open":  # skipped: it did not run
                row_ms.setdefault(key, []).append(float(ms))
    return {
        "dispatches": len(records),
        "first": records[0]["t"] if records else None,
        "last": records[-1]["t"] if records else None,
        "outcomes": {name: outcomes.get(name, 0) for name in ("ok", "timeout", "failed-open")},
        "failed_open_reasons": dict(sorted(reasons.items(), key=lambda item: str(item[0]))),
        "p50_ms": percentile(durations, 0.5),
        "p95_ms": percentile(durations, 0.95),
        "rows": [
            {"name": name, "event": event, "runs": sum(counts.values()) - counts.get("breaker-open", 0),
             **{code: counts.get(code, 0) for code in ROW_CODES},
             "p50_ms": percentile(row_ms.get((name, event), []), 0.5),
             "p95_ms": percentile(row_ms.get((name, event), []), 0.95)}
            for (name, event), counts in sorted(rows.items())
        ],
        "recent": records[-recent:] if recent else [],
    }


def silence_summary() -> list[dict]:
    """Per advisory key: how often it was shown, suppressed and reacted to, and what the gate says now."""
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("hookmux._calibrated_silence",
                                   resources.hooks_tree() / "calibrated-silence" / "calibrated_silence.py")
    silence = module_from_spec(spec)
    spec.loader.exec_module(silence)
    try:
        records = silence._ledger().read_records(silence.history_path())
    except OSError:
        return []
    now, tunables = time.time(), silence.settings()
    keys = sorted({(r.get("type"), r.get("key")) for r in records
                   if isinstance(r.get("type"), str) and isinstance(r.get("key"), str) and r.get("key") != silence.ANY_KEY})
    summary = []
    for type_, key in keys:
        stats = silence.tally(records, type_, key, now, tunables)
        allow, reason = silence.decide(records, type_, key, now, tunables)
        summary.append({"type": type_, "key": key, "shown": stats["interjections"], "suppressed": stats["suppressed"],
                        "acted": stats["acted"], "ignored": stats["ignored"], "annoyed": stats["annoyed_recent"],
                        "unknown": stats["unknown"], "next": "show" if allow else "quiet", "reason": reason})
    return summary


def _when(stamp) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp)) if isinstance(stamp, (int, float)) else "?"


def _ms(value) -> str:
    return "-" if value is None else f"{value:.1f}"


def render(report: dict) -> str:
    lines = [f"ledger: {report['path']}" + ("" if report["enabled"] else "  (off: HOOKMUX_LEDGER)")]
    if not report["dispatches"]:
        lines.append("no dispatches recorded")
        return "\n".join(lines + _tail(report)) + "\n"
    outcomes = report["outcomes"]
    reasons = ", ".join(f"{name} {count}" for name, count in report["failed_open_reasons"].items())
    lines += [
        f"{report['dispatches']} dispatches, {_when(report['first'])} .. {_when(report['last'])}",
        f"ok {outcomes['ok']}, timeout {outcomes['timeout']}, failed open {outcomes['failed-open']}"
        + (f" ({reasons})" if reasons else ""),
        f"duration: p50 {_ms(report['p50_ms'])} ms, p95 {_ms(report['p95_ms'])} ms",
        "",
        f"{'row':<36} {'event':<18} {'runs':>5} {'emitted':>7} {'silent':>6} {'timeout':>7} {'error':>5}"
        f" {'skipped':>7} {'p50 ms':>7} {'p95 ms':>7}",
    ]
    for row in report["rows"]:
        errors = row["error"] + row["import-error"] + row["not-run"]
        lines.append(
            f"{row['name']:<36} {row['event']:<18} {row['runs']:>5} {row['emitted']:>7} {row['silent']:>6}"
            f" {row['timeout']:>7} {errors:>5} {row['breaker-open']:>7} {_ms(row['p50_ms']):>7} {_ms(row['p95_ms']):>7}")
    if report["recent"]:
        lines += ["", "recent:"]
        for record in report["recent"]:
            rows = ", ".join(f"{name} {code}" for name, code, _ in record["rows"]) or "no row selected"
            reason = f" ({record['reason']})" if record.get("reason") else ""
            lines.append(f"  {_when(record['t'])}  {record['event']:<18} {record['outcome']}{reason}"
                         f"  {record['ms']:.1f} ms  {rows}")
    return "\n".join(lines + _tail(report)) + "\n"


def _tail(report: dict) -> list[str]:
    """The calibrated-silence summary and the open or counting circuit breakers."""
    entries = report.get("breakers") or []
    return _render_silence(report.get("silence") or []) + ([""] + breakers.render(entries) if entries else [])


def _render_silence(summary: list[dict]) -> list[str]:
    if not summary:
        return []
    lines = ["", "calibrated silence (docs/calibrated-silence.md):",
             f"  {'advisory':<40} {'shown':>5} {'quiet':>5} {'acted':>5} {'ignored':>7} {'annoyed':>7}  next"]
    for item in summary:
        lines.append(f"  {item['type'] + '/' + item['key']:<40} {item['shown']:>5} {item['suppressed']:>5}"
                     f" {item['acted']:>5} {item['ignored']:>7} {item['annoyed']:>7}  {item['next']} ({item['reason']})")
    return lines
