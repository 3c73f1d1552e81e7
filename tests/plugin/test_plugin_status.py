"""``hookmux status`` with the plugin on: the other way of installing, and the manifest layers."""
from __future__ import annotations

import json
import subprocess
import sys

from hookmux_testing import hermetic_env


def status(env, cwd, *args):
    proc = subprocess.run([sys.executable, "-m", "hookmux.cli", "status", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    return proc


def plugin_on(home):
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text()) if settings.exists() else {}
    data["enabledPlugins"] = {"hookmux@hookmux": True}
    settings.write_text(json.dumps(data))


def test_the_plugin_alone_is_a_healthy_install(tmp_path):
    env = hermetic_env(tmp_path)
    plugin_on(tmp_path / "home")
    proc = status(env, tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert "plugin:    hookmux@hookmux on for claude" in proc.stdout
    report = json.loads(status(env, tmp_path, "--json").stdout)
    assert report["problems"] == [] and report["plugin"][0]["host"] == "claude"


def test_both_ways_on_one_host_is_a_problem_naming_the_switch(tmp_path):
    env = hermetic_env(tmp_path)
    install = subprocess.run([sys.executable, "-m", "hookmux.cli", "install"], capture_output=True, text=True,
                             env=env, cwd=tmp_path, timeout=120)
    assert install.returncode == 0, install.stderr
    plugin_on(tmp_path / "home")
    proc = status(env, tmp_path)
    assert proc.returncode == 1
    assert "hookmux runs twice on claude" in proc.stdout and "claude plugin uninstall hookmux@hookmux" in proc.stdout


def test_status_lists_the_user_layer_rows_and_reports_a_clash_and_a_missing_script(tmp_path):
    env = hermetic_env(tmp_path)
    plugin_on(tmp_path / "home")
    layer = tmp_path / "config" / "hookmux"
    (layer / "checks").mkdir(parents=True)
    (layer / "checks" / "mine.py").write_text("def main():\n    pass\n")
    (layer / "manifest.json").write_text(json.dumps({"disabled": ["calibrated-silence/reactions"], "events": {
        "PreToolUse": {"checks": [{"name": "mine", "script": "checks/mine.py"},
                                  {"name": "contraindication/check", "script": "checks/mine.py"},
                                  {"name": "gone", "script": "checks/gone.py"}]}}}))
    proc = status(env, tmp_path)
    assert proc.returncode == 1
    assert f"layer:     {layer / 'manifest.json'}" in proc.stdout
    assert "PreToolUse 'mine' (" in proc.stdout and "): ok" in proc.stdout
    assert "'calibrated-silence/reactions' (shipped): turned off by" in proc.stdout
    assert "never replaces one" in proc.stdout and "gone.py: no such file" in proc.stdout


def test_validate_reports_a_layer_clash_as_an_error(tmp_path):
    env = hermetic_env(tmp_path)
    layer = tmp_path / "config" / "hookmux"
    layer.mkdir(parents=True)
    (layer / "manifest.json").write_text(json.dumps({"events": {"PreToolUse": {"checks": [
        {"name": "contraindication/check", "script": "x.py"}]}}}))
    run = lambda *a: subprocess.run([sys.executable, "-m", "hookmux.cli", "validate", *a], capture_output=True,  # noqa: E731
                                    text=True, env=env, cwd=tmp_path, timeout=120)
    proc = run()
    assert proc.returncode == 1 and "never replaces one" in proc.stdout and f"layer: {layer / 'manifest.json'}" in proc.stdout
    assert run("--no-layers").returncode == 0


def install(env, cwd, *args):
    return subprocess.run([sys.executable, "-m", "hookmux.cli", "install", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def test_install_refuses_to_wire_a_host_the_plugin_is_on_for_and_writes_nothing(tmp_path):
    env = hermetic_env(tmp_path)
    home = tmp_path / "home"
    plugin_on(home)
    before = (home / ".claude" / "settings.json").read_bytes()
    proc = install(env, tmp_path)
    assert proc.returncode == 1
    assert "would run every hook twice" in proc.stderr and "`claude plugin uninstall hookmux@hookmux`" in proc.stderr
    assert "nothing was changed" in proc.stderr
    assert (home / ".claude" / "settings.json").read_bytes() == before
    assert not (home / ".claude" / "hooks").exists()


def test_install_wires_a_host_the_plugin_is_not_on_for(tmp_path):
    env = hermetic_env(tmp_path)
    home = tmp_path / "home"
    (home / ".copilot").mkdir(parents=True)
    (home / ".copilot" / "settings.json").write_text(json.dumps({"enabledPlugins": {"hookmux@hookmux": True}}))
    assert install(env, tmp_path).returncode == 0  # Claude Code only: the plugin is on for Copilot
    proc = install(env, tmp_path, "--copilot-hooks-dir", str(home / ".copilot" / "hooks"))
    assert proc.returncode == 1 and "on for copilot" in proc.stderr
    assert not (home / ".copilot" / "hooks").exists()


def test_a_project_that_pins_the_plugin_refuses_a_project_settings_install(tmp_path):
    env = hermetic_env(tmp_path)
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"hookmux@hookmux": True}}))
    proc = install(env, project, "--settings", str(project / ".claude" / "settings.json"))
    assert proc.returncode == 1 and str(project / ".claude" / "settings.json") in proc.stderr


def test_adopt_with_only_the_plugin_plans_against_the_user_layer(tmp_path):
    env = hermetic_env(tmp_path)
    home = tmp_path / "home"
    plugin_on(home)
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"] = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 /x/mine.py"}]}]}
    settings.write_text(json.dumps(data))
    before = settings.read_bytes()
    proc = subprocess.run([sys.executable, "-m", "hookmux.cli", "adopt", "--apply"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr  # tests/adopt/test_adopt_user_layer.py adopts one that exists
    assert f"manifest {tmp_path / 'config' / 'hookmux' / 'manifest.json'}" in proc.stdout
    assert "not adoptable: /x/mine.py: no such file" in proc.stdout and "nothing to adopt" in proc.stdout
    assert settings.read_bytes() == before and not (tmp_path / "config" / "hookmux").exists()


def test_a_layer_row_may_name_a_script_by_absolute_path(tmp_path):
    import sys as _sys

    from hookmux_testing import HOOKS
    _sys.path.insert(0, str(HOOKS))
    from _common import layers, manifest

    merged = layers.merge(manifest.from_data({"hooks_root": "/t", "events": {}}),
                          [(str(tmp_path / "m.json"), {"events": {"Stop": {"checks": [
                              {"name": "mine", "script": "/home/u/hooks/mine.py"}]}}})])
    assert merged.rows("Stop")[0].path == "/home/u/hooks/mine.py"
