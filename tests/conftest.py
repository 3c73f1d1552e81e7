"""Fixtures shared by every test folder; the helpers themselves are in hookmux_testing.py.

Leak guard (autouse, every test): a warm pool or a server that a test started does not outlive
the test, so that later tests never run under its load. After each test:

- a server (``dispatch_arbiter.py serve HOOKS``, or one of its workers) of a hooks tree under
  the test's tmp_path still running LEAK_WAIT seconds later fails the test, naming pid and
  argv, and is killed: the test must stop what it started (tests/serve/conftest.py's
  ``server`` fixture does);
- a pool (``dispatch_arbiter.py pool FOLDER``) of a folder that appeared in RUNTIME_DIR during
  the test is ended here (its ``calls`` FIFO unlinked, SIGTERM to the arbiter and its workers):
  a pool is meant to idle after its last call, and no test waits for that; one still there
  LEAK_WAIT seconds later fails the test.
"""
from __future__ import annotations

import os
import shutil
import signal
import sys
import time

import pytest
from hookmux_testing import RUNTIME_DIR, hermetic_env

# What a pool asked to leave may take (its TICK is 1 s; a loaded 2-core machine adds to it).
LEAK_WAIT = 10.0
ARBITER = "dispatch_arbiter.py"


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(RUNTIME_DIR, ignore_errors=True)  # the session's warm pools see it gone and leave


@pytest.fixture
def env(tmp_path):
    return hermetic_env(tmp_path)


def _pools():
    try:
        return set(os.listdir(RUNTIME_DIR))
    except OSError:
        return set()


def _arbiters(roots):
    """{pid: argv} of this user's arbiters whose folder or hooks tree is under one of ``roots``."""
    found = {}
    uid = os.getuid()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if os.stat("/proc/" + name).st_uid != uid:
                continue
            with open("/proc/%s/cmdline" % name, "rb") as handle:
                argv = handle.read().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        script = next((i for i, word in enumerate(argv) if word.endswith(ARBITER)), None)
        if script is None or len(argv) < script + 3:
            continue
        target = argv[script + 2]
        if any(target == root or target.startswith(root.rstrip("/") + "/") for root in roots):
            found[int(name)] = argv
    return found


def _pool_folder(argv):
    return argv[next(i for i, word in enumerate(argv) if word.endswith(ARBITER)) + 2]


def _end_pool(folder):
    try:
        os.unlink(os.path.join(folder, "calls"))
    except OSError:
        pass


@pytest.fixture(autouse=True)
def shared_package_restored():
    """A check run in-process (``dispatch.run``) may import a ``_common`` of its own tree: the
    tests after it, in the same xdist worker, get the hooks tree's package back."""
    before = {name: module for name, module in sys.modules.items() if name.partition(".")[0] == "_common"}
    yield
    for name in [name for name in sys.modules if name.partition(".")[0] == "_common"]:
        if sys.modules[name] is not before.get(name):
            del sys.modules[name]
    sys.modules.update(before)


@pytest.fixture(autouse=True)
def no_warm_process_left(request):
    before = _pools()
    yield
    tmp = request.node.funcargs.get("tmp_path") if hasattr(request.node, "funcargs") else None
    new = [os.path.join(RUNTIME_DIR, name) for name in _pools() - before]
    roots = new + ([str(tmp)] if tmp is not None else [])
    if not roots:
        return
    found = _arbiters(roots)
    servers = {pid: argv for pid, argv in found.items() if "serve" in argv}
    pools = {pid: argv for pid, argv in found.items() if pid not in servers}
    if not found:
        return
    for folder in set(new) | {_pool_folder(argv) for argv in pools.values()}:
        _end_pool(folder)
    _signal(pools, signal.SIGTERM)  # the pool's arbiter and its workers: the test is over
    deadline = time.monotonic() + LEAK_WAIT
    left = found  # a stopped server's workers leave once their connection is idle: waited for too
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = _arbiters(roots)
    _signal(left, signal.SIGKILL)
    servers = {pid: argv for pid, argv in left.items() if pid in servers}
    left = {pid: argv for pid, argv in left.items() if pid not in servers}
    if servers:
        pytest.fail("left a server running (still there %.0f s after the test): %s" % (LEAK_WAIT, _named(servers)),
                    pytrace=False)
    if left:
        pytest.fail("a warm pool did not leave on SIGTERM within %.0f s: %s" % (LEAK_WAIT, _named(left)),
                    pytrace=False)


def _signal(processes, signum):
    for pid in processes:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


def _named(processes):
    return "; ".join("%d %s" % (pid, " ".join(argv)) for pid, argv in sorted(processes.items()))
