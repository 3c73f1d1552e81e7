"""``hookmux explain 'COMMAND'``: what the shell reader finds in a command and what each row says.

Prints the simple commands the reader found (``hooks/_common/shell.py``) with where each came
from (a wrapper, ``sh -c``, a substitution, a one-liner), then every evaluator's verdict per
row with its reason. The command is data: it is read, never run.

Evaluators are a list (``EVALUATORS``): each is ``(name, function)`` where the function takes
``(command, tool, cwd)`` and returns a list of ``{"id", "verdict", "why"}``; the advisory is the
first. Another check (the danger gate, issue 27) adds its own entry beside it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Callable

from hookmux import resources
from hookmux.contraindications import check_module

HELP = "show the commands the shell reader finds in COMMAND and each row's verdict (nothing is run)"


def advisory_verdicts(command: str, tool: str, cwd: str | None, registry: str | None = None) -> list[dict]:
    """The contraindication advisory's rows on ``command``: structured rows by the reader, text rows by regex."""
    check = check_module()
    rows = check.load_rows(registry or check.REGISTRY)
    dialect = check.shell_dialect(tool) or "posix"
    found = {v.row_id: v for v in check.verdicts(rows, command, dialect, cwd or "")}
    text_hits = {row["id"] for row in check.matching_rows(rows, tool, json.dumps({"command": command}))}
    config = check.danger_user_registry(os.environ)
    off = check.packs_off(check.user_config(os.environ))
    out = []
    for row in rows:
        if "input_pattern" in row:
            hit = row["id"] in text_hits
            why = "input_pattern finds the command text" if hit else "input_pattern does not find the command text"
            entry = {"id": row["id"], "verdict": "advise" if hit else "quiet", "why": why, "form": "text"}
        elif row["id"] in found:
            verdict = found[row["id"]]
            entry = {"id": row["id"], "verdict": "advise" if verdict.matched else "quiet", "why": verdict.why,
                     "form": "structured"}
        else:
            continue
        entry["pack"] = row.get("pack", "")
        entry["pack_on"] = entry["pack"] not in off
        if not entry["pack_on"]:
            where = config if entry["pack"] not in check.PACKS_OFF_BY_DEFAULT else "by default"
            entry["why"] += f"; pack {entry['pack']} is off ({where})"
            if entry["verdict"] == "advise":
                entry["verdict"] = "off"
        out.append(entry)
    return out


def danger_gate_verdicts(command: str, tool: str, cwd: str | None) -> list[dict]:
    """The danger gate's rows (hooks/danger-gate, docs/danger-gate.md): ``block`` when a row
    matches and its judge finds something that would be lost (the disk, git asked now); a row
    that matches but loses nothing says so. Allowances are not consulted."""
    if tool not in ("Bash", "bash", "run_shell_command"):
        return []
    from hookmux import dangers

    packs = dangers.row_packs()
    out = []
    for verdict in dangers.explain(command, cwd or os.getcwd()):
        why = verdict["why"]
        if verdict["blocks"]:
            verb = ": would change " if verdict["id"] == "GUARD-OWN-GROUND" else ": would lose "
            why += verb + "; ".join(verdict["lost"])
        elif verdict["matched"]:
            why += ", but nothing would be lost here"
        entry = {"id": verdict["id"], "verdict": "block" if verdict["blocks"] else "quiet", "why": why,
                 "form": "structured"}
        if packs.get(verdict["id"]):
            entry["pack"] = packs[verdict["id"]]  # a row of a pack that is off is not loaded at all
        out.append(entry)
    return out


Evaluator = Callable[[str, str, "str | None"], list]
EVALUATORS: list[tuple[str, Evaluator]] = [("advisory", advisory_verdicts), ("danger gate", danger_gate_verdicts)]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("command", metavar="COMMAND", help="the shell command to read (quoted as one argument)")
    parser.add_argument("--cwd", help="the session's folder the paths are judged against (default: the current one)")
    parser.add_argument("--tool", default="Bash", help="the tool name (Bash, PowerShell; default Bash)")
    parser.add_argument("--all", action="store_true", help="list quiet rows too (default: only rows that advise "
                                                           "and the rows of programs the command runs)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def explain(command: str, tool: str = "Bash", cwd: str | None = None) -> dict:
    """The report: the commands found and each evaluator's verdicts."""
    shell = resources.runtime("shell")
    check = check_module()
    dialect = check.shell_dialect(tool) or "posix"
    commands = shell.read(command, dialect)
    return {
        "tool": tool,
        "cwd": cwd,
        "commands": [{"argv": list(c.argv), "origin": list(c.origin), "unknown_args": c.unknown_args,
                      "piped_from": c.piped_from, "writes": list(getattr(c, "writes", ())),
                      "assigns": {k: v for k, v in c.assigns.items()}} for c in commands],
        "evaluators": {name: evaluate(command, tool, cwd) for name, evaluate in EVALUATORS},
    }


def run(args: argparse.Namespace) -> int:
    cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    report = explain(args.command, args.tool, cwd)
    sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n" if args.json else render(report, args.all))
    return 0


def render(report: dict, show_all: bool = False) -> str:
    lines = [f"commands the reader found ({report['tool']}, cwd {report['cwd']}):"]
    if not report["commands"]:
        lines.append("  (none)")
    programs = set()
    for number, command in enumerate(report["commands"], 1):
        programs.add(command["argv"][0].lower() if command["argv"] else "")
        via = f"  [via {' > '.join(command['origin'])}]" if command["origin"] else ""
        extra = "  [+ arguments at run time]" if command["unknown_args"] else ""
        piped = f"  [input from {command['piped_from']}]" if command["piped_from"] else ""
        writes = "".join(f"  [writes {path}]" for path in command.get("writes", ()))
        lines.append(f"  {number}. {_shown(command['argv'])}{via}{extra}{piped}{writes}")
    for name, verdicts in report["evaluators"].items():
        advised = [v for v in verdicts if v["verdict"] not in ("quiet", "off")]
        lines.append(f"{name}: " + (", ".join(v["id"] for v in advised) if advised else "quiet"))
        for verdict in verdicts:
            why = verdict["why"]
            near = not why.startswith("no command runs") and ": not " not in why and verdict.get("form") != "text"
            if show_all or verdict["verdict"] != "quiet" or near:
                pack = f" (pack {verdict['pack']}{'' if verdict.get('pack_on', True) else ', off'})" \
                    if verdict.get("pack") else ""
                lines.append(f"  {verdict['verdict']:6} {verdict['id']}{pack}: {verdict['why']}")
    return "\n".join(lines) + "\n"


def _shown(argv: list[str]) -> str:
    return " ".join(json.dumps(word, ensure_ascii=False) if not word or any(c in word for c in " \t\n'\"\\") else word
                    for word in argv)
