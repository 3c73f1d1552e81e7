"""``hookmux new-check`` into the user layer: explicit, or by default when hookmux runs as a plugin."""
from __future__ import annotations

import json
import subprocess
import sys

from hookmux_testing import DISPATCH, HOOKS, hermetic_env, one_json_line, run_hook


def new_check(env, cwd, *args):
    return subprocess.run([sys.executable, "-m", "hookmux.cli", "new-check", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def test_with_the_plugin_on_a_new_check_goes_to_the_user_layer_and_runs(tmp_path):
    env = hermetic_env(tmp_path)
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"hookmux@hookmux": True}}))
    proc = new_check(env, tmp_path, "mine", "--matcher", "^Bash$")
    assert proc.returncode == 0, proc.stderr
    layer = tmp_path / "config" / "hookmux"
    assert json.loads((layer / "manifest.json").read_text()) == {"version": 1, "events": {"PreToolUse": {"checks": [
        {"name": "mine", "script": "mine/check.py", "timeout": 5, "side_effect": "none", "matcher": "^Bash$"}]}}}
    assert (layer / "mine" / "check.py").is_file() and (layer / "mine" / "test_check.py").is_file()
    assert "does not start the dispatcher" not in proc.stdout  # Bash on PreToolUse: the plugin reaches it
    assert not (tmp_path / "home" / ".claude" / "hooks").exists()

    # The generated test passes as written.
    test = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(layer / "mine" / "test_check.py")], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)
    assert test.returncode == 0, test.stdout

    # The generated check, made to speak, runs from the layer through the dispatcher.
    check = layer / "mine" / "check.py"
    check.write_text(check.read_text().replace('return ""', 'return "mine says hi"', 1))
    payload = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/",
                          "tool_input": {"command": "ls"}})
    out = run_hook(DISPATCH, ["--hooks-root", str(HOOKS), "PreToolUse"], payload, env)
    assert one_json_line(out.stdout)["hookSpecificOutput"]["additionalContext"] == "mine says hi"



def test_user_layer_notes_rows_the_plugin_does_not_reach_and_refuses_a_name_twice(tmp_path):
    env = hermetic_env(tmp_path)
    proc = new_check(env, tmp_path, "Read-notes", "--matcher", "^Read$", "--user-layer")
    assert proc.returncode == 0, proc.stderr
    assert "does not start the dispatcher" in proc.stdout
    layer = json.loads((tmp_path / "config" / "hookmux" / "manifest.json").read_text())
    assert [row["name"] for row in layer["events"]["PreToolUse"]["checks"]] == ["Read-notes"]
    again = new_check(env, tmp_path, "Read-notes", "--user-layer")
    assert again.returncode == 1 and "nothing was written" in again.stderr


def test_without_the_plugin_new_check_still_wants_an_install(tmp_path):
    proc = new_check(hermetic_env(tmp_path), tmp_path, "mine")
    assert proc.returncode == 1 and "run hookmux install first" in proc.stderr
