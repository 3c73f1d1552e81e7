"""The warm pool: a resident manager keeps forked standby workers ready for the dispatcher.

    python3 -S -E dispatch_standby.py POOL_FOLDER     (started by dispatch_isolated.launch)

The manager makes the pool's folder in the private runtime folder, keeps it open (every later
name is relative to that descriptor, no link followed, and a call file is taken only when it
is this user's and private: ``_common.warm.open_owned``), holds its
``lock`` for its life (one manager per pool), makes the ``calls`` FIFO, loads the
dispatcher's modules and the ``PRELOADED`` standard ones, and forks ``STANDBYS``
standbys. It never runs a check itself. A fresh standby first copies every
writable page it shares with the manager (``madvise`` with
``MADV_POPULATE_WRITE``), so that no call pays for copy-on-write; then it waits
on ``calls``. The one that claims a call (``dispatch_isolated`` says how) tells the
manager, opens the call's frames file and ``done`` FIFO, writes its hello frame
(pid, and whether it runs this tree's code), takes on the caller's argv, cwd,
umask and environment, runs the checks with the ``ThreadRunner``, appends each
result frame as it is known (``dispatch_isolated.FrameWriter``), writes one byte
on ``done`` and exits: whatever a check did to its process dies with it. The
manager forks a replacement once a call is served (its page copying would
compete with that call for the CPU), or at once when no standby is left idle.

The manager leaves, and takes its idle standbys with it, when no call came for
``HOOKMUX_WARM_IDLE`` seconds (default ``IDLE``), when its ``calls`` FIFO was
removed or replaced, or when the dispatcher's modules on disk are no longer the
ones it loaded (an upgrade); the next call starts a new pool.
"""
import os
import sys

IDLE = 600.0
STANDBYS = 2
TICK = 1.0
MADV_POPULATE_WRITE = 23  # Linux 5.14
# Standard modules most checks import (the shipped ones do), loaded once here instead of in
# every call: `re` alone is ~9 ms to import on a slow machine.
PRELOADED = ("re", "json", "_sha2", "_sha256")
# What a standby tells the manager on its pipe, after its pid.
CLAIMED, SERVED = b"c", b"s"


def main(pool):
    os.closerange(3, 1 << 16)  # nothing the host handed our starter stays open here
    os.chdir("/")  # nor does any folder stay in use
    try:
        idle = float(os.environ.get("HOOKMUX_WARM_IDLE") or IDLE)
    except ValueError:
        idle = IDLE
    import dispatch_isolated as isolated
    from _common import warm

    try:
        folder = warm.open_within(os.path.dirname(pool), os.path.basename(pool), make=True)
    except OSError:
        return
    if folder is None:
        return
    import fcntl

    # Every name below is relative to the folder's fd: the path may be changed under us.
    lock = os.open("lock", os.O_RDWR | os.O_CREAT | warm.NOFOLLOW, 0o600, dir_fd=folder)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another manager has this pool
    try:
        os.unlink("calls", dir_fd=folder)  # left by a manager that is gone (we hold the lock)
    except FileNotFoundError:
        pass
    os.mkfifo("calls", 0o600, dir_fd=folder)
    # What the folder's name stands for (hookmux status reads it: the name may be a hash).
    warm.write_file("key", "\0".join(isolated.pool_key()).encode("utf-8", "surrogateescape"), folder)
    calls = warm.open_owned("calls", os.O_RDWR | os.O_NONBLOCK, folder, warm.FIFO)  # never an end of file

    stamp = isolated.code_stamp()  # before the rest is loaded: an upgrade now makes it stale
    import dispatch_runner
    import dispatch_transport  # noqa: F401  (the standby's watchdog)

    dispatch_runner.prepare()
    dispatch_runner.PRISTINE.update(dispatch_runner.ALWAYS_ISOLATED)  # no check runs here
    for module in PRELOADED:
        try:
            __import__(module)
        except ImportError:
            pass
    Manager(folder, calls, lock, stamp, _page_toucher()).run(os.fstat(calls).st_ino, idle)


