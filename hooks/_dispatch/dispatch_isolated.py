"""The isolated runner: the selected checks run in a forked worker, never in the host's process.

    ForkRunner(guard, close_fds).run(jobs, stdin_text, hooks_root)

Why: a check runs arbitrary code. In the dispatcher's own process it could end
that process (``os._exit(3)``, a signal, a crash in C code, the OOM killer),
hold the GIL past every timeout, or keep the host waiting through a child it
forked, and on Copilot CLI a ``preToolUse`` hook that exits non-zero denies the
tool call. So the process the host started only selects rows, forks, enforces
the budget from outside and renders the one line itself; whatever the worker
does, that process exits 0 with a valid line or nothing, within the largest
selected timeout plus ``MARGIN``.

The worker runs the ``ThreadRunner`` unchanged (imports, one thread per check,
thread-local streams) and streams each job's result to the parent as soon as it
is known, one frame per job: a 4-byte length and a ``marshal``-ed tuple
(``FrameWriter`` writes them, ``split_frames`` and ``apply_frame`` read them). So the advice
of a check that finished is kept when a neighbour later kills the worker. A final empty
frame says the worker is done. The parent reads frames until that, end of file, or the
deadline; then it kills the worker if it still
runs, and every job without a frame is a ``timeout`` (deadline reached) or an
``error`` (the worker died first: ``worker exit 3``, ``worker signal 9``).

What is lost, by design: the result of a check still running when a neighbour
ends the worker, and of every check not finished when one holds the GIL until
the deadline (the worker cannot send while it is held). A check that forks
without exec leaves a child that may outlive the hook; the parent does not wait
for it (it stops at the worker's done frame or the deadline).

Cost: one ``fork()`` of a small interpreter plus the frames, on the selected
path only; a call that selects no row never gets here (bench B1/B5 compare).
"""
import marshal
import os
import time

# Seconds past the largest timeout the parent waits for a worker's last frame:
# the fork, the frames and the worker's own bookkeeping.
MARGIN = 0.25
_HEADER = 4


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
        for job in jobs:
            if job.kind is None:  # no frame: out of time, or the worker ended while it ran
                job.ran = True
                job.kind, job.detail = ("error", status) if status else ("timeout", "timeout")
                job.elapsed_ms = (time.monotonic() - start) * 1000


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
    import select

    by_index = {job.row.index: job for job in jobs}
    buffer = b""
    finished = False
    while not finished:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            _kill(pid)
            return None
        chunk = os.read(fd, 65536)
        if not chunk:
            break  # end of file: the worker is gone
        bodies, buffer = split_frames(buffer + chunk)
        for body in bodies:
            if not body:
                finished = True
                break
            apply_frame(by_index, body)
    return _reap(pid, finished, deadline)


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


def _kill(pid):
    try:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    except OSError:
        pass
