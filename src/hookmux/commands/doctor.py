"""``hookmux doctor``: run a canary event through every wired hook the way its host runs it, and
check each manifest row (reach, imports, ledger, circuit breaker), the interpreters, the warm
pool and the server. Exit 1 on any problem; every problem says how to fix it. ``--json`` is the
report to attach to a bug report (docs/doctor.md)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hookmux import protection
from hookmux.commands.install import DEFAULT_TARGET
from hookmux.doctor import Options, diagnose
from hookmux.doctor.render import render
from hookmux.installer import codex_trust
from hookmux.installer.wiring_files import absolute

HELP = "prove that every installed hook fires: a canary through each wired command, row by row"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", action="append", default=[], metavar="DIR",
                        help=f"a hooks folder hookmux installed (default {DEFAULT_TARGET}; repeatable)")
    parser.add_argument("--settings", action="append", default=[], metavar="FILE",
                        help="a Claude Code settings file to look at besides the usual ones (repeatable)")
    parser.add_argument("--copilot-hooks-dir", action="append", default=[], metavar="DIR",
                        help="a Copilot hooks folder besides ~/.copilot/hooks and .github/hooks (repeatable)")
    parser.add_argument("--codex-home", action="append", default=[], metavar="DIR",
                        help="a Codex home besides $CODEX_HOME or ~/.codex (repeatable)")
    parser.add_argument("--gemini-home", action="append", default=[], metavar="DIR",
                        help="a Gemini settings folder besides ~/.gemini and the project's .gemini (repeatable)")
    parser.add_argument("--codex-bin", metavar="PATH",
                        help="the codex binary asked which hooks Codex trusts (default: codex on PATH)")
    parser.add_argument("--project", metavar="DIR", default=".",
                        help="the project whose .claude, .github/hooks, .codex and .gemini to look at (default: .)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (for a bug report)")
    parser.add_argument("--managed-root", metavar="DIR", default="", help=argparse.SUPPRESS)  # tests: a throwaway /


def run(args: argparse.Namespace) -> int:
    try:
        codex_bin = codex_trust.find_codex(args.codex_bin)
    except codex_trust.CodexTrustError as exc:
        sys.stderr.write(f"hookmux: {exc}\n")
        return 1
    options = Options(codex_bin=codex_bin, home=Path.home(), project=absolute(args.project),
                      targets=[absolute(t) for t in (args.target or [DEFAULT_TARGET])],
                      settings=[absolute(p) for p in args.settings],
                      copilot_dirs=[absolute(p) for p in args.copilot_hooks_dir],
                      codex_homes=[absolute(p) for p in args.codex_home],
                      gemini_homes=[absolute(p) for p in args.gemini_home])
    report = diagnose(options)
    report["protection"] = protection.level(args.managed_root)  # informs; not a problem either way
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:  # the level before the verdict, which stays the last line
        *lines, verdict = render(report).rstrip("\n").split("\n")
        sys.stdout.write("\n".join(lines) + "\n" + protection.render(report["protection"]) + verdict + "\n")
    return 0 if report["ok"] else 1
