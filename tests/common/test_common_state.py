"""hooks/_common state helpers: state_dir, atomic writes, the lock and the seen-map."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from hookmux_testing import HOOKS, PYTHON

sys.path.insert(0, str(HOOKS))
import _common  # noqa: E402

state = _common.state


@pytest.fixture
def state_root(tmp_path, monkeypatch):
    root = tmp_path / "state"
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(root))
    return root


def test_state_dir_prefers_hookmux_state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert _common.state_dir() == str(tmp_path / "explicit")


def test_state_dir_falls_back_to_xdg_then_home(tmp_path, monkeypatch):
    monkeypatch.delenv("HOOKMUX_STATE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert _common.state_dir() == str(tmp_path / "xdg" / "hookmux")
    monkeypatch.setenv("XDG_STATE_HOME", "relative/ignored")
    assert _common.state_dir() == str(tmp_path / "home" / ".local" / "state" / "hookmux")
    monkeypatch.delenv("XDG_STATE_HOME")
    assert _common.state_dir() == str(tmp_path / "home" / ".local" / "state" / "hookmux")


def test_atomic_write_replaces_whole_file_and_leaves_no_temp(tmp_path):
    target = tmp_path / "deep" / "file.json"
    _common.atomic_write_json(str(target), {"a": 1})
    _common.atomic_write_json(str(target), {"b": [1, 2]})
    assert json.loads(target.read_text()) == {"b": [1, 2]}
    assert [p.name for p in target.parent.iterdir()] == ["file.json"]
    assert target.stat().st_mode & 0o777 == 0o600


def test_atomic_write_failure_keeps_old_content(tmp_path, monkeypatch):
    target = tmp_path / "file.txt"
    _common.atomic_write_text(str(target), "old")

    def broken_replace(src, dst):
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        _common.atomic_write_text(str(target), "new")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


def test_read_json_missing_or_corrupt_gives_default(tmp_path):
    assert _common.read_json(str(tmp_path / "missing.json"), {}) == {}
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"{\xff not json")
    assert _common.read_json(str(bad), "default") == "default"


HOLDER = """
import sys
sys.path.insert(0, sys.argv[1])
import _common
with _common.file_lock(sys.argv[2]):
    print("locked", flush=True)
    sys.stdin.read()
