"""The installed hooks tree: what is copied, the user's other files, .legacy, rollback, status."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from install_helpers import Home, make_source, snapshot


@pytest.fixture
def h(tmp_path):
    h = Home(tmp_path)
    h.write_settings()
    return h


def _tree_files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_the_tree_is_copied_without_bytecode_and_the_manifest_points_at_the_target(h):
    (h.source / "skill-redirect" / "__pycache__").mkdir(exist_ok=True)
    (h.source / "skill-redirect" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"junk")
    h.install()
    installed = [f for f in _tree_files(h.target) if "__pycache__" not in f]
    shipped = _tree_files(h.source)
    assert installed == sorted([f for f in shipped if "__pycache__" not in f and f != "hooks.json"]  # plugin-only
                               + [".hookmux-installed.json"])
    assert not (h.target / "skill-redirect" / "__pycache__" / "x.cpython-311.pyc").exists()
    manifest = json.loads((h.target / "_dispatch" / "manifest.json").read_text())
    assert manifest["hooks_root"] == str(h.target)
    record = json.loads((h.target / ".hookmux-installed.json").read_text())
    assert set(record["files"]) == {f for f in installed if f != ".hookmux-installed.json"}


def test_a_foreign_file_is_kept_as_legacy_and_restored_by_uninstall(h):
    mine = h.target / "_common" / "state.py"
    mine.parent.mkdir(parents=True)
    mine.write_text("# the user's own helper\n")
    other = h.target / "notify.sh"
    other.write_text("#!/bin/sh\n")
    h.install()
    assert (h.target / "_common" / "state.py.legacy").read_text() == "# the user's own helper\n"
    assert mine.read_bytes() == (h.source / "_common" / "state.py").read_bytes()
    assert other.read_text() == "#!/bin/sh\n"
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert "_common/state.py.legacy" in status.stdout
    h.uninstall()
    assert mine.read_text() == "# the user's own helper\n"
    assert not (h.target / "_common" / "state.py.legacy").exists()
    assert sorted(_tree_files(h.target)) == ["_common/state.py", "notify.sh"]


def test_an_existing_legacy_file_makes_install_refuse(h):
    (h.target / "_common").mkdir(parents=True)
    (h.target / "_common" / "state.py").write_text("mine\n")
    (h.target / "_common" / "state.py.legacy").write_text("older\n")
    before = snapshot(h.root)
    result = h.install(check=False)
    assert result.returncode == 1 and "state.py.legacy already exists" in result.stderr
    assert snapshot(h.root) == before


def test_an_installed_file_the_user_edited_is_backed_up_on_reinstall_and_kept_on_uninstall(h):
    # (the live manifest is merged row by row instead: tests/authoring/test_authoring_manifest_merge.py)
    h.install()
    edited = h.target / "sample" / "check.py"
    edited.write_text(edited.read_text().replace("sample saw", "sample SAW"))
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 1 and "modified: sample/check.py" in status.stdout
    h.install()
    backups = list(edited.parent.glob("check.py.hookmux-backup-*"))
    assert len(backups) == 1 and "sample SAW" in backups[0].read_text()
    assert "sample saw" in edited.read_text()
    edited.write_text(edited.read_text().replace("sample saw", "sample Saw"))
    h.uninstall()
    assert "sample Saw" in edited.read_text()  # the user's edit is not deleted


def test_validation_failure_after_copy_rolls_everything_back(tmp_path):
    h = Home(tmp_path)
    h.write_settings()
    (h.target).mkdir(parents=True)
    (h.target / "_dispatch").mkdir()
    (h.target / "_dispatch" / "dispatch.py").write_text("# an older dispatcher of the user's\n")

    def too_slow(manifest):
        manifest["events"]["Stop"]["settings_timeout"] = 5  # a row's timeout 8 is above it

    (tmp_path / "bad").mkdir()
    bad = make_source(tmp_path / "bad", too_slow)
    before = snapshot(h.root)
    result = h.hookmux("install", "--target", str(h.target), "--settings", str(h.settings),
                       "--source", str(bad), "--copilot-hooks-dir", str(h.copilot_dir))
    assert result.returncode == 1
    assert "events.Stop.checks[0](name=" in result.stderr and ").timeout: " in result.stderr and "nothing was changed" in result.stderr
    after = snapshot(h.root)
    after.pop("state", None), after.pop("state/install.lock", None)
    assert after == before


def test_status_reports_what_is_installed_and_what_is_broken(h):
    result = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert result.returncode == 1 and "installed: no" in result.stdout
    h.install("--copilot-hooks-dir", str(h.copilot_dir))
    result = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings), "--json")
    assert result.returncode == 0, result.stdout
    report = json.loads(result.stdout)
    assert report["installed"] and report["python_ok"] and report["problems"] == []
    assert report["files"]["modified"] == [] and report["files"]["outdated"] == []
    wired = {w["file"]: w for w in report["wired"]}
    assert {(e["event"], e["role"]) for e in wired[str(h.settings)]["entries"]} == {
        ("PreToolUse", "dispatch"), ("PreToolUse", "gate"), ("Stop", "dispatch"), ("PostToolBatch", "gate")}
    assert {(e["event"], e["role"]) for e in wired[str(h.copilot_dir / "hookmux.json")]["entries"]} == {
        ("preToolUse", "dispatch"), ("preToolUse", "gate"), ("agentStop", "dispatch")}

    (h.target / "skill-redirect" / "skill_redirect.py").unlink()
    (h.source / "_common" / "state.py").write_text("# a newer package\n")
    result = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert result.returncode == 1
    assert "missing: skill-redirect/skill_redirect.py" in result.stdout
    assert "outdated: _common/state.py" in result.stdout
    assert "SCRIPT MISSING" in result.stdout


def test_status_flags_a_missing_interpreter(h, tmp_path):
    fake = tmp_path / "py" / "python3"
    fake.parent.mkdir()
    os.symlink(os.path.realpath(os.sys.executable), fake)
    h.install("--python", str(fake))
    fake.unlink()
    result = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert result.returncode == 1 and "PYTHON MISSING" in result.stdout


def test_agents_dir_regenerates_the_installed_registry(h, tmp_path):
    agents = tmp_path / "agents"
    (agents / "team").mkdir(parents=True)
    (agents / "team" / "house-style-editor.md").write_text("---\nname: house-style-editor\n---\n")
    h.install("--agents-dir", str(agents))
    registry = (h.target / "skill-redirect" / "known_agents.py").read_text()
    assert "house-style-editor" in registry  # the shipped registry is empty (issue 11)
    assert "house-style-editor" not in (h.source / "skill-redirect" / "known_agents.py").read_text()
    result = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert result.returncode == 0, result.stdout


def test_installing_into_the_source_tree_is_refused(h):
    before = snapshot(h.root)
    result = h.hookmux("install", "--target", str(h.source), "--settings", str(h.settings),
                       "--source", str(h.source))
    assert result.returncode == 1 and "inside the hooks tree" in result.stderr
    assert snapshot(h.root) == before


def test_two_targets_wired_into_one_settings_file_are_reported_and_kept_apart(h):
    other = h.home / "other-hooks"
    h.install()
    result = h.hookmux("install", "--target", str(other), "--settings", str(h.settings),
                       "--source", str(h.source), check=True)
    assert f"also runs hookmux installed in {h.target}" in result.stderr
    status = h.hookmux("status", "--target", str(other), "--settings", str(h.settings))
    assert "OTHER TARGET" in status.stdout
    h.hookmux("uninstall", "--target", str(other), "--settings", str(h.settings), check=True)
    data = json.loads(h.settings.read_text())
    commands = [hook["command"] for groups in data["hooks"].values() for g in groups for hook in g["hooks"]]
    assert any(str(h.target) in c for c in commands) and not any(str(other) in c for c in commands)
    assert not other.exists()


@pytest.mark.parametrize("flag,value,message", [
    ("--python", "/nonexistent/python3", "no such file"),
    ("--agents-dir", "/nonexistent/agents", "not a folder"),
    ("--source", "/nonexistent/tree", "not a hooks tree"),
])
def test_bad_flags_are_refused_before_anything_happens(h, flag, value, message):
    before = snapshot(h.root)
    args = ["install", "--target", str(h.target), "--settings", str(h.settings), flag, value]
    if flag != "--source":
        args += ["--source", str(h.source)]
    result = h.hookmux(*args)
    assert result.returncode == 1 and message in result.stderr and "Traceback" not in result.stderr
    assert snapshot(h.root) == before


def test_installed_modules_are_byte_compiled_with_the_wired_interpreter(h):
    """Hooks import them on every call; PYTHONDONTWRITEBYTECODE must not make each call recompile."""
    h.install()
    import sys
    tag = sys.implementation.cache_tag
    for module in ("_dispatch/dispatch_core.py", "skill-redirect/redirect_core.py"):
        path = h.target / module
        assert path.is_file(), module
        assert (path.parent / "__pycache__" / f"{path.stem}.{tag}.pyc").is_file(), module


def test_status_shows_the_warm_pool_of_the_installed_dispatcher(h):
    h.install()
    result = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert "warm pool: not running" in result.stdout, result.stdout
    payload = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                          "tool_input": {"command": "ls"}}).encode()
    dispatch = [sys.executable, "-S", "-E", str(h.target / "_dispatch" / "dispatch.py"), "--trace", "PreToolUse"]
    for _ in range(100):  # the first selected call starts the pool
        call = subprocess.run(dispatch, input=payload, capture_output=True, env=h.env, timeout=60)
        if b"checks ran in a standby of the warm pool" in call.stderr:
            break
        time.sleep(0.1)
    else:
        raise AssertionError(call.stderr)
    time.sleep(1.5)  # the manager writes what it served each time one of its standbys is reaped
    result = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert re.search(r"warm pool: pid \d+ \(.*\), [1-9]\d* calls served", result.stdout), result.stdout
