"""The warm pool (hooks/_dispatch/dispatch_arbiter.py, dispatch_worker.py and run_in_standby in dispatch_isolated.py):
standbys that run a call's checks as the caller's process would, a pool that never serves
stale code, never holds the host's pipes, and a call that runs once wherever it runs."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from hookmux_testing import DISPATCH, HOOKS, PYTHON, STANDBY_LINE, hermetic_env, warm_pool

FORKED_LINE = "checks ran in a worker forked for this call"
PAYLOAD = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": "true"}}).encode()
# Emits what the process it runs in looks like to a check.
PROBE = '''
import json, os, sys
def main():
    umask = os.umask(0)
    os.umask(umask)
    seen = {"pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(), "umask": umask,
            "probe": os.environ.get("HMX_PROBE"), "only_at_start": os.environ.get("HMX_ONLY_AT_START"),
            "argv": sys.argv}
    print(json.dumps({"additionalContext": json.dumps(seen)}))
'''
APPENDER = '''
import os
def main():
    with open(os.environ["HMX_RUNS"], "a") as handle:
        handle.write("ran\\n")
'''


def _manifest(tmp_path: Path, body: str) -> Path:
    root = tmp_path / "checks"
    (root / "probe").mkdir(parents=True, exist_ok=True)
    (root / "probe" / "check.py").write_text(body)
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"version": 1, "hooks_root": str(root), "events": {
        "PreToolUse": {"checks": [{"name": "probe", "script": "probe/check.py"}]}}}))
    return path


def _call(manifest: Path, env: dict, dispatch: Path = DISPATCH, **options):
    result = subprocess.run([PYTHON, "-S", "-E", str(dispatch), "--manifest", str(manifest), "--trace", "PreToolUse"],
                            input=PAYLOAD, capture_output=True, env=env, timeout=60, **options)
    assert result.returncode == 0, result.stderr
    trace = result.stderr.decode()
    output = result.stdout.decode()
    seen = json.loads(json.loads(output)["hookSpecificOutput"]["additionalContext"]) if output else None
    return trace, seen


def _until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/status").exists() and "zombie" in Path(f"/proc/{pid}/status").read_text()


def _private_env(tmp_path: Path, **extra: str) -> dict:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700, exist_ok=True)
    return hermetic_env(tmp_path, HOOKMUX_RUNTIME_DIR=str(runtime), **extra)


def _pool_folders(env: dict) -> list[Path]:
    runtime = Path(env["HOOKMUX_RUNTIME_DIR"])
    return [path for path in runtime.iterdir() if path.is_dir()] if runtime.exists() else []


def test_a_standby_runs_the_checks_with_the_callers_environment_cwd_umask_and_argv(tmp_path):
    manifest = _manifest(tmp_path, PROBE)
    warm_pool(_private_env(tmp_path, HMX_ONLY_AT_START="1"), tmp_path)  # a pool started from another environment
    work = tmp_path / "work"
    work.mkdir()
    env = _private_env(tmp_path, HMX_PROBE="caller-7")
    for _ in range(20):
        trace, seen = _call(manifest, env, cwd=work, preexec_fn=lambda: os.umask(0o027))
        if STANDBY_LINE in trace:
            break
    else:
        raise AssertionError("no call was served by a standby: %s" % trace)
    assert seen["probe"] == "caller-7"
    assert seen["only_at_start"] is None  # what the caller does not have, the check does not see
    assert seen["cwd"] == str(work)
    assert seen["umask"] == 0o027
    assert seen["argv"][-1] == "PreToolUse" and seen["argv"][-3] == str(manifest)


def test_a_standby_serves_many_calls_each_as_its_own_callers_process(tmp_path):
    """Since issue 43 a standby serves call after call, as a serve worker does: each call still
    sees its own caller's environment and cwd, and what a check or an earlier caller set is not
    left for the next."""
    manifest = _manifest(tmp_path, PROBE)
    warm_pool(hermetic_env(tmp_path), tmp_path)
    pids, served = [], 0
    for number in range(8):
        work = tmp_path / ("work%d" % number)
        work.mkdir()
        extra = {"HMX_PROBE": "caller-%d" % number}
        if number % 2:
            extra["HMX_ONLY_AT_START"] = "odd"
        trace, seen = _call(manifest, hermetic_env(tmp_path, **extra), cwd=work)
        if STANDBY_LINE not in trace:
            continue
        served += 1
        pids.append(seen["pid"])
        assert seen["probe"] == "caller-%d" % number and seen["cwd"] == str(work)
        assert seen["only_at_start"] == ("odd" if number % 2 else None)
    assert served >= 4 and len(set(pids)) < len(pids), pids  # a standby served more than one


COUNTS = '''
import json, os
IMPORTED_WITH = os.environ.get("HMX_PROBE")
CALLS = [0]
def main():
    CALLS[0] += 1
    print(json.dumps({"additionalContext": json.dumps({"pid": os.getpid(), "calls": CALLS[0],
                                                       "imported_with": IMPORTED_WITH})}))
'''


def test_a_check_stays_imported_for_its_callers_next_call_and_is_imported_anew_for_another_caller(tmp_path):
    """The checks a standby imported are kept for the next call of the same caller (argv, cwd,
    umask, environment) while none of their files changed; a caller with another environment
    gets them imported anew, so what a check reads at import time is always its caller's."""
    manifest = _manifest(tmp_path, COUNTS)
    env_a = hermetic_env(tmp_path, HMX_PROBE="a")
    warm_pool(env_a, tmp_path)
    by_pid = {}
    for _ in range(10):
        trace, seen = _call(manifest, env_a)
        if STANDBY_LINE in trace:
            assert seen["imported_with"] == "a"
            by_pid.setdefault(seen["pid"], []).append(seen["calls"])
    assert any(counts[-1] > 1 for counts in by_pid.values()), by_pid  # kept between calls
    assert all(counts == list(range(counts[0], counts[0] + len(counts))) for counts in by_pid.values()), by_pid
    for _ in range(6):
        trace, seen = _call(manifest, hermetic_env(tmp_path, HMX_PROBE="b"))
        if STANDBY_LINE in trace:
            assert seen["imported_with"] == "b" and seen["calls"] == 1, seen  # anew: another caller
            break
    else:
        raise AssertionError("no call with the other environment was served by a standby")
    (tmp_path / "checks" / "probe" / "check.py").write_text(COUNTS.replace("CALLS[0] += 1", "CALLS[0] += 100"))
    for _ in range(6):
        trace, seen = _call(manifest, env_a)
        if STANDBY_LINE in trace:
            assert seen["calls"] == 100, seen  # the edited file is imported, afresh
            break
    else:
        raise AssertionError("no call after the edit was served by a standby")


