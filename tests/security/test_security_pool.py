"""The warm pool against another local user (hooks/_dispatch/dispatch_isolated.py,
dispatch_arbiter.py, dispatch_worker.py): its folders are opened by descriptor, never through a link, and only
a file of the user's own is ever taken for a call; a runtime folder another user holds turns
the pool off (every call forks its worker), and ``hookmux status`` says why."""
from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from hookmux_testing import DISPATCH, PYTHON, STANDBY_LINE, hermetic_env, warm_pool
from security_support import OTHER, as_other_user, needs_root, other_user_process, tree_snapshot

pytestmark = [needs_root, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the warm pool is Linux only")]

FORKED_LINE = "checks ran in a worker forked for this call"
CANARY = "victim-api-key-3f9a1c"
PAYLOAD = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": "true"}}).encode()
PROBE = '''
import json, os
def main():
    print(json.dumps({"additionalContext": "probe %d" % os.getpid()}))
'''


def _manifest(tmp_path: Path) -> Path:
    root = tmp_path / "checks"
    (root / "probe").mkdir(parents=True, exist_ok=True)
    (root / "probe" / "check.py").write_text(PROBE)
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"version": 1, "hooks_root": str(root), "events": {
        "PreToolUse": {"checks": [{"name": "probe", "script": "probe/check.py"}]}}}))
    return path


