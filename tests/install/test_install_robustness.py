"""Failures while installing: read-only folders, concurrent installs, injected faults, kills."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from hookmux.installer import tree

from install_helpers import REPO, Home, snapshot

NOBODY = 65534


def _without_lock(snap: dict) -> dict:
    return {k: v for k, v in snap.items() if k not in ("state", "state/install.lock")}


def _content(snap: dict) -> dict:
    """Kind, bytes and mode: a rollback rewrites what it restores, so mtimes may move."""
    return {k: v[:3] for k, v in _without_lock(snap).items()}


@pytest.fixture
def h(tmp_path):
    h = Home(tmp_path)
    h.write_settings()
    return h


@pytest.mark.parametrize("read_only", ["settings folder", "target parent"])
def test_read_only_folder_fails_cleanly(read_only):
    """A folder the user cannot write: exit 1 naming the path, and whatever was done is rolled
    back. Root ignores permissions, so as root the command runs as nobody."""
    prefix = []
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root without setpriv: cannot make a folder read-only")
        prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        probe = subprocess.run([*prefix, sys.executable, "-c", "import hookmux.cli"],
                               capture_output=True, text=True, cwd=str(REPO), timeout=60)
        if probe.returncode != 0:  # e.g. a pyenv build whose libpython sits under root's 0700 home
            pytest.skip(f"user nobody cannot run {sys.executable}: {probe.stderr.strip()[-300:]}")
    root = Path(tempfile.mkdtemp(prefix="hookmux-ro-"))
    try:
        h = Home(root)
        h.write_settings()
        for folder, dirs, files in os.walk(root):
            for name in [folder] + [os.path.join(folder, n) for n in dirs + files]:
                os.lchown(name, NOBODY, NOBODY) if prefix else None
        os.chmod(root, 0o755)
        locked = h.claude if read_only == "settings folder" else h.home / "ro"
        target = h.home / "hooks" if read_only == "settings folder" else h.home / "ro" / "hooks"
        locked.mkdir(exist_ok=True)
        os.lchown(locked, NOBODY, NOBODY) if prefix else None
        os.chmod(locked, 0o555)
        before = _without_lock(snapshot(root))
        result = subprocess.run(
            [*prefix, sys.executable, "-m", "hookmux.cli", "install", "--target", str(target),
             "--settings", str(h.settings), "--source", str(h.source)],
            capture_output=True, text=True, env=h.env, cwd=str(REPO), timeout=120)
        assert result.returncode == 1, result.stdout + result.stderr
        assert str(locked) in result.stderr and "Permission denied" in result.stderr
        assert "nothing was changed" in result.stderr and "Traceback" not in result.stderr
        assert _without_lock(snapshot(root)) == before
        assert not target.exists()
    finally:
        for folder in (root / "home" / ".claude", root / "home" / "ro"):
            if folder.exists():
                os.chmod(folder, 0o755)
        shutil.rmtree(root)


def test_two_installs_at_once_leave_one_valid_file(h):
    args = [sys.executable, "-m", "hookmux.cli", "install", "--target", str(h.target), "--settings",
            str(h.settings), "--source", str(h.source), "--copilot-hooks-dir", str(h.copilot_dir)]
    procs = [subprocess.Popen(args, env=h.env, cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(3)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    data = json.loads(h.settings.read_text())
    commands = [hook["command"] for groups in data["hooks"].values() for g in groups for hook in g["hooks"]]
    assert sum("dispatch.py PreToolUse" in c for c in commands) == 1
    assert sum("skill_redirect.py PreToolUse" in c for c in commands) == 1
    assert len(list(h.claude.glob("settings.json.hookmux-backup-*"))) == 1
    assert json.loads((h.copilot_dir / "hookmux.json").read_text())["version"] == 1
    assert not list(h.root.rglob("*.hookmux-tmp"))
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 0, status.stdout


@pytest.mark.parametrize("step", ["temp", "fsync", "replace"])
def test_a_fault_at_any_write_rolls_everything_back(h, step):
    """HOOKMUX_FAULT=STEP:raise:N fails the N-th write; for every N until the install gets
    through, nothing may stay changed."""
    (h.target / "_common").mkdir(parents=True)
    (h.target / "_common" / "state.py").write_text("# the user's\n")  # exercises the .legacy move
    before = _content(snapshot(h.root))
    for n in range(1, 60):
        env = dict(h.env, HOOKMUX_FAULT=f"{step}:raise:{n}")
        result = h.hookmux("install", "--target", str(h.target), "--settings", str(h.settings),
                           "--source", str(h.source), "--copilot-hooks-dir", str(h.copilot_dir), env=env)
        if result.returncode == 0:
            break
        assert "injected fault" in result.stderr and "nothing was changed" in result.stderr, result.stderr
        assert _content(snapshot(h.root)) == before, f"{step}:raise:{n}"
    else:
        pytest.fail("the install never got through")
    assert n > 10  # every tree file, the backup, both wired files and the record were tried
    assert "skill_redirect.py" in h.settings.read_text()


def test_a_kill_while_writing_settings_leaves_a_valid_file_and_the_next_install_recovers(h):
    original = h.settings.read_bytes()
    writes = len([p for p in h.source.rglob("*") if p.is_file()
                  and p.relative_to(h.source).as_posix() not in tree.PLUGIN_ONLY])  # the plugin's hooks.json
    # replaces: the pending record, every tree file, the settings backup, the settings file
    env = dict(h.env, HOOKMUX_FAULT=f"replace:kill:{writes + 3}")
    result = h.hookmux("install", "--target", str(h.target), "--settings", str(h.settings),
                       "--source", str(h.source), env=env)
    assert result.returncode == -9
    assert h.settings.read_bytes() == original  # killed before the rename: the old file, whole
    assert len(list(h.claude.glob("settings.json.hookmux-backup-*"))) == 1  # the step before got through
    assert [p.name for p in h.claude.glob(".settings.json.*.hookmux-tmp")
            if ".hookmux-backup-" not in p.name]  # the kill left the settings' temp file
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 1 and "interrupted" in status.stdout
    h.install()
    assert "skill_redirect.py" in h.settings.read_text()
    assert not list(h.claude.glob(".settings.json.*.hookmux-tmp"))
    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
    assert status.returncode == 0, status.stdout


def test_a_kill_after_the_legacy_move_is_recovered_and_the_users_file_comes_back(h):
    mine = h.target / "_common" / "state.py"
    mine.parent.mkdir(parents=True)
    mine.write_text("# the user's own helper\n")
    # replace 1 is the pending record; the .legacy move comes next, then replace 2 (a tree file)
    env = dict(h.env, HOOKMUX_FAULT="replace:kill:2")
    result = h.hookmux("install", "--target", str(h.target), "--settings", str(h.settings),
                       "--source", str(h.source), env=env)
    assert result.returncode == -9
    assert (h.target / "_common" / "state.py.legacy").read_text() == "# the user's own helper\n"
    h.install()
    h.uninstall()
    assert mine.read_text() == "# the user's own helper\n"
    assert sorted(str(p.relative_to(h.target)) for p in h.target.rglob("*")) == ["_common", "_common/state.py"]
