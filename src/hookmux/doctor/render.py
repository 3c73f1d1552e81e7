"""The doctor's report as text: what was looked at, what each canary did, and every problem with its fix."""
from __future__ import annotations


def _ms(value) -> str:
    return "-" if value is None else f"{value:.1f}"


def render(report: dict) -> str:
    lines = [f"hookmux doctor (hookmux {report['hookmux']}), HOME {report['home']}, project {report['project']}"]
    for info in report["interpreters"]:
        lines.append(f"python:  {info['path']} " + (f"{info['version']} ok" if info["ok"] else f"PROBLEM: {info['problem']}"))
    for item in report.get("plugins", []):
        lines.append(f"plugin:  {item['plugin_id']} on for {item['host']} ({item['where']}): runs from "
                     f"{item['root'] or '?'} ({item['how'] or 'not found'})" + (" PROBLEM" if item["problem"] else ""))
    for item in report.get("gemini_extensions", []):
        lines.append(f"gemini extension: hookmux ({item['kind'] or '?'}) runs from {item['root']}: "
                     + ("on" if item["enabled"] else "off for this project") + (" PROBLEM" if item["problem"] else ""))
    for wiring in report["wirings"]:
        state = "missing" if not wiring["exists"] else "unreadable" if wiring["error"] else f"{len(wiring['hooks'])} hookmux hooks"
        lines.append(f"wired:   {wiring['file']} ({wiring['format']}, loaded by {', '.join(wiring['loaded_by'])}): {state}")
        for hook in wiring["hooks"]:
            if not hook["canary"]:
                lines.append(f"  {hook['event']:<20} {hook['role']:<8} (no canary: an HTTP hook, or its interpreter is gone)")
            for run in hook["canary"]:
                verdict = "fired, answer accepted" if run["fired"] and run["accepted"] else \
                    "DID NOT FIRE" if not run["fired"] else "ANSWER REJECTED"
                tool = f" {run['tool']}" if run["tool"] else ""
                tool += f" (as {run['host']})" if run["host"] != wiring["format"] else ""
                trust = f", Codex: {hook['trust']}" if hook.get("trust") else ""
                lines.append(f"  {hook['event']:<20} {hook['role']:<8}{tool}: {verdict} "
                             f"({run['shell']} -c, exit {run['exit']}, {run['ms']:.0f} ms{trust})")
    for target in report["targets"]:
        lines.append(f"target:  {target['target']}" + ("" if target["installed"] else " (no install record)"))
        for pool in target["pools"]:
            lines.append(f"  warm pool pid {pool['pid']}: " + ("answers" if pool["answers"] else f"PROBLEM: {pool['problem']}"))
        if target["server"] is not None:
            lines.append("  server: " + ("answers" if target["server"]["answers"] else "DOES NOT ANSWER"))
        if target["rows"]:
            lines.append(f"  {'row':<52} {'reach':<9} {'import':<7} {'runs':>5} {'err':>4} {'tmo':>4} {'p95 ms':>7}  breaker")
        for row in target["rows"]:
            reach = "yes" if any(r["reachable"] for r in row["reach"]) else "NO" if row["reach"] else "unwired"
            stats = row["ledger"] or {}
            breaker = row["breaker"]
            state = "-" if not breaker else "OPEN" if breaker["open"] else f"{breaker['failures']} failing"
            lines.append(f"  {row['event'] + ' [' + str(row['index']) + '] ' + str(row['name']):<52} {reach:<9} "
                         f"{'ok' if row['imports'] == 'ok' else 'NO' if row['imports'] else '-':<7} "
                         f"{stats.get('runs', 0):>5} {stats.get('errors', 0):>4} {stats.get('timeouts', 0):>4} "
                         f"{_ms(stats.get('p95_ms')):>7}  {state}")
    for item in report["warnings"]:
        lines += [f"warning: {item['where']}: {item['problem']}", f"   fix: {item['fix']}"]
    for item in report["problems"]:
        lines += [f"problem: {item['where']}: {item['problem']}", f"   fix: {item['fix']}"]
    lines.append("doctor:  ok" if report["ok"] else f"doctor:  {len(report['problems'])} problem(s)")
    return "\n".join(lines) + "\n"
