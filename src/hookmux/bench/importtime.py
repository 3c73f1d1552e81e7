"""Where a hook's start-up goes: ``-X importtime`` beyond a bare interpreter.

Runs a command with ``-X importtime`` inserted after the interpreter, a few
times, and keeps the median self and cumulative microseconds of every module
that a bare ``python -S -c pass`` does not import already.

The dispatcher's ``main()`` points fd 2 at /dev/null before it loads any check,
which would hide every later import; a dispatcher command is therefore profiled
through its ``run()`` API (same arguments, same payload), see ``importtime_argv``.
"""
from __future__ import annotations

import statistics
import subprocess
from dataclasses import dataclass
from typing import Callable, Sequence


@dataclass
class ImportCost:
    name: str
    depth: int
    self_us: float
    cumulative_us: float


def parse(stderr: str) -> list[tuple[str, int, int, int]]:
    """(name, depth, self us, cumulative us) per ``import time:`` line."""
    rows = []
    for line in stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        parts = line[len("import time:"):].split("|")
        if len(parts) != 3:
            continue
        try:
            own, total = int(parts[0]), int(parts[1])
        except ValueError:
            continue
        label = parts[2].rstrip()
        name = label.lstrip()
        depth = max(0, (len(label) - len(name) - 1) // 2)
        rows.append((name, depth, own, total))
    return rows


# Runs ``dispatch.py [--manifest M] [--hooks-root R] EVENT`` through dispatch.run().
DISPATCH_RUNNER = """
import sys
script, args = sys.argv[1], sys.argv[2:]
sys.path.insert(0, script.rpartition("/")[0])
import dispatch
options = {"--manifest": None, "--hooks-root": None}
event = None
rest = iter(args)
for arg in rest:
    if arg in options:
        options[arg] = next(rest, None)
    elif not arg.startswith("-"):
        event = arg
sys.stdout.write(dispatch.run(event, sys.stdin.read(), manifest=options["--manifest"],
                              hooks_root=options["--hooks-root"]))
"""


def importtime_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``-X importtime``; a dispatcher command goes through ``run()``."""
    python, *rest = argv
    if len(rest) >= 2 and rest[0] == "-S" and rest[1].replace("\\", "/").endswith("_dispatch/dispatch.py"):
        return [python, "-X", "importtime", "-S", "-c", DISPATCH_RUNNER, *rest[1:]]
    return [python, "-X", "importtime", *rest]


def _run(argv: Sequence[str], stdin_path: str, env: dict[str, str]) -> list[tuple[str, int, int, int]]:
    command = importtime_argv(argv)
    with open(stdin_path, "rb") as stdin:
        done = subprocess.run(command, stdin=stdin, capture_output=True, env=env, timeout=120)
    return parse(done.stderr.decode(errors="replace"))


def floor_modules(python: str, env: dict[str, str], stdin_path: str) -> set[str]:
    return {name for name, _d, _s, _c in _run([python, "-S", "-c", "pass"], stdin_path, env)}


def profile(
    invocation: Callable[[int], tuple[Sequence[str], str]],
    env: dict[str, str],
    floor: set[str],
    repeats: int = 5,
) -> list[ImportCost]:
    """Median import costs of the modules a command adds to the floor, in import order.

    ``invocation(i)`` gives the argv and stdin file of repeat ``i`` (a case whose
    payload changes per run, like B5.new, gets a fresh one each time).
    """
    seen: dict[str, tuple[int, list[int], list[int]]] = {}
    for index in range(repeats):
        argv, stdin_path = invocation(index)
        for name, depth, own, total in _run(argv, stdin_path, env):
            if name in floor:
                continue
            entry = seen.setdefault(name, (depth, [], []))
            entry[1].append(own)
            entry[2].append(total)
    return [
        ImportCost(name, depth, statistics.median(own), statistics.median(total))
        for name, (depth, own, total) in seen.items()
    ]


def summary(costs: list[ImportCost], top: int = 8) -> list[str]:
    """Lines: the total, the top-level imports by cumulative time, the heaviest single modules."""
    roots = sorted((c for c in costs if c.depth == 0), key=lambda c: -c.cumulative_us)
    total = sum(c.cumulative_us for c in roots)
    lines = [f"{total / 1000:.2f} ms in {len(costs)} imports beyond the floor"]
    if roots:
        lines.append("  top-level imports (cumulative ms): " + ", ".join(
            f"{c.name} {c.cumulative_us / 1000:.2f}" for c in roots[:top]))
    heavy = sorted(costs, key=lambda c: -c.self_us)[:top]
    if heavy:
        lines.append("  heaviest modules (self ms): " + ", ".join(f"{c.name} {c.self_us / 1000:.2f}" for c in heavy))
    return lines
