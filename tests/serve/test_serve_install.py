"""``install --serve`` wiring: HTTP hooks for the dispatcher, command hooks for the rest, all removable."""
from __future__ import annotations

import json
import subprocess
import sys

from hookmux_testing import hermetic_env


def _hookmux(env, *args):
    proc = subprocess.run([sys.executable, "-m", "hookmux", *map(str, args)], env=env, capture_output=True,
                          text=True, timeout=120)
    return proc


def test_install_serve_round_trip(tmp_path):
    env = hermetic_env(tmp_path)
    target, settings, copilot = tmp_path / "hooks", tmp_path / "settings.json", tmp_path / "copilot"
    settings.write_text(json.dumps({"model": "x", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}))
    where = ("--target", target, "--settings", settings)
    assert _hookmux(env, "install", "--serve", *where, "--copilot-hooks-dir", copilot).returncode == 0
    hooks = json.loads(settings.read_text())["hooks"]
    http = [h for groups in hooks.values() for g in groups for h in g["hooks"] if h.get("type") == "http"]
    assert {h["url"].rsplit("/", 1)[1] for h in http} == {"PreToolUse", "UserPromptSubmit"}
    assert all(h["url"].startswith("http://127.0.0.1:") and len(h["url"].split("/")[3]) == 64 for h in http)
    assert "_serve/ensure.py" in hooks["SessionStart"][0]["hooks"][0]["command"]
    gate = [h for g in hooks["PreToolUse"] for h in g["hooks"] if h.get("type") == "command"]
    assert gate and "skill_redirect.py" in gate[0]["command"]
    copilot_hooks = json.loads((copilot / "hookmux.json").read_text())["hooks"]
    assert all(h["type"] == "command" for hs in copilot_hooks.values() for h in hs)
    status = _hookmux(env, "status", *where, "--copilot-hooks-dir", copilot)
    assert status.returncode == 0, status.stdout + status.stderr
    assert "server:    not running" in status.stdout

    # the same install without --serve turns the HTTP hooks back into command hooks, in place
    assert _hookmux(env, "install", *where).returncode == 0
    hooks = json.loads(settings.read_text())["hooks"]
    assert "http" not in json.dumps(hooks) and "SessionStart" not in hooks
    assert "dispatch.py" in hooks["PreToolUse"][0]["hooks"][0]["command"]

    assert _hookmux(env, "install", "--serve", *where).returncode == 0
    assert _hookmux(env, "uninstall", *where, "--copilot-hooks-dir", copilot).returncode == 0
    assert json.loads(settings.read_text()) == {"model": "x", "hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "mine"}]}]}}


def test_ensure_script_exits_0_silently_and_fast_when_up(tmp_path):
    env = hermetic_env(tmp_path)
    target, settings = tmp_path / "hooks", tmp_path / "settings.json"
    assert _hookmux(env, "install", "--serve", "--target", target, "--settings", settings).returncode == 0
    ensure = [sys.executable, "-S", "-E", str(target / "_serve" / "ensure.py"), "SessionStart"]
    try:
        first = subprocess.run(ensure, input=b"{}", env=env, capture_output=True, timeout=60)
        assert (first.returncode, first.stdout, first.stderr) == (0, b"", b"")
        import time

        deadline = time.monotonic() + 60
        while _hookmux(env, "serve", "--target", target, "--check").returncode != 0:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        record = next((tmp_path / "state" / "serve").glob("*/server.json")).read_text()
        again = subprocess.run(ensure, input=b"{}", env=env, capture_output=True, timeout=60)
        assert (again.returncode, again.stdout, again.stderr) == (0, b"", b"")
        assert next((tmp_path / "state" / "serve").glob("*/server.json")).read_text() == record  # not restarted
    finally:
        _hookmux(env, "serve", "--target", target, "--stop")


def test_install_serve_dry_run_writes_nothing(tmp_path):
    env = hermetic_env(tmp_path)
    target, settings = tmp_path / "hooks", tmp_path / "settings.json"
    proc = _hookmux(env, "install", "--serve", "--dry-run", "--target", target, "--settings", settings)
    assert proc.returncode == 0, proc.stderr
    assert "127.0.0.1:PORT/SECRET/PreToolUse" in proc.stdout
    assert not (tmp_path / "state").exists() and not target.exists() and not settings.exists()
