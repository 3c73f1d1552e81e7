"""``hookmux bench``: time the installed hook commands against a bare interpreter."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = (
    "Time the hook command lines hookmux installs (dispatcher, gate, checks) against a bare "
    "interpreter start (B0..B6; B6: the Codex command lines; B7 with --adopted: your adopted hooks), "
    "print medians, ratios to B0 and the targets. --turn claude: one turn of the real Claude Code binary "
    "in .e2e/ per run, bare vs each wiring (install, --serve, the plugin)."
)

ADOPTED_CASE_NAMES = ("B7.dispatch", "B7.separate")  # with --adopted (hookmux.bench.adopted)
CASE_NAMES = ("B0", "B0.site", "B1.dispatch", "B1.separate", "B2", "B3.pre", "B3.batch",
              "B4.pre", "B4.batch", "B5.new", "B5.plain", "B5.seen", "B6.plain", "B6.new", "B6.agent", "B6.skill",
              "B9.plain", "B9.git", "B9.hazard", "B9.githazard", "B8.new", "B8.plain", "B8.seen")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=int, default=None,
                        help="timed runs per case (default 20, with --turn 10; the median is reported)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed rounds first (default 3)")
    parser.add_argument("--gap", type=float, default=0.0, metavar="MS",
                        help="pause between runs (default 0: back to back), so that what a run leaves to do in the "
                             "background (the warm pool readies a standby) does not land on the next")
    parser.add_argument("--json", metavar="PATH", help="also write every sample and the verdicts as JSON")
    parser.add_argument("--python", metavar="PATH", help="interpreter to wire and time (default: the one hookmux runs in, past shims)")
    parser.add_argument("--hooks-tree", metavar="DIR", help="hooks tree to copy and time (default: the package's own)")
    parser.add_argument("--shell", action="store_true", help="run each command line via /bin/sh -c, as a host does (default: its argv)")
    parser.add_argument("--importtime", action="store_true",
                        help="after timing, show which imports each case adds to a bare start (-X importtime)")
    parser.add_argument("--no-compile", action="store_true",
                        help="do not byte-compile the copied tree first (shows what PYTHONDONTWRITEBYTECODE=1 costs "
                             "an install that was not byte-compiled)")
    parser.add_argument("--adopted", nargs="?", const="~/.claude/hooks", metavar="TARGET",
                        help="also time the hooks `hookmux adopt` moved into TARGET's manifest (default "
                             "~/.claude/hooks) both ways: B7.dispatch vs B7.separate (runs your scripts)")
    parser.add_argument("--threads", action="store_true",
                        help="also time B1.dispatch and B5.* with the checks in threads of the dispatcher's own "
                             "process (HOOKMUX_ISOLATION=0) as <case>.threads: what the forked worker costs")
    parser.add_argument("--turn", choices=("claude",), metavar="HOST",
                        help="time whole turns of the host's real binary from .e2e/ (claude): bare, hookmux install, "
                             "install --serve, the plugin, interleaved; wall per run and the tool interval, over bare")
    parser.add_argument("--e2e", metavar="DIR", help="with --turn: the folder install-clis.sh filled (default: ./.e2e, "
                                                     "then the checkout's)")
    parser.add_argument("--wiring", action="append", choices=("install", "serve", "plugin"), metavar="NAME",
                        help="with --turn: only this wiring besides bare (repeatable)")
    parser.add_argument("--case", action="append", choices=CASE_NAMES + ADOPTED_CASE_NAMES, metavar="NAME",
                        help="time only this case (repeatable; B0 is always included; with --threads, the case's .threads twin too)")


def run(args: argparse.Namespace) -> int:
    from hookmux import resources, wiring
    from hookmux.bench.adopted import NoAdoptedHooks
    from hookmux.bench.report import format_table
    from hookmux.bench.suite import run_bench

    if args.turn:
        return run_turn(args)
    args.runs = 20 if args.runs is None else args.runs
    if args.runs < 1 or args.warmup < 0 or args.gap < 0:
        print("hookmux bench: --runs must be >= 1, --warmup and --gap >= 0", file=sys.stderr)
        return 2
    if args.runs < 20:
        print(f"hookmux bench: {args.runs} runs per case (the targets are defined on medians of >= 20)", file=sys.stderr)
    python = wiring.resolve_python(args.python)
    tree = Path(args.hooks_tree).expanduser().resolve() if args.hooks_tree else resources.hooks_tree()
    try:
        result = run_bench(
            python, tree, runs=args.runs, warmup=args.warmup, shell=args.shell, only=args.case or (),
            profile_imports=args.importtime, precompile=not args.no_compile,
            progress=lambda message: print(f"hookmux bench: {message}", file=sys.stderr),
            adopted=Path(args.adopted).expanduser().absolute() if args.adopted else None,
            threads=args.threads, gap=args.gap / 1000,
        )
    except NoAdoptedHooks as exc:
        print(f"hookmux bench: {exc}", file=sys.stderr)
        return 1
    print(format_table(result))
    both = [result["cases"].get(name, {}) for name in ADOPTED_CASE_NAMES]
    if all("median_cpu_ms" in case for case in both):
        print(f"B7: one dispatcher takes {both[0]['median_wall_ms'] / both[1]['median_wall_ms']:.2f} of the wall time "
              f"and {both[0]['median_cpu_ms'] / both[1]['median_cpu_ms']:.2f} of the CPU of your adopted hooks run apart")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    errors = [name for name, entry in result["cases"].items() if entry["check"] != "ok"]
    return 1 if errors else 0


def run_turn(args: argparse.Namespace) -> int:
    from hookmux.bench import turn

    runs = 10 if args.runs is None else args.runs
    if runs < 1:
        print("hookmux bench: --runs must be >= 1", file=sys.stderr)
        return 2
    try:
        binary = turn.find_claude(Path(args.e2e).expanduser().absolute() if args.e2e else None)
        result = turn.run_turn_bench(
            binary, runs=runs, warmup=1,
            wirings=tuple(args.wiring or turn.WIRINGS),
            progress=lambda message: print(f"hookmux bench --turn: {message}", file=sys.stderr))
    except (turn.TurnBenchError, OSError) as exc:
        print(f"hookmux bench --turn: {exc}", file=sys.stderr)
        return 1
    print(turn.format_turn(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0