"""


def test_file_lock_excludes_another_process(tmp_path):
    lock_path = str(tmp_path / "locks" / ".lock")
    holder = subprocess.Popen(
        [PYTHON, "-S", "-c", HOLDER, str(HOOKS), lock_path],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(_common.LockTimeout):
            with _common.file_lock(lock_path, timeout=0.2):
                pass
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    with _common.file_lock(lock_path, timeout=5):
        pass


def test_file_lock_uses_filelock_where_fcntl_is_missing(tmp_path, monkeypatch):
    pytest.importorskip("filelock")
    monkeypatch.setattr(state, "_fcntl", None)
    lock_path = str(tmp_path / ".lock")
    with _common.file_lock(lock_path, timeout=5) as held:
        assert held._filelock is not None
        with pytest.raises(_common.LockTimeout):
            with _common.file_lock(lock_path, timeout=0.1):
                pass
    with _common.file_lock(lock_path, timeout=5):
        pass


def test_seen_map_reports_new_ids_once(state_root):
    assert _common.mark_seen("ns", "session-1", ["A", "B"], ttl=3600, now=1000) == ["A", "B"]
    assert _common.mark_seen("ns", "session-1", ["A", "B"], ttl=3600, now=1001) == []
    assert _common.mark_seen("ns", "session-1", ["B"], ttl=3600, now=1002) == []
    assert _common.mark_seen("ns", "session-2", ["A"], ttl=3600, now=1003) == ["A"]


def test_seen_map_new_id_marks_every_id(state_root):
    _common.mark_seen("ns", "s", ["A"], ttl=100, now=1000)
    assert _common.mark_seen("ns", "s", ["A", "C"], ttl=100, now=1050) == ["C"]
    # A was re-stamped at 1050, so it is still seen at 1120 (it would have expired at 1100).
    assert _common.mark_seen("ns", "s", ["A"], ttl=100, now=1120) == []


def test_seen_map_ttl_expiry(state_root):
    _common.mark_seen("ns", "s", ["A"], ttl=100, now=1000)
    assert _common.mark_seen("ns", "s", ["A"], ttl=100, now=1099) == []
    assert _common.mark_seen("ns", "s", ["A"], ttl=100, now=1100) == ["A"]
    assert _common.mark_seen("ns", "s", ["A"], ttl=0, now=1100) == ["A"]


def test_seen_map_file_is_digest_named_and_holds_only_ids(state_root):
    session = "raw-session-id-42"
    _common.mark_seen("ns", session, ["ROW-1"], ttl=3600, now=1000)
    path = _common.session_file("ns", session)
    assert os.path.dirname(path) == str(state_root / "ns")
    assert session not in path
    assert json.loads(open(path).read()) == {"version": 1, "seen": {"ROW-1": 1000.0}}


@pytest.mark.parametrize("garbage", [b"", b"{not json", b"[1, 2]", b'{"seen": [1]}', b'{"seen": {"A": "x"}}', b"\xff\xfe"])
def test_seen_map_corrupt_state_counts_as_empty_and_is_repaired(state_root, garbage):
    path = _common.session_file("ns", "s")
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as handle:
        handle.write(garbage)
    assert _common.mark_seen("ns", "s", ["A"], ttl=3600, now=1000) == ["A"]
    assert json.loads(open(path).read()) == {"version": 1, "seen": {"A": 1000.0}}
    assert _common.mark_seen("ns", "s", ["A"], ttl=3600, now=1001) == []


def test_seen_map_prunes_stale_sessions_and_orphan_temps(state_root):
    _common.mark_seen("ns", "old", ["A"], ttl=100, now=1000)
    old = _common.session_file("ns", "old")
    orphan = os.path.join(os.path.dirname(old), ".seen-x.json.123.abcd.tmp")
    open(orphan, "w").close()
    os.utime(old, (1000, 1000))
    os.utime(orphan, (1000, 1000))
    _common.mark_seen("ns", "recent", ["A"], ttl=100, now=1050)
    assert os.path.exists(old) and os.path.exists(orphan)  # neither is stale yet
    _common.mark_seen("ns", "new", ["A"], ttl=100, now=1100)
    assert not os.path.exists(old)
    assert not os.path.exists(orphan)
    assert os.path.exists(_common.session_file("ns", "new"))
    assert os.path.exists(os.path.join(os.path.dirname(old), ".lock"))


def test_seen_map_threads_racing_get_exactly_one_winner(state_root):
    barrier = threading.Barrier(16)
    results = []

    def race():
        barrier.wait()
        results.append(_common.mark_seen("ns", "s", ["A", "B"], ttl=3600))

    threads = [threading.Thread(target=race) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results, key=len) == [[]] * 15 + [["A", "B"]]
    assert set(json.loads(open(_common.session_file("ns", "s")).read())["seen"]) == {"A", "B"}


def test_package_import_is_lazy():
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import _common; "
        "print(sorted(m for m in sys.modules if m.startswith('_common') or m in ('hashlib', 'fcntl')))"
    )
    out = subprocess.run([PYTHON, "-S", "-c", code, str(HOOKS)], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['_common']"


def test_modules_load_after_package_left_sys_modules(tmp_path):
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import _common as c; "
        "del sys.modules['_common']; sys.path.remove(sys.argv[1]); "
        "print(c.redact_text('password=x'), c.state_dir())"
    )
    env = dict(os.environ, HOOKMUX_STATE_DIR=str(tmp_path))
    out = subprocess.run([PYTHON, "-S", "-c", code, str(HOOKS)], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["password=[REDACTED]", str(tmp_path)]


def test_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError):
        _common.no_such_helper


def test_session_file_digest_is_sha256_of_the_id(state_root):
    import hashlib

    expected = hashlib.sha256("sess-é".encode()).hexdigest()[:32]
    assert os.path.basename(_common.session_file("ns", "sess-é")) == f"seen-{expected}.json"


def test_seen_map_distrusts_stamps_from_the_future(state_root):
    _common.mark_seen("ns", "s", ["A"], ttl=3600, now=10_000)
    assert _common.mark_seen("ns", "s", ["A"], ttl=3600, now=9_950) == []  # within the slack
    assert _common.mark_seen("ns", "s", ["A"], ttl=3600, now=5_000) == ["A"]  # clock set back


def test_the_session_sweep_runs_at_most_once_a_minute(tmp_path):
    folder = str(tmp_path)
    assert state.prune_due(folder, 1000.0)
    assert not state.prune_due(folder, 1000.0 + state.PRUNE_EVERY - 1)
    assert state.prune_due(folder, 1000.0 + state.PRUNE_EVERY)
    assert state.prune_due(folder, 500.0)  # a mark from the future (the clock was set back) is old
    assert not state.prune_due(folder, 501.0)


def test_a_repeat_is_answered_without_the_lock(state_root):
    assert _common.mark_seen("ns", "s", ["A"], ttl=3600, now=1000) == ["A"]
    lock = os.path.join(os.path.dirname(_common.session_file("ns", "s")), ".lock")
    os.unlink(lock)
    os.mkdir(lock)  # no lock can be taken now
    assert _common.mark_seen("ns", "s", ["A"], ttl=3600, now=1001) == []
    with pytest.raises(OSError):
        _common.mark_seen("ns", "s", ["A", "B"], ttl=3600, now=1002)  # a new id needs the lock
    with pytest.raises(OSError):
        _common.mark_seen("ns", "s", ["A"], ttl=3600, now=5000)  # so does an expired one
