"""`hookmux bench --turn claude` without a host binary: a clear error, never a silent pass."""
from __future__ import annotations

import subprocess
import sys

from hookmux_testing import hermetic_env


def test_turn_bench_without_a_binary_names_the_path_and_the_installer(tmp_path):
    empty = tmp_path / "no-e2e"
    empty.mkdir()
    env = hermetic_env(tmp_path)
    env.pop("HOOKMUX_E2E_CLAUDE_BIN", None)
    result = subprocess.run([sys.executable, "-m", "hookmux.cli", "bench", "--turn", "claude", "--e2e", str(empty)],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout == ""
    assert f"no Claude Code binary at {empty}/node_modules/@anthropic-ai/claude-code-" in result.stderr
    assert "bash tests/e2e/install-clis.sh" in result.stderr
