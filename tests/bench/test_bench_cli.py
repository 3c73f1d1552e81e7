"""`hookmux bench` end to end on the package's own hooks tree (no timing assertions)."""
from __future__ import annotations

import json
import subprocess
import sys

from hookmux_testing import hermetic_env
from hookmux.commands.bench import CASE_NAMES


def test_bench_runs_every_case_and_writes_json(tmp_path):
    out = tmp_path / "out.json"
    result = subprocess.run(
        [sys.executable, "-m", "hookmux.cli", "bench", "--runs", "3", "--json", str(out)],
        capture_output=True, text=True, env=hermetic_env(tmp_path), cwd=tmp_path, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    assert list(report["cases"]) == list(CASE_NAMES)
    for name, entry in report["cases"].items():
        assert entry["check"] == "ok", (name, entry["check"])
        assert len(entry["wall_ms"]) == len(entry["cpu_ms"]) == 3, name
        assert entry["unexpected_exits"] == 0, name
        assert entry["ratio_to_b0"] > 0, name
        assert entry["commands"], name
        assert name in result.stdout
    assert len(report["cases"]["B1.separate"]["commands"]) == 8
    for name, entry in report["cases"].items():
        if name.startswith("B8"):  # an HTTP POST to hookmux serve: no process, no interpreter flags
            assert all(command.startswith("POST http://127.0.0.1:") for command in entry["commands"]), name
            continue
        assert all((" -S " in command) != (name == "B0.site") for command in entry["commands"]), name
    targets = {verdict["target"] for verdict in report["targets"]}
    assert "B1.dispatch CPU <= 0.2 x B1.separate CPU" in targets
    for payload in ("new", "plain", "seen"):  # hookmux serve (issue 15), beside B5 of the same payload
        assert f"B8.{payload} wall <= 1.0 ms" in targets
        assert f"B8.{payload} wall <= B5.{payload} wall / 10" in targets
    assert len(targets) == 17  # 14 and the danger gate's B9.plain, B9.hazard, B9.githazard
    for key in ("nproc", "cpu_model", "python_version"):
        assert report["machine"][key]


def test_bench_case_filter_keeps_the_floor(tmp_path):
    out = tmp_path / "out.json"
    result = subprocess.run(
        [sys.executable, "-m", "hookmux.cli", "bench", "--runs", "1", "--warmup", "0", "--case", "B3.pre",
         "--shell", "--json", str(out)],
        capture_output=True, text=True, env=hermetic_env(tmp_path), cwd=tmp_path, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    assert list(report["cases"]) == ["B0", "B3.pre"]
    assert report["settings"]["shell"] is True
