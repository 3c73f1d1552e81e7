"""Run the reliability suites and print the README's Reliability table (markdown).

    .venv/bin/python tests/reliability/reliability_table.py [extra pytest args]

HOOKMUX_FUZZ_EXAMPLES=N and HOOKMUX_RELIABILITY_FULL=1 give the long run. Exit status is pytest's.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PYTEST = ".venv/bin/python -m pytest"
SUITES = {  # tally name -> the command that reproduces it
    "Fuzz: dispatch.run()": f"{PYTEST} tests/reliability/test_reliability_fuzz.py -k test_run_",
    "Fuzz: dispatcher process": f"{PYTEST} tests/reliability/test_reliability_fuzz.py -k test_process_",
    "Fuzz: gate process": f"{PYTEST} tests/reliability/test_reliability_fuzz.py -k test_gate_",
    "Misbehaving checks": f"{PYTEST} tests/reliability/test_reliability_misbehaving.py",
    "Limits behave as documented": f"{PYTEST} tests/reliability/test_reliability_misbehaving.py -k 'limit or watchdog'",
    "Load": f"{PYTEST} tests/reliability/test_reliability_load.py",
    "Installer faults": f"{PYTEST} tests/reliability/test_reliability_installer_faults.py",
    "Secrets": f"{PYTEST} tests/reliability/test_reliability_secrets.py",
    "Hostile environments (wired commands)": f"{PYTEST} tests/reliability/test_reliability_hostile.py",
    "Process isolation": f"{PYTEST} tests/reliability/test_reliability_isolation.py",
    "Fuzz: shell reader and advisory": f"{PYTEST} tests/reliability/test_reliability_fuzz.py -k shell_reader",
    "Hostile commands: the advisory's shell reader": f"{PYTEST} tests/reliability/test_reliability_hostile.py -k hostile_commands",
    "Fuzz: danger gate process": f"{PYTEST} tests/reliability/test_reliability_danger_gate.py -k 'not hostile'",
    "Hostile: danger gate": f"{PYTEST} tests/reliability/test_reliability_danger_gate.py -k hostile",
}


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as folder:
        tally = Path(folder) / "tally.jsonl"
        env = dict(os.environ, HOOKMUX_RELIABILITY_TALLY=str(tally))
        result = subprocess.run([sys.executable, "-m", "pytest", "tests/reliability", "-q", "-p", "no:cacheprovider",
                                 *argv], cwd=REPO, env=env)
        lines = tally.read_text().splitlines() if tally.exists() else []
    run, held = Counter(), Counter()
    for line in lines:
        record = json.loads(line)
        run[record["suite"]] += 1
        held[record["suite"]] += bool(record["held"])
    print("\n| Suite | Cases run | Cases held | Reproduce |\n|---|---:|---:|---|")
    for suite in list(SUITES) + sorted(set(run) - set(SUITES)):
        print(f"| {suite} | {run[suite]} | {held[suite]} | `{SUITES.get(suite, PYTEST + ' tests/reliability')}` |")
    print(f"| **All** | {sum(run.values())} | {sum(held.values())} | `{PYTEST} tests/reliability` |")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
