"""hooks/_common/warm.py: what the warm pool and hookmux serve share (issue 28)."""
from __future__ import annotations

import os
import subprocess
import sys
import time

from hookmux_testing import HOOKS, PYTHON

sys.path.insert(0, str(HOOKS))
from _common import warm  # noqa: E402


def _dead_pid() -> int:
    child = subprocess.Popen([PYTHON, "-S", "-c", "pass"])
    child.wait()
    return child.pid


def test_write_file_replaces_whole_keeps_the_first_writer_and_leaves_no_temporary(tmp_path):
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        warm.write_file("record", b"one", folder)
        warm.write_file("record", b"two", folder)
        warm.write_file("secret", b"first", folder, keep=True)
        warm.write_file("secret", b"second", folder, keep=True)
        warm.write_file("call", b"data", folder, new=True)
        try:
            warm.write_file("call", b"again", folder, new=True)
            raise AssertionError("a new file was written over")
        except FileExistsError:
            pass
    finally:
        os.close(folder)
    assert (tmp_path / "record").read_bytes() == b"two"
    assert (tmp_path / "secret").read_bytes() == b"first"
    assert (tmp_path / "call").read_bytes() == b"data"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["call", "record", "secret"]
    assert all(path.stat().st_mode & 0o777 == 0o600 for path in tmp_path.iterdir())


def test_write_file_never_writes_through_a_link(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_bytes(b"theirs")
    os.symlink(target, tmp_path / "record")
    warm.write_file(str(tmp_path / "record"), b"ours")
    assert target.read_bytes() == b"theirs" and (tmp_path / "record").read_bytes() == b"ours"
    assert not (tmp_path / "record").is_symlink()


def test_sweep_removes_what_dead_processes_left_and_what_is_old(tmp_path):
    dead, live = _dead_pid(), os.getpid()
    for name in ("%d-1.frames" % dead, "%d-1.done" % dead, "%d" % dead, "%d-2.frames" % live, "%d-3.call" % live,
                 "calls", "manager"):
        (tmp_path / name).write_text("")
    old = time.time() - 120
    os.utime(tmp_path / ("%d-3.call" % live), (old, old))
    assert warm.sweep(str(tmp_path), max_age=60) == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(["%d-2.frames" % live, "calls", "manager"])
    assert warm.sweep(str(tmp_path)) == 1  # without max_age only the dead pids' go


def test_refusal_says_why_a_folder_is_not_used(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    assert warm.refusal(str(private)) is None
    assert warm.refusal(str(tmp_path / "missing")) is None  # made when first needed
    private.chmod(0o755)
    assert "is open to other users (mode 755)" in warm.refusal(str(private))
    os.symlink(private, tmp_path / "link")
    assert warm.refusal(str(tmp_path / "link")).endswith("is a link")
    assert warm.open_private(str(tmp_path / "link")) is None


def test_alive_is_this_users_processes_only():
    assert warm.alive(os.getpid())
    assert not warm.alive(_dead_pid())
    assert not warm.alive("not a pid") and not warm.alive(None)
