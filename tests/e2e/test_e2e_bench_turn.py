"""`hookmux bench --turn claude` drives the real Claude Code (tests/e2e/install-clis.sh) in every wiring."""
from __future__ import annotations

import json
import re
import subprocess
import sys

from e2e_fixtures import claude_cli, hookmux_installer  # noqa: F401 (pytest fixtures)
from e2e_support import REPO
from hookmux_testing import hermetic_env

WIRINGS = ["bare", "install", "serve", "plugin"]


def test_turn_bench_times_every_wiring_and_writes_json(claude_cli, hookmux_installer, tmp_path):
    out = tmp_path / "turn.json"
    env = hermetic_env(tmp_path) | {"HOOKMUX_E2E_CLAUDE_BIN": str(claude_cli.path)}
    result = subprocess.run([sys.executable, "-m", "hookmux.cli", "bench", "--turn", "claude", "--runs", "2",
                             "--json", str(out)], capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(out.read_text())
    assert report["version"].startswith(claude_cli.version)
    assert list(report["wirings"]) == WIRINGS
    for name, entry in report["wirings"].items():
        assert len(entry["wall_ms"]) == len(entry["tool_ms"]) == 2, name
        assert all(wall > tool > 0 for wall, tool in zip(entry["wall_ms"], entry["tool_ms"])), name
        if name == "bare":
            assert entry["wall_over_bare_ms"] == entry["tool_over_bare_ms"] == 0
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ") and "ms" not in line]
    assert [row.split(":")[0][2:] for row in rows] == WIRINGS
    for row in rows[1:]:  # wall, over bare, tool interval, over bare: numbers, the overs signed
        assert re.fullmatch(r"\| \w+: .+ \| \d+ \| [+-]\d+ \| \d+\.\d \| [+-]\d+\.\d \|", row), row
    assert f"Claude Code {report['version']}" in result.stdout
    assert "run `python3` from PATH: " in result.stdout
