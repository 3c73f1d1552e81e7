"""hookmux install/uninstall against a realistic Claude Code settings file."""
from __future__ import annotations

import json
import os

import pytest

from install_helpers import USER_SETTINGS, Home, snapshot, without_hookmux


@pytest.fixture
def h(tmp_path):
    return Home(tmp_path)


def test_install_keeps_every_user_setting_and_adds_one_group_per_event(h):
    original = h.write_settings()
    h.install()
    before = json.loads(original)
    after = json.loads(h.settings.read_bytes())

    assert without_hookmux(after) == before
    assert list(after) == list(before)  # top-level order kept
    assert after["hooks"]["PreToolUse"][0] == before["hooks"]["PreToolUse"][0]  # the user's group stays first
    assert after["hooks"]["Stop"][0] == before["hooks"]["Stop"][0]

    target = str(h.target)
    pre = after["hooks"]["PreToolUse"]
    dispatch = [g for g in pre if "_dispatch/dispatch.py" in g["hooks"][0]["command"]]
    gate = [g for g in pre if "skill_redirect.py" in g["hooks"][0]["command"]]
    assert len(dispatch) == 1 and dispatch[0]["matcher"] == "*" and dispatch[0]["hooks"][0]["timeout"] == 10
    assert dispatch[0]["hooks"][0]["command"].endswith(f"{target}/_dispatch/dispatch.py PreToolUse || true")
    assert len(gate) == 1 and gate[0]["matcher"] == "skill|Agent"  # Copilot's loader of this file: "skill"/"Agent"
    assert gate[0]["hooks"][0]["command"].endswith(f"{target}/skill-redirect/skill_redirect.py PreToolUse || true")
    stop = after["hooks"]["Stop"][1]
    assert "matcher" not in stop and stop["hooks"][0]["command"].endswith("dispatch.py Stop || true")
    batch = after["hooks"]["PostToolBatch"]
    assert len(batch) == 1 and batch[0]["hooks"][0]["command"].endswith("skill_redirect.py PostToolBatch || true")
    python = dispatch[0]["hooks"][0]["command"].split(" -S ")[0]
    assert os.path.isabs(python) and os.access(python, os.X_OK)


def test_a_second_install_leaves_every_file_byte_identical(h):
    h.write_settings()
    h.install("--copilot-hooks-dir", str(h.copilot_dir))
    first = snapshot(h.home)
    h.install("--copilot-hooks-dir", str(h.copilot_dir))
    assert snapshot(h.home) == first  # content, modes and mtimes: nothing was rewritten


