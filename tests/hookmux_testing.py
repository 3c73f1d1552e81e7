"""Shared test helpers: paths into this checkout and a host-like subprocess runner."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
HOOKS = REPO / "hooks"
DISPATCH = HOOKS / "_dispatch" / "dispatch.py"
GATE = HOOKS / "skill-redirect" / "skill_redirect.py"
PYTHON = sys.executable


def hermetic_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """An environment whose HOME and state live under tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOOKMUX_", "CLAUDE_", "AMPLIHACK_"))}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), HOOKMUX_STATE_DIR=str(tmp_path / "state"), XDG_STATE_HOME=str(tmp_path / "xdg"))
    env.update(extra)
    return env


def run_hook(script: Path, args: list[str], stdin: str | bytes, env: dict[str, str], timeout: float = 60):
    """Run a hook script the way a host does: ``<python> -S script args < stdin``."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [PYTHON, "-S", str(script), *args], input=data, capture_output=True, env=env, timeout=timeout
    )



def one_json_line(stdout: bytes) -> dict:
    lines = stdout.decode().splitlines()
    assert len(lines) == 1, stdout
    return json.loads(lines[0])
