"""Shared test helpers: paths into this checkout and a host-like subprocess runner."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
HOOKS = REPO / "hooks"
DISPATCH = HOOKS / "_dispatch" / "dispatch.py"
GATE = HOOKS / "skill-redirect" / "skill_redirect.py"
PYTHON = sys.executable


# The dispatcher's warm pools (hooks/_dispatch/dispatch_arbiter.py) of this test session: one
# short private folder (a FIFO's path must stay short), removed at the end, which ends them.
RUNTIME_DIR = tempfile.mkdtemp(prefix="hmx-", dir="/tmp" if os.path.isdir("/tmp") else None)
# A pool of a tree copied for one test leaves soon after it.
WARM_IDLE = "5"


def hermetic_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """An environment whose HOME and state live under tmp_path (the warm pools: RUNTIME_DIR)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOOKMUX_", "CLAUDE_", "AMPLIHACK_"))}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), HOOKMUX_STATE_DIR=str(tmp_path / "state"), XDG_STATE_HOME=str(tmp_path / "xdg"),
               XDG_CONFIG_HOME=str(tmp_path / "config"),
               HOOKMUX_RUNTIME_DIR=RUNTIME_DIR, HOOKMUX_WARM_IDLE=WARM_IDLE)
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


STANDBY_LINE = "checks ran in a standby of the warm pool"


def warm_pool(env: dict[str, str], tmp_path: Path, dispatch: Path = DISPATCH, seconds: float = 20.0) -> None:
    """Start the warm pool of ``dispatch`` for ``env`` and return once a call was served by a
    standby (each try runs one harmless emitting row)."""
    import time

    root = tmp_path / "warm-pool-probe"
    (root / "probe").mkdir(parents=True, exist_ok=True)
    (root / "probe" / "check.py").write_text("def main():\n    pass\n")
    manifest = root / "manifest.json"
    manifest.write_text(json.dumps({"version": 1, "hooks_root": str(root),
                                    "events": {"PreToolUse": {"checks": [{"name": "probe", "script": "probe/check.py"}]}}}))
    payload = json.dumps({"session_id": "probe", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                          "tool_input": {"command": "true"}}).encode()
    deadline = time.monotonic() + seconds
    while True:
        result = subprocess.run([PYTHON, "-S", "-E", str(dispatch), "--manifest", str(manifest), "--trace", "PreToolUse"],
                                input=payload, capture_output=True, env=env, timeout=60)
        if STANDBY_LINE in result.stderr.decode():
            return
        assert time.monotonic() < deadline, result.stderr.decode()
        time.sleep(0.1)


# ---------------------------------------------------------------- Gemini CLI's extension records


def gemini_extension_checkout(folder: Path) -> Path:
    """``folder`` holding a copy of this checkout's Gemini extension files: gemini-extension.json, hooks/."""
    import shutil

    folder.mkdir(parents=True)
    shutil.copy(REPO / "gemini-extension.json", folder)
    shutil.copytree(HOOKS, folder / "hooks", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return folder


def gemini_extension_link(gemini_dir: Path, source: Path, overrides: list[str] | None = None) -> None:
    """What ``gemini extensions link SOURCE`` leaves in ``gemini_dir`` (``~/.gemini``; Gemini CLI 0.61.0,
    docs/e2e.md Gemini item 8): a folder named after the extension holding only its install record,
    and the enablement rule (default: user scope, the home folder and everything under it)."""
    extensions = gemini_dir / "extensions"
    (extensions / "hookmux").mkdir(parents=True)
    (extensions / "hookmux" / ".gemini-extension-install.json").write_text(
        json.dumps({"source": str(source), "type": "link"}, indent=2))
    (extensions / "extension-enablement.json").write_text(
        json.dumps({"hookmux": {"overrides": overrides or [f"{gemini_dir.parent}/*"]}}, indent=2))


def run_at_terminal(argv: list[str], typed: str, env: dict[str, str], cwd=None, stdin_text: str = "",
                    timeout: float = 60) -> tuple[int, str, str, str]:
    """Run ``argv`` as a person at a terminal would: in a new session whose controlling
    terminal is a fresh pty, ``typed`` typed at it (stdin is a pipe holding ``stdin_text``).
    Returns (exit code, stdout, stderr, what the terminal showed)."""
    import fcntl
    import select
    import termios

    master, slave = os.openpty()

    def controlling_terminal() -> None:  # after setsid (start_new_session), before close_fds
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    try:
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=env, cwd=cwd, start_new_session=True, preexec_fn=controlling_terminal)
    finally:
        os.close(slave)
    os.write(master, typed.encode())
    out, err = process.communicate(stdin_text.encode(), timeout=timeout)
    shown = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the terminal's last holder is gone and its output was read
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return process.returncode, out.decode(), err.decode(), shown.decode("utf-8", "replace")
