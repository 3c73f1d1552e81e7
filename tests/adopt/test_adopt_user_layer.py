"""``hookmux adopt`` with only the plugin on: the user's hooks become rows of the user layer, the
plugin's dispatcher runs them, and ``--undo`` puts the settings back byte for byte."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

from adopt_helpers import ADVISE_GIT
from hookmux_testing import DISPATCH, HOOKS, hermetic_env


def adopt(env, cwd, *args):
    return subprocess.run([sys.executable, "-m", "hookmux.cli", "adopt", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def plugin_dispatch(env, payload):
    """The dispatcher as the plugin's hooks/hooks.json runs it (with this checkout as the plugin root)."""
    return subprocess.run(["python3", "-S", "-E", str(DISPATCH), "--hooks-root", str(HOOKS), "PreToolUse"],
                          input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=60)


def user_with_plugin(tmp_path):
    env = hermetic_env(tmp_path)
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    script = tmp_path / "mine" / "advise_git.py"
    script.parent.mkdir()
    script.write_text(ADVISE_GIT)
    settings = home / ".claude" / "settings.json"
    settings.write_text(json.dumps({
        "enabledPlugins": {"hookmux@hookmux": True},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": f"python3 {script}"}]},
                           {"matcher": "Edit", "hooks": [{"type": "command", "command": f"python3 {script}"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": f"python3 {script}"}]}],
        },
        "model": "x",
    }, indent=4) + "\n")
    return env, settings, script, tmp_path / "config" / "hookmux"


GIT = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push"},
       "session_id": "s1", "cwd": "/tmp"}


def test_apply_moves_the_hook_into_the_user_layer_and_undo_puts_it_back(tmp_path):
    env, settings, script, config = user_with_plugin(tmp_path)
    before = settings.read_bytes()
    assert "ADVICE-GIT" not in plugin_dispatch(env, GIT).stdout

    report = adopt(env, tmp_path)
    assert report.returncode == 0, report.stderr
    assert "adoptable -> row adopted/advise_git on PreToolUse" in report.stdout
    assert settings.read_bytes() == before and not config.exists()

    proc = adopt(env, tmp_path, "--apply")
    assert proc.returncode == 0, proc.stderr
    layer = json.loads((config / "manifest.json").read_text())
    rows = layer["events"]["PreToolUse"]["checks"]
    assert [(r["name"], r["script"], r["matcher"]) for r in rows] == [("adopted/advise_git", str(script), "^(?:Bash)$")]
    assert "settings_matcher" not in layer["events"]["PreToolUse"], "the plugin's hooks.json wires the events"
    assert os.path.isabs(rows[0]["script"]) and rows[0]["timeout"] < 10
    record = config / "adopted.json"
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    hooks = json.loads(settings.read_text())["hooks"]
    assert [g["matcher"] for g in hooks["PreToolUse"]] == ["Edit"] and "Stop" in hooks

    out = plugin_dispatch(env, GIT)
    assert out.returncode == 0 and "ADVICE-GIT: pull first" in out.stdout, (out.stdout, out.stderr)

    again = adopt(env, tmp_path, "--apply")
    assert again.returncode == 1 and "already adopted" in again.stderr

    undo = adopt(env, tmp_path, "--undo")
    assert undo.returncode == 0, undo.stderr
    assert settings.read_bytes() == before
    assert not (config / "manifest.json").exists() and not record.exists()
    assert "ADVICE-GIT" not in plugin_dispatch(env, GIT).stdout
    assert not list(settings.parent.glob("settings.json.*")), "the backup is removed with the undo"


def test_hooks_the_plugin_does_not_dispatch_stay_and_say_why(tmp_path):
    env, settings, _script, config = user_with_plugin(tmp_path)
    proc = adopt(env, tmp_path, "--json")
    assert proc.returncode == 0, proc.stderr
    kinds = {(e["event"], e["kind"]): e["reason"] for e in json.loads(proc.stdout)["entries"]}
    assert "Edit" in kinds[("PreToolUse", "not adoptable")] and "plugin" in kinds[("PreToolUse", "not adoptable")]
    assert "not on Stop" in kinds[("Stop", "not adoptable")]
    text = adopt(env, tmp_path).stdout
    assert "not adoptable: the plugin runs the dispatcher on" in text


def test_an_existing_user_layer_keeps_its_rows_through_apply_and_undo(tmp_path):
    env, settings, script, config = user_with_plugin(tmp_path)
    config.mkdir(parents=True)
    mine = config / "checks" / "note.py"
    mine.parent.mkdir()
    mine.write_text("def check(payload):\n    return None\n")
    original = json.dumps({"version": 1, "events": {"UserPromptSubmit": {"checks": [
        {"name": "note", "script": "checks/note.py", "timeout": 2, "side_effect": "none"}]}}}, indent=2) + "\n"
    (config / "manifest.json").write_text(original)
    assert adopt(env, tmp_path, "--apply").returncode == 0
    layer = json.loads((config / "manifest.json").read_text())
    assert layer["events"]["UserPromptSubmit"]["checks"][0]["name"] == "note"
    assert layer["events"]["PreToolUse"]["checks"][0]["name"] == "adopted/advise_git"
    assert adopt(env, tmp_path, "--undo").returncode == 0
    assert (config / "manifest.json").read_text() == original
    assert sorted(p.name for p in config.iterdir()) == ["checks", "manifest.json"], "backups and record removed"


def test_a_user_layer_the_rows_cannot_join_is_left_as_it_was(tmp_path):
    env, settings, _script, config = user_with_plugin(tmp_path)
    config.mkdir(parents=True)
    broken = json.dumps({"version": 1, "events": {"PreToolUse": {"checks": [{"name": "x", "script": "missing.py"}]}}})
    (config / "manifest.json").write_text(broken)
    before = settings.read_bytes()
    proc = adopt(env, tmp_path, "--apply")
    assert proc.returncode == 1 and "invalid" in proc.stderr and "nothing was changed" in proc.stderr
    assert settings.read_bytes() == before and (config / "manifest.json").read_text() == broken
    assert not (config / "adopted.json").exists()


def test_undo_after_the_settings_changed_keeps_the_change_and_puts_the_entry_back(tmp_path):
    env, settings, script, config = user_with_plugin(tmp_path)
    assert adopt(env, tmp_path, "--apply").returncode == 0
    data = json.loads(settings.read_text())
    data["theme"] = "dark"
    settings.write_text(json.dumps(data, indent=4) + "\n")
    undo = adopt(env, tmp_path, "--undo")
    assert undo.returncode == 0, undo.stderr
    assert "changed since adopt" in undo.stderr
    after = json.loads(settings.read_text())
    assert after["theme"] == "dark"
    assert after["hooks"]["PreToolUse"][0] == {"matcher": "Bash", "hooks": [{"type": "command",
                                                                             "command": f"python3 {script}"}]}
    assert not (config / "adopted.json").exists()