def test_backup_before_the_first_change_only(h):
    original = h.write_settings()
    h.install()
    backups = sorted(h.claude.glob("settings.json.hookmux-backup-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == original
    h.hookmux("install", "--target", str(h.target), "--settings", str(h.settings), "--source", str(h.source),
              "--python", "/bin/sh", check=True)  # changes the commands: not a first change
    assert sorted(h.claude.glob("settings.json.hookmux-backup-*")) == backups


def test_uninstall_returns_the_original_bytes_and_removes_the_tree(h):
    original = h.write_settings()
    (h.target).mkdir(parents=True)
    (h.target / "my_guard.py").write_text("print('mine')\n")
    h.install()
    cache = h.target / "skill-redirect" / "__pycache__"
    cache.mkdir(exist_ok=True)
    (cache / "skill_scan.cpython-311.pyc").write_bytes(b"bytecode the hooks wrote")
    h.uninstall()
    assert h.settings.read_bytes() == original
    assert sorted(p.name for p in h.target.iterdir()) == ["my_guard.py"]
    assert (h.target / "my_guard.py").read_text() == "print('mine')\n"


def test_uninstall_keeps_edits_the_user_made_after_install(h):
    h.write_settings()
    h.install()
    data = json.loads(h.settings.read_text())
    data["permissions"]["allow"].append("Bash(make test)")
    data["hooks"]["PreToolUse"].insert(0, {"matcher": "Edit", "hooks": [{"type": "command", "command": "lint"}]})
    h.settings.write_text(json.dumps(data, indent=2))
    h.uninstall()
    after = json.loads(h.settings.read_text())
    assert after == without_hookmux(data)
    assert "Bash(make test)" in after["permissions"]["allow"]
    assert after["hooks"]["PreToolUse"][0]["matcher"] == "Edit"
    assert "PostToolBatch" not in after["hooks"]


def test_reinstall_replaces_entries_in_place_and_keeps_user_hooks_in_a_shared_group(h):
    h.write_settings()
    h.install()
    data = json.loads(h.settings.read_text())
    pre = data["hooks"]["PreToolUse"]
    gate_group = next(g for g in pre if g.get("matcher") == "skill|Agent")
    pre.remove(gate_group)
    pre.insert(0, gate_group)  # the user moved the gate group first
    gate_group["hooks"].append({"type": "command", "command": "echo my-skill-audit"})  # and shares it
    h.settings.write_text(json.dumps(data, indent=2) + "\n")

    h.hookmux("install", "--target", str(h.target), "--settings", str(h.settings), "--source", str(h.source),
              "--python", "/bin/sh", check=True)
    again = json.loads(h.settings.read_text())
    first = again["hooks"]["PreToolUse"][0]
    assert first["matcher"] == "skill|Agent"
    assert first["hooks"][0]["command"].startswith("/bin/sh -S ")  # replaced in place
    assert first["hooks"][1] == {"type": "command", "command": "echo my-skill-audit"}
    commands = [h_["command"] for g in again["hooks"]["PreToolUse"] for h_ in g["hooks"]]
    assert sum("skill_redirect.py" in c for c in commands) == 1
    assert sum("dispatch.py" in c for c in commands) == 1

    h.uninstall()
    final = json.loads(h.settings.read_text())
    assert final["hooks"]["PreToolUse"][0] == {"matcher": "skill|Agent", "hooks": [
        {"type": "command", "command": "echo my-skill-audit"}]}
    assert not any(" -S " in h_["command"] for g in final["hooks"]["PreToolUse"] for h_ in g["hooks"])


def test_duplicated_hookmux_entries_collapse_to_one(h):
    h.write_settings()
    h.install()
    data = json.loads(h.settings.read_text())
    dispatch = next(g for g in data["hooks"]["PreToolUse"] if "dispatch.py" in g["hooks"][0]["command"])
    data["hooks"]["PreToolUse"].append(json.loads(json.dumps(dispatch)))
    h.settings.write_text(json.dumps(data, indent=2) + "\n")
    h.install()
    again = json.loads(h.settings.read_text())
    assert sum("dispatch.py" in g["hooks"][0]["command"] for g in again["hooks"]["PreToolUse"]) == 1


def test_a_user_command_running_the_same_script_in_another_shape_is_kept_until_uninstall(h):
    """Install leaves a user's own command alone; uninstall, which deletes the script it runs,
    removes it too and says so (issue 20.3: never leave an entry running a deleted file)."""
    mine = f"python3 {h.target}/_dispatch/dispatch.py PreToolUse"
    h.write_settings(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": mine}]}]}}, indent=2))
    h.install()
    commands = [hook["command"] for group in json.loads(h.settings.read_text())["hooks"]["PreToolUse"]
                for hook in group["hooks"]]
    assert commands[0] == mine and len(commands) == 4  # the user's, hookmux's dispatcher, gate and danger gate
    result = h.uninstall()
    assert "dispatch.py" not in h.settings.read_text()
    assert f"{h.settings}: removed a PreToolUse entry that runs {h.target}/_dispatch/dispatch.py" in result.stderr


def test_missing_settings_file_is_created_and_removed_again(h):
    h.install()
    data = json.loads(h.settings.read_text())
    assert set(data) == {"hooks"}
    assert not list(h.claude.glob("*.hookmux-backup-*"))  # nothing to back up
    h.uninstall()
    assert not h.settings.exists()
    assert not h.target.exists()


def test_empty_hooks_object_the_user_had_survives_uninstall(h):
    original = h.write_settings('{\n    "hooks": {},\n    "model": "opus"\n}\n')
    h.install()
    assert '\n    "hooks": {' in h.settings.read_text()  # the file's 4-space indent is kept
    (h.claude / next(h.claude.glob("settings.json.hookmux-backup-*")).name).unlink()  # no byte-exact shortcut
    h.uninstall()
    assert json.loads(h.settings.read_bytes()) == json.loads(original)
    assert h.settings.read_bytes() == original


@pytest.mark.parametrize("text,where", [
    ('{\n  "model": "opus",\n  "hooks": {\n    "Stop": [}\n  }\n}\n', ":4:"),
    ('{\n  "model": "opus"\n  "env": {}\n}\n', ":3:"),
    ('[1, 2]\n', ":1:"),
    ('{"a": 1, "a": 2}\n', "duplicate key"),
    ('{"hooks": []}\n', '"hooks" is not an object'),
    ('{"hooks": {"PreToolUse": {"matcher": "*"}}}\n', '"hooks.PreToolUse" is not a list'),
])
def test_malformed_settings_are_refused_and_nothing_is_touched(h, text, where):
    h.write_settings(text)
    before = snapshot(h.root)
    result = h.install(check=False)
    assert result.returncode == 1
    assert str(h.settings) in result.stderr and where in result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(h.root) == before
    assert not h.target.exists()


def test_invalid_utf8_is_refused(h):
    h.settings.parent.mkdir(parents=True)
    h.settings.write_bytes(b'{\n  "model": "\xff"\n}\n')
    result = h.install(check=False)
    assert result.returncode == 1 and f"{h.settings}:2: not valid UTF-8" in result.stderr
    assert not h.target.exists()


def test_dry_run_writes_nothing_and_prints_the_diff(h):
    h.write_settings()
    before = snapshot(h.root)
    result = h.install("--dry-run", "--copilot-hooks-dir", str(h.copilot_dir))
    assert snapshot(h.root) == before
    out = result.stdout
    assert f"--- {h.settings}\n+++ {h.settings}\n" in out
    assert f"+++ {h.copilot_dir / 'hookmux.json'}" in out
    assert any(line.startswith("+") and "skill_redirect.py PostToolBatch" in line for line in out.splitlines())
    assert f"write  {h.target / '_dispatch' / 'dispatch.py'}" in out


def test_uninstall_dry_run_writes_nothing(h):
    h.write_settings()
    h.install()
    before = snapshot(h.root)
    result = h.uninstall("--dry-run")
    assert snapshot(h.root) == before
    assert f"delete {h.target / '_dispatch' / 'dispatch.py'}" in result.stdout
    assert any(line.startswith("-") and "dispatch.py PreToolUse" in line for line in result.stdout.splitlines())


def test_symlinked_settings_are_written_through_to_their_target(h):
    dotfiles = h.root / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_text(USER_SETTINGS)
    original = real.read_bytes()
    os.chmod(real, 0o640)
    h.claude.mkdir(parents=True)
    h.settings.symlink_to(real)
    h.install()
    assert h.settings.is_symlink() and os.readlink(h.settings) == str(real)
    assert "skill_redirect.py" in real.read_text()
    assert oct(os.stat(real).st_mode & 0o777) == oct(0o640)
    assert sorted(p.name for p in dotfiles.iterdir()) == ["claude-settings.json"]  # no temp files left
    h.uninstall()
    assert h.settings.is_symlink() and real.read_bytes() == original


def test_file_mode_is_kept(h):
    h.write_settings()
    os.chmod(h.settings, 0o600)
    h.install()
    assert oct(os.stat(h.settings).st_mode & 0o777) == oct(0o600)