LEAVES_A_THREAD = '''
import json, os, threading, time
def main():
    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
    print(json.dumps({"additionalContext": json.dumps({"pid": os.getpid()})}))
'''


def test_a_standby_a_check_left_a_thread_in_serves_no_other_call(tmp_path):
    """A check returns but leaves a thread running: that thread could act in a later call, so
    its standby ends after this call and the arbiter forks a fresh one."""
    leaky = _manifest(tmp_path, LEAVES_A_THREAD)
    plain = tmp_path / "plain"
    plain.mkdir()
    probe = _manifest(plain, PROBE)
    env = hermetic_env(tmp_path)
    warm_pool(env, tmp_path)
    for _ in range(6):
        trace, seen = _call(leaky, env)
        if STANDBY_LINE in trace:
            leaked = seen["pid"]
            break
    else:
        raise AssertionError("no call was served by a standby")
    assert _until(lambda: _gone(leaked)), leaked
    for _ in range(6):
        trace, seen = _call(probe, env)
        assert seen["pid"] != leaked


CHANGES_ITS_PROCESS = '''
import json, os
def main():
    out = json.dumps({"additionalContext": json.dumps({"pid": os.getpid()})})
    %s
    print(out)
'''
SEES_IT = '''
import json, os, sys
def main():
    leak = %s
    print(json.dumps({"additionalContext": json.dumps({"pid": os.getpid(), "leak": bool(leak)})}))
'''
# each change, and what a later call in the same worker would see of it
PROCESS_CHANGES = {
    "a stdlib function rebound": ("json.dumps = lambda *a, **k: 'patched'", "json.dumps.__name__ == '<lambda>'"),
    "a dispatcher module's name rebound": (
        "import sys; m = sys.modules['dispatch_core']; m.render = (lambda f: lambda *a, **k: f(*a, **k))(m.render)",
        "sys.modules['dispatch_core'].render.__name__ == '<lambda>'"),
    "a builtin added": ("import builtins; builtins.HOOKMUX_LEFT = 1", "hasattr(__import__('builtins'), 'HOOKMUX_LEFT')"),
    "sys.path grown": ("import sys; sys.path.append('/nowhere')", "'/nowhere' in sys.path"),
    "a signal handler set": ("import signal; signal.signal(signal.SIGUSR1, lambda *a: None)",
                             "callable(__import__('signal').getsignal(__import__('signal').SIGUSR1))"),
    "the stdout descriptor replaced": ("os.dup2(os.pipe()[1], 1)",
                                       "__import__('stat').S_ISFIFO(os.fstat(1).st_mode)"),
}


