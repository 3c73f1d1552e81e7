"""Started on demand, answers --check, stops on --stop, leaves by itself when idle."""
from __future__ import annotations

import subprocess
import sys
import time

from serve_support import Running, install_tree
from hookmux_testing import hermetic_env


def _serve(env, target, *args):
    return subprocess.run([sys.executable, "-m", "hookmux", "serve", "--target", str(target), *args],
                          env=env, capture_output=True, text=True, timeout=60)


def test_ensure_starts_it_check_sees_it_stop_ends_it(tmp_path):
    target, env = install_tree(tmp_path), hermetic_env(tmp_path)
    assert _serve(env, target, "--check").returncode == 1
    assert _serve(env, target, "--ensure").returncode == 0
    deadline = time.monotonic() + 60
    while _serve(env, target, "--check").returncode != 0:
        assert time.monotonic() < deadline, "the server did not come up"
        time.sleep(0.2)
    record = next((tmp_path / "state" / "serve").glob("*/server.json"))
    assert _serve(env, target, "--ensure").returncode == 0  # already up: no second server
    assert "stopped" in _serve(env, target, "--stop").stdout
    assert not record.exists()
    assert _serve(env, target, "--check").returncode == 1


def test_it_exits_when_idle(tmp_path):
    running = Running(tmp_path, install_tree(tmp_path), idle_minutes=0.02)
    try:
        assert running.proc.wait(timeout=60) == 0
        assert not (running.folder / "server.json").exists()
        assert (running.folder / "secret").exists()  # the wiring still names it
    finally:
        running.stop()
