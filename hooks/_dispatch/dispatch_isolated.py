"""The isolated runners: the selected checks run in another process, never in the host's.

    worker = run_in_standby(jobs, stdin_text, hooks_root)   # its pid; 0: nothing ran
    ForkRunner(guard, close_fds).run(jobs, stdin_text, hooks_root)

A check runs arbitrary code: in the dispatcher's process it could end it, hold the GIL past
every timeout or keep the host waiting through a child, and on Copilot CLI a ``preToolUse``
hook that exits non-zero denies the call. So this process only selects rows, hands them to a
worker, answers by the deadline whatever the worker does and renders the one line itself:
exit 0 with a valid line or nothing, within the largest selected timeout plus ``MARGIN``. A
pool worker still running its checks past their deadline is killed by its arbiter (the only one
that ends a warm worker's check); a worker forked for the call, by this process.

The worker is one of the warm pool's (dispatch_arbiter.py, dispatch_worker.py) when one is
free, else one forked for the call. ``run_in_standby`` writes the call (argv, cwd, umask,
environment, payload, rows, code stamp) to a private file, makes its frames file and ``done``
FIFO beside it and names them in one atomic ``MESSAGE`` on the pool's ``calls`` FIFO (FIFOs
and files: ``_socket`` alone costs ~1 ms to import). The worker that claims it (by renaming
it) writes a hello frame (its pid, whether it runs this tree's code), a frame per finished
check, then one byte on ``done``. A call nobody claimed within ``READY_WAIT`` is taken back,
so a call that is not served ran nowhere. Every file is opened relative to the pool folder's
descriptor (``open_owned``); a runtime folder not this user's alone is never used. Linux only;
``HOOKMUX_WARM=0`` turns the pool off, ``HOOKMUX_RUNTIME_DIR`` moves it.

A frame is a 4-byte length and a ``marshal``-ed tuple; an empty one says the worker is done.
Every job without a frame at the done frame, the end of file or the deadline is a ``timeout``
or an ``error`` in the words of the worker's end (``worker exit 3``, ``worker signal 9``;
``worker ended`` for a pool's). docs/reliability.md tells what is lost, by design.
A call that selects no row never gets here (bench B1/B5 compare).
"""
import marshal
import os
import sys
import time

import dispatch_core  # noqa: F401  (it puts the hooks tree on sys.path, for _common)
from _common import warm
from _common.warm import FIFO, MARGIN, NOFOLLOW, open_owned

_HEADER = 4
# How long a call waits for a standby to claim it before it forks its own worker.
READY_WAIT = 0.01
# The modules a standby runs a call with (its first check gets the _common ones as they were
# loaded): a pool started from other versions of them is stale.
MODULES = ("dispatch_core.py", "dispatch_runner.py", "dispatch_isolated.py", "dispatch_transport.py",
           "dispatch_arbiter.py", "dispatch_worker.py", "../_common/__init__.py", "../_common/event.py", "../_common/hosts.py",
           "../_common/manifest.py", "../_common/warm.py")
MESSAGE = 64  # bytes: below PIPE_BUF, so each message is written and read whole
CALLS = "calls"
HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- a standby of the warm pool


def run_in_standby(jobs, stdin_text, hooks_root):
    """Run ``jobs`` in a standby and fill in their results; the standby's pid (-1: unknown),
    or 0 when none took them."""
    if os.environ.get("HOOKMUX_WARM") == "0" or not sys.platform.startswith("linux"):
        return 0
    start = time.monotonic()
    deadline = start + max(job.row.timeout for job in jobs) + MARGIN
    pool = None
    try:
        pool = open_pool()
        if pool is None:
            return 0  # a runtime folder that is not ours alone: never used (hookmux status says why)
        calls = open_owned(CALLS, os.O_WRONLY | os.O_NONBLOCK, pool, FIFO)
    except OSError as exc:
        if exc.errno in (2, 6):  # ENOENT, ENXIO: no pool, or nobody reads its FIFO
            launch(pool_dir())
        if pool is not None:
            os.close(pool)
        return 0
    except Exception:
        return 0
    try:
        return _call(pool, calls, jobs, stdin_text, hooks_root, start, deadline)
    finally:
        os.close(pool)


