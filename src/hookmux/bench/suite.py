"""One benchmark run: set up, check each case's output once, time, report."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Optional, Sequence

from hookmux.bench import report
from hookmux.bench.cases import BenchSetup, Case
from hookmux.bench.runner import measure, round_robin


def _check(setup: BenchSetup, case: Case) -> Optional[str]:
    """Run the case once with its output captured; None when it did its job."""
    try:
        for index in range(case.prime):
            measure(case.invocations(-1 - index, False), setup.env)
        files = setup.output_files(case)
        sample = measure(case.invocations(-1, False), setup.env, files)
    except OSError as exc:
        return f"could not run: {exc}"
    outcome = []
    for code, (out, err) in zip(sample.exit_codes, files):
        outcome.append((code, Path(out).read_text(errors="replace"), Path(err).read_text(errors="replace")))
    return case.expect(outcome)


def run_bench(
    python: str,
    hooks_tree: Path,
    runs: int = 20,
    warmup: int = 3,
    shell: bool = False,
    only: Sequence[str] = (),
    progress=None,
) -> dict:
    """Return the full report (machine, settings, per-case results, targets)."""
    started = time.time()
    machine = report.machine_info(python)
    previous = os.getcwd()
    with BenchSetup(python, hooks_tree) as setup:
        os.chdir(setup.work)
        try:
            cases = [c for c in setup.cases() if not only or c.name in only or c.name == report.FLOOR]
            problems = {case.name: _check(setup, case) for case in cases}
            good = [case for case in cases if problems[case.name] is None]
            by_name = {case.name: case for case in good}
            if progress:
                progress(f"timing {len(good)} cases x {runs} runs (+{warmup} warm-up rounds)")

            def run_once(name: str, round_index: int):
                return measure(by_name[name].invocations(round_index, shell), setup.env)

            samples = round_robin([case.name for case in good], run_once, runs, warmup)
        finally:
            os.chdir(previous)
    results = report.summarize(cases, samples, problems)
    machine["loadavg_1min_end"] = report.machine_info(python)["loadavg_1min"]
    return {
        "machine": machine,
        "settings": {
            "runs": runs,
            "warmup": warmup,
            "shell": shell,
            "hooks_tree": str(hooks_tree),
            "seconds": round(time.time() - started, 1),
        },
        "cases": results,
        "targets": report.verdicts(results, python),
    }
