"""One benchmark run: set up, check each case's output once, time, report."""
from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Optional, Sequence

from hookmux.bench import importtime, report, serve_cases
from hookmux.bench.cases import THREADS_SUFFIX, BenchSetup, Case, expect_context, expect_silent
from hookmux.bench.runner import adopt_orphans, measure, pool_usage, round_robin


def _check(setup: BenchSetup, case: Case) -> Optional[str]:
    """Run the case once with its output captured; None when it did its job."""
    try:
        for index in range(case.prime):
            measure(case.invocations(-1 - index, False), case.env or setup.env)
        files = setup.output_files(case)
        sample = measure(case.invocations(-1, False), case.env or setup.env, files)
    except OSError as exc:
        return f"could not run: {exc}"
    outcome = []
    for code, (out, err) in zip(sample.exit_codes, files):
        outcome.append((code, Path(out).read_text(errors="replace"), Path(err).read_text(errors="replace")))
    return case.expect(outcome)


def _profile_imports(setup: BenchSetup, cases: Sequence[Case]) -> dict[str, list]:
    """-X importtime of each hookmux case's first command (argv form)."""
    floor = importtime.floor_modules(setup.python, setup.env, str(setup.payload("pre-bash")))
    found = {}
    for case in cases:
        if case.name.startswith("B0") or serve_cases.is_http(case):
            continue

        def first(index: int, case: Case = case) -> tuple[tuple[str, ...], str]:
            invocation = case.invocations(-100 - index, False)[0]
            return invocation.argv, invocation.stdin_path

        found[case.name] = importtime.profile(first, setup.env, floor)
    return found


def run_bench(
    python: str,
    hooks_tree: Path,
    runs: int = 20,
    warmup: int = 3,
    shell: bool = False,
    only: Sequence[str] = (),
    profile_imports: bool = False,
    precompile: bool = True,
    progress=None,
    adopted: Optional[Path] = None,
    threads: bool = False,
    gap: float = 0.0,
) -> dict:
    """Return the full report (machine, settings, per-case results, targets)."""
    started = time.time()
    machine = report.machine_info(python)
    machine["counts_orphans"] = adopt_orphans()
    previous = os.getcwd()
    with BenchSetup(python, hooks_tree, precompile=precompile) as setup, contextlib.ExitStack() as stack:
        os.chdir(setup.work)
        try:
            every = setup.cases()
            if threads:
                every += setup.thread_twins(every)
            if adopted is not None:
                from hookmux.bench.adopted import adopted_cases

                every += adopted_cases(setup, adopted)
            if not only or any(name.startswith("B8") for name in only):
                client = stack.enter_context(serve_cases.server(setup))
                every += serve_cases.cases(setup, client, expect_context, expect_silent)
            cases = [c for c in every
                     if not only or c.name.removesuffix(THREADS_SUFFIX) in only or c.name == report.FLOOR]
            problems = {case.name: case.check() if serve_cases.is_http(case) else _check(setup, case)
                        for case in cases}
            good = [case for case in cases if problems[case.name] is None]
            by_name = {case.name: case for case in good}
            if progress:
                progress(f"timing {len(good)} cases x {runs} runs (+{warmup} warm-up rounds)")

            def run_once(name: str, round_index: int):
                case = by_name[name]
                if serve_cases.is_http(case):
                    return case.measure(round_index)
                return measure(case.invocations(round_index, shell), case.env or setup.env)

            samples = round_robin([case.name for case in good], run_once, runs, warmup, gap)
            pool = pool_usage(setup.runtime_dir)
            imports = _profile_imports(setup, good) if profile_imports else {}
        finally:
            os.chdir(previous)
    results = report.summarize(cases, samples, problems)
    for name, costs in imports.items():
        results[name]["imports"] = [vars(cost) for cost in costs]
        results[name]["imports_summary"] = importtime.summary(costs)
    machine["loadavg_1min_end"] = report.loadavg()
    return {
        "machine": machine,
        "settings": {
            "runs": runs,
            "warmup": warmup,
            "shell": shell,
            "hooks_tree": str(hooks_tree),
            "precompiled": precompile,
            "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE", ""),
            "seconds": round(time.time() - started, 1),
            "adopted": str(adopted) if adopted is not None else None,
            "threads": threads,
            "gap_seconds": gap,
        },
        "cases": results,
        "warm_pool": pool,
        "targets": report.verdicts(results, python),
    }