def _call(manifest: Path, env: dict) -> str:
    result = subprocess.run([PYTHON, "-S", "-E", str(DISPATCH), "--manifest", str(manifest), "--trace", "PreToolUse"],
                            input=PAYLOAD, capture_output=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"].startswith("probe ")
    return result.stderr.decode()


def _pool_name(env: dict) -> str:
    out = subprocess.run([PYTHON, "-S", "-E", "-c", "import sys; sys.path.insert(0, %r); import dispatch_isolated as d; "
                          "print(d.pool_name())" % str(DISPATCH.parent)], capture_output=True, env=env, text=True, check=True)
    return out.stdout.strip()


@pytest.fixture
def shared():
    folder = Path(tempfile.mkdtemp(prefix="hmx-", dir="/tmp"))  # short: a FIFO's path must stay short
    folder.chmod(0o777)  # a shared folder, not sticky: anyone may rename what is in it
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_runtime_folder_another_user_made_first_switches_the_pool_off_and_status_says_why(tmp_path, shared):
    shared.chmod(0o1777)  # as /tmp
    as_other_user(os.mkdir, str(shared / "hookmux"), 0o700)
    env = hermetic_env(tmp_path, XDG_RUNTIME_DIR=str(shared))
    del env["HOOKMUX_RUNTIME_DIR"]
    manifest = _manifest(tmp_path)
    for _ in range(3):
        assert FORKED_LINE in _call(manifest, env)
        time.sleep(0.2)
    assert os.listdir(shared / "hookmux") == []  # nothing of ours went there
    from hookmux.installer.warm_pool import refusal

    assert "belongs to uid %d" % OTHER in refusal(env)
    os.chmod(shared / "hookmux", 0o755)
    os.chown(shared / "hookmux", os.getuid(), os.getgid())
    assert "open to other users" in refusal(env)
    os.chmod(shared / "hookmux", 0o700)
    assert refusal(env) is None


def _swapper(ready_fd, shared: str, theirs: str, pool_name: str):
    """The other user: a pool folder of their own with a calls FIFO they read, and the victim's
    runtime path swapped for a link to it, back and forth, as fast as it goes."""
    forged = os.path.join(theirs, pool_name)
    os.makedirs(forged, 0o700)
    os.mkfifo(os.path.join(forged, "calls"), 0o622)
    calls = os.open(os.path.join(forged, "calls"), os.O_RDWR | os.O_NONBLOCK)
    os.symlink(os.path.join(theirs, "chosen"), os.path.join(forged, "manager.tmp"))
    with open(os.path.join(theirs, "chosen"), "w") as handle:
        handle.write("theirs\n")
    runtime, hidden = os.path.join(shared, "rt"), os.path.join(shared, "rt.real")
    received = os.open(os.path.join(theirs, "received"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.write(ready_fd, b"r")
    while True:
        try:
            os.rename(runtime, hidden)
            os.symlink(theirs, runtime)
            time.sleep(0.002)
            os.unlink(runtime)
            os.rename(hidden, runtime)
        except OSError:
            pass
        try:
            data = os.read(calls, 4096)
            os.write(received, data)
        except BlockingIOError:
            pass
        time.sleep(0.001)


def test_a_link_swapped_in_at_the_runtime_path_during_calls_gets_nothing(tmp_path, shared):
    runtime = shared / "rt"
    runtime.mkdir(mode=0o700)
    theirs = shared / "theirs"
    as_other_user(os.mkdir, str(theirs), 0o755)
    env = hermetic_env(tmp_path, HOOKMUX_RUNTIME_DIR=str(runtime), HMX_SECRET=CANARY)
    manifest = _manifest(tmp_path)
    warm_pool(env, tmp_path)
    name = _pool_name(env)
    traces = []
    with other_user_process(_swapper, str(shared), str(theirs), name):
        for _ in range(40):
            traces.append(_call(manifest, env))  # each answers (a standby, or a forked worker)
    assert all(STANDBY_LINE in trace or FORKED_LINE in trace for trace in traces)
    leaked = {path: data for path, data in tree_snapshot(theirs).items() if CANARY.encode() in data}
    assert leaked == {}
    assert (theirs / "received").read_bytes() == b""  # no call was ever announced to their FIFO
    assert (theirs / "chosen").read_text() == "theirs\n"  # the manager never wrote through their link
    assert not [p for p in theirs.rglob("*") if not p.is_symlink() and p.lstat().st_uid != OTHER]
    # and the pool is not off for good: with the path left alone, a standby serves again
    if runtime.is_symlink():  # the other user was stopped mid-swap
        runtime.unlink()
    if not runtime.exists():
        os.rename(shared / "rt.real", runtime)
    warm_pool(env, tmp_path)


def _forged_call(stamp, marker: Path, script: Path) -> bytes:
    rows = [(0, str(script), [], 5.0, [])]
    return marshal.dumps((stamp, [str(DISPATCH)], "/", 0o022, {"HMX_MARKER": str(marker), "PATH": "/usr/bin:/bin"},
                          PAYLOAD.decode(), str(script.parent.parent), rows))


@pytest.mark.parametrize("owner", ["other", "victim"])
def test_only_a_call_file_of_the_users_own_is_run(tmp_path, owner):
    """A call file in the pool's folder that the user does not own (it cannot get there through
    the folder's mode; here root puts it there) is dropped unread; the victim's own runs (the control)."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = hermetic_env(tmp_path, HOOKMUX_RUNTIME_DIR=str(runtime))
    warm_pool(env, tmp_path)
    pool = runtime / _pool_name(env)
    script = tmp_path / "forged" / "check.py"
    script.parent.mkdir()
    script.write_text("import os\ndef main():\n    open(os.environ['HMX_MARKER'], 'w').write('ran')\n")
    marker = tmp_path / "marker"
    sys.path.insert(0, str(DISPATCH.parent))
    try:
        import dispatch_isolated

        stamp = dispatch_isolated.code_stamp()
    finally:
        sys.path.remove(str(DISPATCH.parent))
    name = "1-%d" % time.monotonic_ns()
    call = pool / (name + ".call")
    call.write_bytes(_forged_call(stamp, marker, script))
    call.chmod(0o600)
    (pool / (name + ".frames")).write_bytes(b"")
    (pool / (name + ".frames")).chmod(0o600)
    os.mkfifo(pool / (name + ".done"), 0o600)
    if owner == "other":
        for suffix in (".call", ".frames", ".done"):
            os.chown(pool / (name + suffix), OTHER, OTHER)
    done = os.open(pool / (name + ".done"), os.O_RDONLY | os.O_NONBLOCK)
    calls = os.open(pool / "calls", os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(calls, name.encode().ljust(64))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not marker.exists():
            time.sleep(0.05)
    finally:
        os.close(calls)
        os.close(done)
    assert marker.exists() == (owner == "victim")
    assert not call.exists()  # claimed either way
