"""`hookmux bench --adopted`: the user's adopted hooks timed both ways (no timing assertions)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adopt"))
from adopt_helpers import hookmux, user  # noqa: E402


def test_bench_times_the_adopted_hooks_both_ways(tmp_path):
    env, settings, target = user(tmp_path)
    hookmux(env, "install", "--target", target, "--settings", settings)
    hookmux(env, "adopt", "--target", target, "--settings", settings, "--apply")
    out = tmp_path / "bench.json"
    proc = hookmux(env, "bench", "--adopted", target, "--case", "B7.dispatch", "--case", "B7.separate",
                   "--runs", "2", "--warmup", "0", "--json", out)
    report = json.loads(out.read_text())
    assert list(report["cases"]) == ["B0", "B7.dispatch", "B7.separate"]
    dispatch, separate = report["cases"]["B7.dispatch"], report["cases"]["B7.separate"]
    assert dispatch["check"] == separate["check"] == "ok"
    assert len(dispatch["commands"]) == 1 and "dispatch.py" in dispatch["commands"][0]
    assert sorted(Path(c.split()[-1].strip("'")).name for c in separate["commands"]) == [
        "advise_echo.py", "advise_git.py"]
    assert "your 2 adopted PreToolUse hooks" in proc.stdout and "B7: one dispatcher takes" in proc.stdout


def test_bench_without_adopted_hooks_says_so(tmp_path):
    env, settings, target = user(tmp_path)
    hookmux(env, "install", "--target", target, "--settings", settings)
    proc = hookmux(env, "bench", "--adopted", target, "--case", "B7.dispatch", "--runs", "1", check=False)
    assert proc.returncode == 1 and "no hooks adopted" in proc.stderr
