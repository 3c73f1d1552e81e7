"""Started on demand, answers --check, stops on --stop, leaves by itself when idle."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

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


def _children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open("/proc/%s/stat" % entry).read()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def _slow_manifest(target, seconds, timeout=10):
    (target / "t").mkdir(exist_ok=True)
    (target / "t" / "slow.py").write_text(
        "import json, sys, time\ndef main():\n    sys.stdin.read()\n    time.sleep(%r)\n"
        "    print(json.dumps({'additionalContext': 'slow advice'}))\n" % seconds)
    (target / "_dispatch" / "manifest.json").write_text(json.dumps(
        {"version": 1, "hooks_root": str(target),
         "events": {"PreToolUse": {"checks": [{"name": "slow", "script": "t/slow.py", "timeout": timeout, "matcher": "^Slow$"}]}}}))


SLOW = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Slow", "tool_input": {}})


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_its_workers_die_with_it(tmp_path):
    """A worker whose arbiter is gone goes too (PR_SET_PDEATHSIG), even one inside a check."""
    target = install_tree(tmp_path)
    _slow_manifest(target, 600, timeout=60)  # its alarm is a minute away
    running = Running(tmp_path, target)
    try:
        threading.Thread(target=lambda: _quietly(running.post, "PreToolUse", SLOW, timeout=30), daemon=True).start()
        deadline = time.monotonic() + 30
        while len(workers := _children(running.proc.pid)) < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)  # the request is inside its check now
        os.kill(running.proc.pid, signal.SIGKILL)
        running.proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers):
            assert time.monotonic() < deadline, [pid for pid in workers if _alive(pid)]
            time.sleep(0.05)
    finally:
        running.stop()


def test_a_request_under_way_when_it_stops_is_still_answered(tmp_path):
    """Stopping waits for the workers that run a request (they die with it, so it outlasts them)."""
    target = install_tree(tmp_path)
    _slow_manifest(target, 1.5)
    running = Running(tmp_path, target)
    replies = []
    try:
        running.post("PreToolUse", SLOW)  # the workers are up and the check imported
        thread = threading.Thread(target=lambda: replies.append(running.post("PreToolUse", SLOW, timeout=30)))
        thread.start()
        time.sleep(0.5)
        os.kill(running.proc.pid, signal.SIGTERM)
        thread.join(timeout=30)
        assert replies and replies[0][0] == 200 and b"slow advice" in replies[0][1], replies
        assert running.proc.wait(timeout=30) == 0
    finally:
        running.stop()


def _alive(pid):
    try:
        return open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _quietly(function, *args, **kwargs):
    try:
        function(*args, **kwargs)
    except Exception:
        pass
