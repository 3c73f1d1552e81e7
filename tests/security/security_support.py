"""Another local user, for the security tests: a forked child that drops to uid/gid 65534.

    result = as_other_user(function, *args)      # function's return value (pickled back)
    with other_user_process(function, *args) as child: ...   # a child that runs meanwhile

Dropping needs root (CI runs as root: there they run, never skip); elsewhere the tests skip
with that reason. The child cannot import what it has not yet (the interpreter may live
where uid 65534 cannot read): import it here first.
"""
from __future__ import annotations

import contextlib
import encodings.idna  # noqa: F401  (socket.create_connection needs it; the child cannot read /root to import it)
import os
import pickle
import signal
import socket
import time

import pytest

OTHER = 65534

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: the tests drop to uid 65534 to be another user")


def _become_other():
    os.setgroups([])
    os.setgid(OTHER)
    os.setuid(OTHER)
    os.umask(0o022)


def as_other_user(function, *args, timeout: float = 30.0):
    """Run ``function(*args)`` as uid 65534 in a forked child; its return value, or the
    exception it raised (re-raised here)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            _become_other()
            try:
                outcome = ("ok", function(*args))
            except BaseException as exc:  # noqa: BLE001 — sent back to the test
                outcome = ("error", repr(exc))
            data = pickle.dumps(outcome)
            while data:
                data = data[os.write(write_fd, data):]
        finally:
            os._exit(0)
    os.close(write_fd)
    chunks = []
    deadline = time.monotonic() + timeout
    with os.fdopen(read_fd, "rb") as handle:
        while True:
            chunk = handle.read(65536)
            if not chunk:
                break
            chunks.append(chunk)
            assert time.monotonic() < deadline, "the other user's child took too long"
    os.waitpid(pid, 0)
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "error":
        raise AssertionError("as uid %d: %s" % (OTHER, value))
    return value


@contextlib.contextmanager
def other_user_process(function, *args):
    """A child running ``function(ready_fd, *args)`` as uid 65534 until the with-block ends (it is
    killed then). The block starts once the child wrote a byte on ``ready_fd``."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            _become_other()
            function(write_fd, *args)
        finally:
            os._exit(0)
    os.close(write_fd)
    try:
        ready = os.read(read_fd, 1)
        assert ready, "the other user's child ended before it was ready"
        yield pid
    finally:
        os.close(read_fd)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)


def connect_as_other(port: int):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    return sock


def tree_snapshot(folder) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (links as their target, FIFOs unread)."""
    out = {}
    for root, dirs, files in os.walk(str(folder)):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            path = os.path.join(root, name)
            if os.path.islink(path):
                out[path] = ("link:" + os.readlink(path)).encode()
            elif not os.path.isfile(path):
                out[path] = b"(not a file)"  # a FIFO: never opened
            else:
                with open(path, "rb") as handle:
                    out[path] = handle.read()
    return out