def _call(pool, calls, jobs, stdin_text, hooks_root, start, deadline):
    """The call through the pool's folder ``pool`` (an fd: every name below is relative to it)."""
    base = "%d-%d" % (os.getpid(), time.monotonic_ns())
    waiter = frames = None
    sent = False
    try:
        try:
            warm.write_file(base + ".call", _request(jobs, stdin_text, hooks_root), pool, new=True)
            frames = os.open(base + ".frames", os.O_RDWR | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600, dir_fd=pool)
            os.mkfifo(base + ".done", 0o600, dir_fd=pool)
            waiter = _Waiter(base + ".done", pool)
            sent = os.write(calls, base.encode().ljust(MESSAGE)) == MESSAGE
        finally:
            os.close(calls)
        end = waiter.wait(base + ".call", pool, deadline)
    except Exception:
        end = None if not sent or _taken_back(base + ".call", pool) else EOF
    try:
        if end is None or frames is None:
            return 0  # nobody claimed it: it ran nowhere
        hello, bodies = _read_frames_file(frames)
        if hello is None:
            standby, current = -1, True  # claimed, and gone (or out of time) before its hello
        else:
            standby, current = hello
        if not current:
            return 0  # claimed by a standby of older code, which ran nothing
        by_index = {job.row.index: job for job in jobs}
        for body in bodies:
            if not body:
                end = DONE
                break
            apply_frame(by_index, body)
        settle(jobs, None if end == DEADLINE else "" if end == DONE else "worker ended", start, one_at_a_time=True)
        return standby
    finally:
        if waiter is not None:
            waiter.close()
        if frames is not None:
            os.close(frames)
        for suffix in (".call", ".frames", ".done"):
            try:
                os.unlink(base + suffix, dir_fd=pool)
            except OSError:
                pass


def open_pool():
    """The fd of this pool's folder, or None when the runtime folder or the pool's is not ours alone."""
    return warm.open_within(warm.runtime_dir(), pool_name())


def _request(jobs, stdin_text, hooks_root):
    umask = os.umask(0o22)
    os.umask(umask)
    rows = [(job.row.index, job.row.path, list(job.row.args), job.row.timeout, list(job.row.isolate)) for job in jobs]
    call = (code_stamp(), list(sys.argv), os.getcwd(), umask, dict(os.environ), stdin_text, hooks_root, rows)
    return marshal.dumps(call)


class _Waiter:
    """Waits on the call's ``done`` FIFO: one byte when the standby finished, end of file when
    it is gone. Its reader is open before the call is announced, so the standby's open always
    finds one, and Linux reports no end of file before a first writer came."""

    def __init__(self, name, dir_fd):
        self.fd = open_owned(name, os.O_RDONLY | os.O_NONBLOCK, dir_fd, FIFO)

    def wait(self, call_name, dir_fd, deadline):
        """None when nobody claimed the call within READY_WAIT (it is taken back), else EOF
        (done or gone: the frames say which) or DEADLINE."""
        import select

        if select.select([self.fd], [], [], READY_WAIT)[0]:
            return EOF
        if _taken_back(call_name, dir_fd):
            return None
        remaining = deadline - time.monotonic()
        return EOF if remaining > 0 and select.select([self.fd], [], [], remaining)[0] else DEADLINE

    def close(self):
        os.close(self.fd)


def _read_frames_file(fd):
    """The standby's hello ``(pid, current)`` (None if it wrote none) and the frames after it."""
    data = b""
    while True:
        chunk = os.pread(fd, 1 << 20, len(data))
        if not chunk:
            break
        data += chunk
    bodies, _ = split_frames(data)
    try:
        kind, pid, current = marshal.loads(bodies[0])
        if kind == "hello":
            return (pid, current), bodies[1:]
    except Exception:
        pass
    return None, bodies