@pytest.mark.parametrize("change", sorted(PROCESS_CHANGES))
def test_a_standby_whose_check_changed_what_the_next_call_inherits_serves_no_other_call(tmp_path, change):
    """A patch of a shared module, a builtin, sys.path, a signal handler, a descriptor: a later
    call in that worker would inherit it, so the worker ends after the call (Intact). Calls
    alternate between the check that changes its process and one that looks for the change:
    without the rule, a worker the first changed serves the second within a few rounds."""
    does, sees = PROCESS_CHANGES[change]
    changer = _manifest(tmp_path, CHANGES_ITS_PROCESS % does)
    looker = tmp_path / "looker"
    looker.mkdir()
    probe = _manifest(looker, SEES_IT % sees)
    env = hermetic_env(tmp_path)
    warm_pool(env, tmp_path)
    served = 0
    for _ in range(8):
        _call(changer, env)
        trace, seen = _call(probe, env)
        assert seen is not None and not seen["leak"], (change, trace)
        served += STANDBY_LINE in trace
    assert served >= 3, served


def test_a_standby_serves_the_next_call_when_its_check_changed_nothing_shared(tmp_path):
    """The control: a check that imports modules, keeps its own state and warns as a library's
    deprecation does (the warning's registry lands in the dispatcher's module that called it)
    does not retire its worker."""
    manifest = _manifest(tmp_path, CHANGES_ITS_PROCESS % (
        "import re, csv, decimal, warnings; STATE = [re.compile('x')]; "
        "warnings.warn('old', DeprecationWarning, stacklevel=2)"))
    env = hermetic_env(tmp_path)
    warm_pool(env, tmp_path)
    pids = []
    for _ in range(10):
        trace, seen = _call(manifest, env)
        if STANDBY_LINE in trace:
            pids.append(seen["pid"])
    assert len(pids) >= 3 and len(set(pids)) < len(pids), pids


def test_the_first_call_forks_and_starts_a_pool_that_holds_none_of_the_hosts_pipes(tmp_path):
    env = _private_env(tmp_path)
    manifest = _manifest(tmp_path, PROBE)
    started = time.monotonic()
    trace, seen = _call(manifest, env)  # capture_output: a pool holding the pipes would hang this
    assert time.monotonic() - started < 10
    assert FORKED_LINE in trace and seen is not None
    assert _until(lambda: any((folder / "calls").exists() for folder in _pool_folders(env)))
    assert _until(lambda: STANDBY_LINE in _call(manifest, env)[0])


def test_an_upgraded_tree_is_never_served_by_the_pool_of_the_old_code(tmp_path):
    tree = tmp_path / "hooks"
    for folder in ("_dispatch", "_common"):
        shutil.copytree(HOOKS / folder, tree / folder, ignore=shutil.ignore_patterns("__pycache__"))
    dispatch = tree / "_dispatch" / "dispatch.py"
    env = _private_env(tmp_path)
    manifest = _manifest(tmp_path, PROBE)
    warm_pool(env, tmp_path, dispatch=dispatch)
    trace, seen = _call(manifest, env, dispatch=dispatch)
    assert STANDBY_LINE in trace
    old_manager = seen["ppid"]

    runner = tree / "_dispatch" / "dispatch_runner.py"
    runner.write_text(runner.read_text() + "\n# upgraded\n")
    trace, seen = _call(manifest, env, dispatch=dispatch)
    assert FORKED_LINE in trace, trace  # never the old pool
    assert _until(lambda: _gone(old_manager))
    assert _until(lambda: STANDBY_LINE in _call(manifest, env, dispatch=dispatch)[0])
    trace, seen = _call(manifest, env, dispatch=dispatch)
    assert seen["ppid"] != old_manager


def test_an_idle_pool_leaves_and_removes_its_fifo(tmp_path):
    env = _private_env(tmp_path, HOOKMUX_WARM_IDLE="1")
    manifest = _manifest(tmp_path, PROBE)
    warm_pool(env, tmp_path)
    trace, seen = _call(manifest, env)
    manager = seen["ppid"] if STANDBY_LINE in trace else None
    [folder] = _pool_folders(env)
    assert _until(lambda: not (folder / "calls").exists())
    if manager is not None:
        assert _until(lambda: _gone(manager))


def test_a_runtime_folder_others_can_enter_is_never_used(tmp_path):
    env = _private_env(tmp_path)
    Path(env["HOOKMUX_RUNTIME_DIR"]).chmod(0o755)
    manifest = _manifest(tmp_path, PROBE)
    for _ in range(3):
        trace, seen = _call(manifest, env)
        assert FORKED_LINE in trace and seen is not None
        time.sleep(0.3)
    assert not any((folder / "calls").exists() for folder in _pool_folders(env))


