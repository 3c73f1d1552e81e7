"""The hookmux command itself: --version, --help for a user, try without EVENT, a closed pipe."""
from __future__ import annotations

import json
import subprocess

from hookmux import __version__
from hookmux_testing import PYTHON, REPO, hermetic_env

EXAMPLE = REPO / "examples" / "pretooluse-bash-force-push.json"


def hookmux(tmp_path, *args):
    return subprocess.run([PYTHON, "-m", "hookmux.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=tmp_path, env=hermetic_env(tmp_path), timeout=120)


def test_version(tmp_path):
    result = hookmux(tmp_path, "--version")
    assert result.returncode == 0 and result.stdout == f"hookmux {__version__}\n"


def test_help_describes_the_tool_not_the_module_layout(tmp_path):
    out = hookmux(tmp_path, "--help").stdout
    assert "one module per subcommand" not in out
    assert "Claude Code" in out and "Copilot" in out and "hookmux new-check NAME" in out


def test_try_takes_the_event_from_the_payload(tmp_path):
    with_event = hookmux(tmp_path, "try", "PreToolUse", EXAMPLE)
    without = hookmux(tmp_path, "try", EXAMPLE)
    assert without.returncode == 0 and "contraindication/check  selected" in without.stdout
    # Timings differ, and so may where the checks ran (the first call starts the warm pool).
    strip = lambda text: [line for line in text.splitlines() if "ms " not in line and "checks ran in" not in line]  # noqa: E731
    assert strip(without.stdout) == strip(with_event.stdout)


def test_try_without_an_event_anywhere_says_what_to_do(tmp_path):
    payload = tmp_path / "copilot.json"
    payload.write_text(json.dumps({"toolName": "bash", "toolArgs": {"command": "ls"}}))
    result = hookmux(tmp_path, "try", payload)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "name the event: hookmux try EVENT PAYLOAD" in result.stderr


def test_try_on_a_closed_pipe_prints_no_traceback(tmp_path):
    # The reader is gone before hookmux writes a byte (as `hookmux try ... | head -1` can be).
    proc = subprocess.Popen([PYTHON, "-m", "hookmux.cli", "try", str(EXAMPLE)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=REPO, env=hermetic_env(tmp_path))
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert err == b"" and proc.returncode == 141