def _taken_back(call_name, dir_fd):
    """Whether the call was still unclaimed, and is now withdrawn."""
    try:
        os.unlink(call_name, dir_fd=dir_fd)
        return True
    except FileNotFoundError:
        return False


# ---------------------------------------------------------------- where the pool lives


def pool_dir():
    return os.path.join(warm.runtime_dir(), pool_name())


def pool_key():
    """What a pool is for: this interpreter, this hooks tree and the interpreter's start-up flags
    (the manager writes them to the folder's ``key`` file, for ``hookmux status``)."""
    flags = sys.flags
    return sys.executable, HERE, "%d%d%d" % (flags.no_site, flags.ignore_environment, flags.isolated)


def pool_name():
    """The name of the pool's folder: its key, escaped (a hash costs more; a name over NAME_MAX
    is hashed)."""
    key = "@".join(pool_key())
    name = key.replace("%", "%25").replace("/", "%2F")
    if len(name) > 250:
        digest = 0xCBF29CE484222325  # FNV-1a
        for byte in key.encode("utf-8", "surrogateescape"):
            digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        name = "%016x" % digest
    return name


def code_stamp():
    """Which files the modules of a call are (``warm.code_stamp``)."""
    return warm.code_stamp(HERE, MODULES)


def interpreter_flags():
    flags = sys.flags
    return [flag for flag, on in (("-I", flags.isolated), ("-S", flags.no_site), ("-E", flags.ignore_environment)) if on]


def launch(pool):
    """Start the pool in its own session, with nothing of ours open; it outlives this call."""
    try:
        argv = [sys.executable] + interpreter_flags() + [os.path.join(HERE, "dispatch_arbiter.py"), "pool", pool]
        devnull = os.devnull
        actions = [(os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_DUP2, 1, 2)]
        os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions, setsid=True)
    except Exception:
        pass


# ---------------------------------------------------------------- a worker forked for the call


class ForkRunner:
    """Runs the jobs in a forked worker; falls back to no result rather than to running them here."""

    def __init__(self, guard=None, close_fds=()):
        #: The worker arms it (faulthandler watchdog) so that an orphaned worker still ends.
        self.guard = guard
        #: The parent's private fds (its copies of the host's stdout/stderr): closed in the worker.
        self.close_fds = tuple(close_fds)

    def run(self, jobs, stdin_text, hooks_root):
        if not jobs:
            return
        budget = max(job.row.timeout for job in jobs)
        # Imported here, not in the worker: after the fork, each page the worker writes
        # to is copied first, and an import writes to many.
        import select  # noqa: F401
        from dispatch_runner import prepare

        prepare()

        start = time.monotonic()
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            _worker(self, jobs, stdin_text, hooks_root, read_fd, write_fd)  # never returns
        os.close(write_fd)
        try:
            status = _collect(pid, jobs, read_fd, start + budget + MARGIN)
        finally:
            os.close(read_fd)
        settle(jobs, status, start)


def settle(jobs, status, start, one_at_a_time=False):
    """Every job the worker sent no frame for: a timeout when its own timeout had passed (a warm
    worker's arbiter kills it only then, a forked worker's caller at the deadline: ``status``
    None), else an ``error`` in the words of ``status`` (how the worker ended). A warm worker
    runs its checks ``one_at_a_time`` (others in threads only once one is slow): then only the
    first such error is counted, the check it most likely died in, and the rest are not, so the
    breaker does not open for the rows after a row that kills its process (serve's arbiter does
    the same, ``dispatch_arbiter._count_died``); a forked worker's checks all ran at once."""
    blamed = False
    elapsed = time.monotonic() - start
    for job in jobs:
        if job.kind is None:  # no frame: out of time, or the worker ended while it ran
            job.elapsed_ms = elapsed * 1000
            if status and elapsed < job.row.timeout:
                if blamed and one_at_a_time:
                    job.detail = "%s in an earlier check (not counted)" % status
                    continue
                blamed = True
                job.ran, job.kind, job.detail = True, "error", status
                continue
            job.ran, job.kind, job.detail = True, "timeout", "timeout"