def test_HOOKMUX_WARM_0_starts_no_pool(tmp_path):
    env = _private_env(tmp_path, HOOKMUX_WARM="0")
    manifest = _manifest(tmp_path, PROBE)
    for _ in range(2):
        trace, _seen = _call(manifest, env)
        assert FORKED_LINE in trace
    time.sleep(0.5)
    assert _pool_folders(env) == []


def test_a_call_no_standby_claims_is_taken_back_and_runs_once(tmp_path):
    """A pool that reads its FIFO but never claims (all busy, or stuck): the call waits
    READY_WAIT, takes its file back and runs in a forked worker, once, leaving nothing behind."""
    env = _private_env(tmp_path, HMX_RUNS=str(tmp_path / "runs.txt"))
    manifest = _manifest(tmp_path, APPENDER)
    # The folder a pool of this dispatcher would use, with its FIFO held by us.
    sys_key = subprocess.run([PYTHON, "-S", "-E", "-c",
                              "import sys; sys.path.insert(0, %r); import dispatch_isolated as d; print(d.pool_dir())"
                              % str(DISPATCH.parent)], capture_output=True, env=env, text=True, check=True)
    pool = Path(sys_key.stdout.strip())
    pool.mkdir(mode=0o700, parents=True)
    os.mkfifo(pool / "calls", 0o600)
    stuck = os.open(pool / "calls", os.O_RDWR | os.O_NONBLOCK)
    try:
        trace, _ = _call(manifest, env)
        message = os.read(stuck, 4096)
    finally:
        os.close(stuck)
    assert FORKED_LINE in trace, trace
    assert (tmp_path / "runs.txt").read_text() == "ran\n"
    assert len(message) == 64
    assert sorted(path.name for path in pool.iterdir()) == ["calls"]  # the call file and FIFO are gone


SLEEPER = '''
import time
def main():
    time.sleep(3)
'''


def test_the_sweep_removes_the_files_of_a_caller_that_died(tmp_path):
    """A caller killed mid-call (the host's timeout) leaves its frames file and done FIFO in the
    pool's folder; the next manager's sweep removes them (its pid is gone)."""
    env = _private_env(tmp_path, HOOKMUX_WARM_IDLE="1")
    manifest = _manifest(tmp_path, SLEEPER)
    warm_pool(env, tmp_path)
    [folder] = _pool_folders(env)
    for _ in range(20):
        caller = subprocess.Popen([PYTHON, "-S", "-E", str(DISPATCH), "--manifest", str(manifest), "PreToolUse"],
                                  stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        caller.stdin.write(PAYLOAD)
        caller.stdin.close()
        frames = folder / ("%d-" % caller.pid)
        claimed = _until(lambda: any(path.name.startswith(frames.name) and path.name.endswith(".frames")
                                     and path.stat().st_size > 0 for path in folder.iterdir()), 2.0)
        caller.kill()
        caller.wait()
        if claimed:
            break
        time.sleep(0.5)
    else:
        raise AssertionError("no call was claimed by a standby")
    left = sorted(path.name for path in folder.iterdir() if path.name.startswith(frames.name))
    assert any(name.endswith(".frames") for name in left) and any(name.endswith(".done") for name in left), left
    assert _until(lambda: not (folder / "calls").exists())  # the idle manager left
    warm_pool(env, tmp_path)  # a new manager: it sweeps as it starts
    assert _until(lambda: not any(path.name.startswith(frames.name) for path in folder.iterdir())), \
        sorted(path.name for path in folder.iterdir())


def test_status_and_doctor_find_the_pools_of_trees_whose_path_has_an_at_sign_or_hashes_the_name(tmp_path):
    from hookmux.doctor.processes import pools
    from hookmux.installer.warm_pool import pools_of

    env = _private_env(tmp_path)
    for place in (tmp_path / "at@sign", tmp_path / ("d" * 120) / ("e" * 120)):
        tree = place / "hooks"
        for folder in ("_dispatch", "_common"):
            shutil.copytree(HOOKS / folder, tree / folder, ignore=shutil.ignore_patterns("__pycache__"))
        warm_pool(env, tmp_path, dispatch=tree / "_dispatch" / "dispatch.py")
        time.sleep(1.5)  # the manager writes what it served once its standby is reaped
        [pool] = pools_of(tree, env)
        assert pool["python"] == PYTHON and pool["served"] >= 1, pool
        [checked] = pools(str(tree), env)  # hookmux doctor reads the same key
        assert checked["python"] == PYTHON and checked["answers"], checked
    names = [folder.name for folder in _pool_folders(env)]
    assert any("@" in name for name in names) and any("@" not in name for name in names), names