def _page_toucher():
    """``madvise`` from the C library, or None where there is none to have."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        madvise = ctypes.CDLL(None).madvise
        madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        return madvise
    except Exception:
        return None


class Manager:
    def __init__(self, folder, calls, lock, stamp, madvise):
        self.folder = folder  # the pool's folder, an fd
        self.calls = calls
        self.lock = lock
        self.stamp = stamp
        self.madvise = madvise
        self.environ = dict(os.environ)
        self.idle = set()  # standbys waiting for a call
        self.busy = set()  # standbys serving one
        self.served = self.reaped = 0
        self.reported = None
        self.taken_r, self.taken_w = os.pipe()  # a standby's pid and CLAIMED, then SERVED
        self.life_r, self.life_w = os.pipe()  # the standbys leave when this closes

    def run(self, bound, idle_seconds):
        import select
        import signal
        import time

        import dispatch_isolated
        from _common import warm

        # A standby that dies (a check ended it, or its caller at the deadline) wakes us at
        # once, to be replaced.
        self.exited_r, self.exited_w = os.pipe()
        os.set_blocking(self.exited_w, False)
        signal.set_wakeup_fd(self.exited_w)
        signal.signal(signal.SIGCHLD, _ignore)
        warm.sweep(self.folder, warm.LEFTOVER)  # what callers that died left: their pid is gone
        last_call = swept = time.monotonic()
        while True:
            while len(self.idle) + len(self.busy) < STANDBYS or not self.idle:
                self.idle.add(self.fork())
            ready = select.select([self.taken_r, self.exited_r], [], [], TICK)[0]
            if self.exited_r in ready:
                os.read(self.exited_r, 4096)
            if self.taken_r in ready:
                data = os.read(self.taken_r, 4096)
                for at in range(0, len(data) - 4, 5):
                    pid, what = int.from_bytes(data[at:at + 4], "big"), data[at + 4:at + 5]
                    self.idle.discard(pid)
                    (self.busy.add if what == CLAIMED else self.busy.discard)(pid)
                    self.served += what == SERVED
                last_call = time.monotonic()
            self.reap()
            self.report()
            try:
                current = (os.stat("calls", dir_fd=self.folder, follow_symlinks=False).st_ino == bound
                           and dispatch_isolated.code_stamp() == self.stamp)
            except OSError:
                current = False
            now = time.monotonic()
            if not current or now - last_call > idle_seconds:
                break
            if now - swept > warm.LEFTOVER:
                swept = now
                warm.sweep(self.folder, warm.LEFTOVER)
        os.close(self.life_w)
        try:
            if os.stat("calls", dir_fd=self.folder, follow_symlinks=False).st_ino == bound:
                os.unlink("calls", dir_fd=self.folder)
                os.unlink("manager", dir_fd=self.folder)
        except OSError:
            pass

    def fork(self):
        import signal

        pid = os.fork()
        if pid == 0:
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                for fd in (self.lock, self.taken_r, self.life_w, self.exited_r, self.exited_w):
                    os.close(fd)
                Standby(self).run()
            finally:
                os._exit(0)
        return pid

    def report(self):
        """``manager``: its pid, the calls served and the CPU milliseconds of the pool so far
        (the standbys' once reaped), for ``hookmux status`` and ``hookmux bench``."""
        if self.reported == (self.served, self.reaped):
            return
        from _common import warm

        line = "%d %d %.1f\n" % (os.getpid(), self.served, sum(os.times()[:4]) * 1000)
        warm.write_file("manager", line.encode("ascii"), self.folder)
        self.reported = (self.served, self.reaped)

    def reap(self):
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if not pid:
                return
            self.idle.discard(pid)
            self.busy.discard(pid)
            self.reaped += 1


def _ignore(signum, frame):
    pass


class Standby:
    def __init__(self, manager):
        self.folder = manager.folder
        self.calls = manager.calls
        self.stamp = manager.stamp
        self.madvise = manager.madvise
        self.environ = manager.environ
        self.taken_w = manager.taken_w
        self.life_r = manager.life_r

    def run(self):
        import marshal
        import select

        from _common.warm import FIFO, open_owned
        from dispatch_isolated import FrameWriter

        folder = self.folder
        self.copy_pages()
        while True:
            ready = select.select([self.calls, self.life_r], [], [])[0]
            if self.life_r in ready:
                return
            try:
                name = os.read(self.calls, 64).decode("ascii", "replace").strip()
            except (BlockingIOError, InterruptedError):
                continue  # another standby read it
            if not name.replace("-", "").isdigit():
                continue  # not a call's name
            try:
                os.rename(name + ".call", name + ".taken", src_dir_fd=folder, dst_dir_fd=folder)
            except OSError:
                continue  # taken back by its caller, who gave up waiting
            break
        pid = os.getpid()
        os.write(self.taken_w, pid.to_bytes(4, "big") + CLAIMED)
        for fd in (self.life_r, self.calls):
            os.close(fd)
        try:  # only a file of this user's, made for nobody else, is a call (else this raises)
            with open(open_owned(name + ".taken", os.O_RDONLY, folder), "rb") as handle:
                call = marshal.loads(handle.read())
        finally:
            os.unlink(name + ".taken", dir_fd=folder)
        frames = open_owned(name + ".frames", os.O_WRONLY | os.O_APPEND, folder)
        done = open_owned(name + ".done", os.O_WRONLY | os.O_NONBLOCK, folder, FIFO)  # fails if the caller is gone
        current = call[0] == self.stamp
        send = FrameWriter(frames)
        send.frame(marshal.dumps(("hello", pid, current)))
        if current:
            serve(send, call[1:], self.environ)
        os.write(done, b"d")
        os.write(self.taken_w, pid.to_bytes(4, "big") + SERVED)

    def copy_pages(self):
        """Write-fault every private writable page now, while nobody waits: after it, a call
        writes to pages of its own and takes no copy-on-write fault."""
        if self.madvise is None:
            return
        try:
            with open("/proc/self/maps", "rb") as maps:
                lines = maps.read().splitlines()
        except OSError:
            return
        for line in lines:
            fields = line.split()
            if len(fields) < 2 or fields[1] != b"rw-p":
                continue
            start, end = (int(bound, 16) for bound in fields[0].split(b"-"))
            if end - start <= 64 << 20:  # a large reservation is not worth populating
                self.madvise(start, end - start, MADV_POPULATE_WRITE)


def serve(send, call, inherited):
    """Run one call in this process, which becomes the caller's as far as a check can tell
    (``inherited``: the environment it started with)."""
    from _common.manifest import Row
    from dispatch_core import Outcome
    from dispatch_runner import ThreadRunner
    from dispatch_transport import Watchdog

    argv, cwd, umask, environ, stdin_text, hooks_root, rows = call
    sys.argv = argv
    os.chdir(cwd)
    os.umask(umask)
    if environ != inherited:  # usually equal: the pool was started from the same environment
        for name in [name for name in os.environ if name not in environ]:
            del os.environ[name]
        for name, value in environ.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
    jobs = [Outcome(Row(None, index, {"script": path, "args": args, "timeout": timeout, "isolate": isolate}, "/"))
            for index, path, args, timeout, isolate in rows]
    # The caller kills this process at its deadline; the watchdog ends it should the caller be gone.
    guard = Watchdog(os.open(os.devnull, os.O_WRONLY))
    ThreadRunner(guard=guard, report=send.job).run(jobs, stdin_text, hooks_root)
    send.done()


if __name__ == "__main__":
    try:
        if len(sys.argv) == 2:
            main(sys.argv[1])
    finally:
        os._exit(0)