def _worker(runner, jobs, stdin_text, hooks_root, read_fd, write_fd):
    try:
        os.close(read_fd)
        for fd in runner.close_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        from dispatch_runner import ThreadRunner

        send = FrameWriter(write_fd)
        ThreadRunner(guard=runner.guard, report=send.job).run(jobs, stdin_text, hooks_root)
        send.done()
    finally:
        os._exit(0)


class FrameWriter:
    """Writes one frame per job from whichever thread finished it; one writer at a time."""

    def __init__(self, fd):
        import _thread

        self.fd = fd
        self.lock = _thread.allocate_lock()

    def job(self, job):
        self.frame(marshal.dumps((job.row.index, job.ran, job.kind, job.detail, job.elapsed_ms, job.output)))

    def done(self):
        self.frame(b"")

    def frame(self, body):
        data = len(body).to_bytes(_HEADER, "big") + body
        with self.lock:
            while data:
                data = data[os.write(self.fd, data):]


def _collect(pid, jobs, fd, deadline):
    """Fill in ``jobs`` from the worker's frames. Returns None when the deadline ended it,
    else the worker's end in words (``worker exit 3``), or "" when it finished cleanly."""
    end = read_frames(fd, jobs, deadline)
    if end == DEADLINE:
        _kill(pid)
        return None
    return _reap(pid, end == DONE, deadline)


DONE, EOF, DEADLINE = "done", "end of file", "deadline"


def read_frames(fd, jobs, deadline):
    """Apply the frames read from ``fd`` to ``jobs`` until the done frame (DONE), the end of
    file (EOF: the worker is gone) or ``deadline`` (DEADLINE)."""
    import select

    by_index = {job.row.index: job for job in jobs}
    buffer = b""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            return DEADLINE
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            return EOF
        bodies, buffer = split_frames(buffer + chunk)
        for body in bodies:
            if not body:
                return DONE
            apply_frame(by_index, body)


def split_frames(buffer):
    """The bodies of the whole frames at the start of ``buffer`` (b"": a done frame), and the rest."""
    bodies = []
    while len(buffer) >= _HEADER:
        size = int.from_bytes(buffer[:_HEADER], "big")
        if len(buffer) < _HEADER + size:
            break
        bodies.append(buffer[_HEADER:_HEADER + size])
        buffer = buffer[_HEADER + size:]
    return bodies, buffer


def apply_frame(by_index, body):
    """Fill in the job one frame names (``by_index``: row index -> job); a frame that does not
    unpack, or names no job, is dropped. A result later than the row's timeout is a timeout."""
    try:
        index, ran, kind, detail, elapsed_ms, output = marshal.loads(body)
    except Exception:
        return
    job = by_index.get(index)
    if job is not None and isinstance(output, str):
        job.ran, job.kind, job.detail, job.elapsed_ms, job.output = ran, kind, detail, elapsed_ms, output
        if kind != "timeout" and elapsed_ms is not None and elapsed_ms > job.row.timeout * 1000:
            job.kind, job.detail, job.output = "timeout", "timeout", ""


def _reap(pid, finished, deadline):
    """The worker's end: "" after its done frame, else how it ended. A worker still there at
    the deadline (one that closed the pipe and went on) is killed: None, as for a timeout."""
    if finished:
        return ""  # it calls os._exit right after the done frame; nobody needs to wait for that
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() >= deadline:
            _kill(pid)
            return None
        time.sleep(0.0005)
    if os.WIFSIGNALED(status):
        return "worker signal %d" % os.WTERMSIG(status)
    return "worker exit %d" % os.WEXITSTATUS(status)


def _kill(pid, wait=True):
    try:
        os.kill(pid, 9)
        if wait:
            os.waitpid(pid, 0)
    except OSError:
        pass
