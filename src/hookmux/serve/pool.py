"""The server's check workers: persistent processes (worker.py), each running one request's checks at a time.

    pool = Pool(hooks)                      # starts SPARE workers
    PoolRunner(pool).run(jobs, stdin_text, hooks_root)   # the dispatcher's Runner interface

The server keeps what ``ForkRunner``'s parent does — selection, the deadline, validation of
the frames, rendering — and hands the selected rows to a warm worker over a pipe instead of
forking one. ``PoolRunner.run`` waits for each job no longer than its row's timeout plus
``dispatch_isolated.MARGIN`` (ThreadRunner's per-check timeouts), then kills the worker; a
worker that ran out of time, died, or asked to retire (a check still running, a thread left
behind) is never used again, and a replacement is started in the background so that the next
request finds a warm one. So a check that hangs, crashes, calls ``os._exit`` or holds the GIL costs the request it
ran in, and the start of one worker.
"""
import marshal
import os
import select
import subprocess
import sys
import threading
import time

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
SPARE = 2  # idle workers kept warm
IDLE_TRIM_SECONDS = 120.0  # an idle worker above SPARE unused this long is stopped
_HEADER = 4
_RETIRE = marshal.dumps(("retire",))  # worker.RETIRE


class Worker:
    def __init__(self, hooks):
        request_read, self.request_fd = os.pipe()
        self.reply_fd, reply_write = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-S", "-E", WORKER, hooks, str(request_read), str(reply_write)],
                pass_fds=(request_read, reply_write), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd="/", close_fds=True)
        except BaseException:
            for fd in (self.request_fd, self.reply_fd):
                os.close(fd)
            raise
        finally:
            os.close(request_read)
            os.close(reply_write)
        self.used = time.monotonic()

    def run(self, request, jobs, start, isolated):
        """Send one request, apply its frames (``isolated``: dispatch_isolated of the installed
        tree, which reads them). Returns (status, reusable): status as ForkRunner's (None: out of
        time; "": done; "worker exit 3": it died first). Out of time: every job without a result
        is past its own timeout plus ``isolated.MARGIN``, as ThreadRunner stops waiting for a
        check at its own timeout; then the worker is killed."""
        by_index = {job.row.index: job for job in jobs}
        budget, margin = max(job.row.timeout for job in jobs), isolated.MARGIN
        deadline = start + budget + margin
        data = len(request).to_bytes(_HEADER, "big") + request
        try:
            while data:
                data = data[os.write(self.request_fd, data):]
        except OSError:
            return self._ended(deadline), False
        buffer = b""
        retire = False
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.reply_fd], [], [], remaining)[0]:
                self.kill()
                return None, False
            chunk = os.read(self.reply_fd, 1 << 16)
            if not chunk:
                return self._ended(deadline), False
            bodies, buffer = isolated.split_frames(buffer + chunk)
            for number, body in enumerate(bodies, 1):
                if not body:
                    self.used = time.monotonic()
                    return "", not retire and number == len(bodies) and not buffer
                if body == _RETIRE:
                    retire = True
                else:
                    isolated.apply_frame(by_index, body)
                    pending = [job.row.timeout for job in jobs if job.kind is None]
                    deadline = start + (max(pending) if pending else budget) + margin

    def _ended(self, deadline):
        try:
            status = self.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        return "worker signal %d" % -status if status < 0 else "worker exit %d" % status

    def kill(self):
        try:
            self.proc.kill()
            self.proc.wait()
        except OSError:
            pass

    def close(self):
        """Stop it: end of file on its request pipe ends an idle worker; a busy one is killed."""
        for fd in (self.request_fd, self.reply_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.proc.wait(1.0)
        except subprocess.TimeoutExpired:
            self.kill()

    @property
    def pid(self):
        return self.proc.pid


class Pool:
    """Idle warm workers; ``take()`` one per request, ``give()`` it back or ``retire()`` it."""

    def __init__(self, hooks, spare=SPARE):
        self.hooks = hooks
        self.spare = spare
        self.idle = []
        self.lock = threading.Lock()
        self.starting = 0
        self.closed = False
        self.all = set()
        self._replenish()

    def take(self):
        with self.lock:
            worker = self.idle.pop() if self.idle else None
        if worker is None:
            worker = self._start()  # a cold worker: this request pays its start
        self._replenish()
        return worker

    def give(self, worker):
        with self.lock:
            if not self.closed:
                self.idle.append(worker)
                return
        self._stop(worker)

    def retire(self, worker):
        threading.Thread(target=self._stop, args=(worker,), daemon=True).start()
        self._replenish()

    def trim(self):
        """Stop idle workers beyond ``spare`` that went unused for IDLE_TRIM_SECONDS (after a burst)."""
        now = time.monotonic()
        with self.lock:
            self.idle.sort(key=lambda worker: worker.used)
            extra = len(self.idle) - self.spare
            old = [worker for worker in self.idle[:max(0, extra)] if now - worker.used > IDLE_TRIM_SECONDS]
            self.idle = [worker for worker in self.idle if worker not in old]
        for worker in old:
            self._stop(worker)

    def pids(self):
        with self.lock:
            return [worker.pid for worker in self.all]

    def close(self):
        with self.lock:
            self.closed = True
            workers, self.idle = list(self.all), []
        for worker in workers:
            self._stop(worker)

    def _start(self):
        worker = Worker(self.hooks)
        with self.lock:
            self.all.add(worker)
        return worker

    def _stop(self, worker):
        worker.close()
        with self.lock:
            self.all.discard(worker)

    def _replenish(self):
        with self.lock:
            missing = self.spare - len(self.idle) - self.starting
            if self.closed or missing <= 0:
                return
            self.starting += missing
        threading.Thread(target=self._start_spares, args=(missing,), daemon=True).start()

    def _start_spares(self, count):
        for _ in range(count):
            try:
                worker = self._start()
            except Exception:
                worker = None
            with self.lock:
                self.starting -= 1
                if worker is not None and not self.closed:
                    self.idle.append(worker)
                    worker = None
            if worker is not None:
                self._stop(worker)


class PoolRunner:
    """The Runner interface (hooks/_dispatch/dispatch_runner.py) over a warm worker of ``pool``."""

    def __init__(self, pool, isolated):
        self.pool = pool
        self.isolated = isolated  # dispatch_isolated of the installed tree: MARGIN, the frame reader

    def run(self, jobs, stdin_text, hooks_root):
        if not jobs:
            return
        start = time.monotonic()
        rows = [(job.row.index, job.row.name, job.row.path, tuple(job.row.args), job.row.timeout,
                 tuple(job.row.isolate)) for job in jobs]
        request = marshal.dumps((stdin_text, hooks_root, _cwd_of(stdin_text), rows))
        worker = self.pool.take()
        status, reusable = worker.run(request, jobs, start, self.isolated)
        if reusable:
            self.pool.give(worker)
        else:
            self.pool.retire(worker)
        for job in jobs:
            if job.kind is None:  # no frame: out of time, or the worker ended while it ran
                job.ran = True
                job.kind, job.detail = ("error", status) if status else ("timeout", "timeout")
                job.elapsed_ms = (time.monotonic() - start) * 1000


def _cwd_of(stdin_text):
    """The payload's ``cwd`` (the folder the command hook would run in), or None."""
    if '"cwd"' not in stdin_text:
        return None
    try:
        import json

        payload = json.loads(stdin_text)
    except (ValueError, RecursionError):
        return None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None
