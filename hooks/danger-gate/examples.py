"""Run the gate's rows on example commands: what ``hookmux validate`` and the tests use.

    python -S examples.py < {"registry": PATH, "user_registry": PATH|null,
                             "cases": [{"command": C, "cwd": DIR, "env": {...}}, ...]}
    -> {"results": [["ROW-ID", ...] per case]}

The commands are data: they are judged, never run (git is asked only its read-only
questions). The allowances are not consulted.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gate_core  # noqa: E402
import rules  # noqa: E402


def main():
    request = json.loads(sys.stdin.read())
    registry = rules.load(request["registry"], request.get("user_registry") or "")
    results = []
    for case in request["cases"]:
        env = dict(os.environ)
        env.update(case.get("env") or {})
        findings = gate_core.judge(case["command"], case["cwd"], env, registry)
        results.append(sorted({finding.row["id"] for finding in findings}))
    sys.stdout.write(json.dumps({"results": results}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
