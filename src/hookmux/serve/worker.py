"""One persistent check worker of ``hookmux serve``: runs the selected checks of one request at a time.

    python -S -E worker.py HOOKS_ROOT REQUEST_FD REPLY_FD     # started by pool.py, never by hand

Standard library only, and it imports nothing of the ``hookmux`` package: it runs the
dispatcher's runtime of the installed hooks tree (``dispatch_runner``'s ``Check``: the import
under a synthetic name, the thread-local streams, the bounded capture, the report) the way
``ThreadRunner`` does, with these differences, which make a warm request cost microseconds:

- a check stays imported between requests, keyed by the files it depends on (the script, the
  ``.py`` files of its folder and of ``_common``, and every module its import loaded), each
  compared by ``(mtime_ns, size, inode)`` when a request selects it: a changed file is imported
  afresh for that very request. The whole tree is rescanned at most once a second after a
  reply, which catches files a check loads by path while it runs;
- the checks run one after another in the worker's main thread, not in a new thread each;
  when one has run ``RESCUE_SECONDS`` (a hang, or real work), a rescuer thread starts every
  check not started yet at once, each in a thread kept for the worker's life, so a slow or
  hanging check still delays its neighbours by that much only;
- the streams stay installed for the worker's life, and the checks run in the payload's
  ``cwd`` (``/`` when it has none or it is gone), as the command hook runs in the host's.

Request frame (4-byte length + ``marshal``): ``(stdin_text, hooks_root, cwd, rows)``, ``rows``
being ``(index, name, path, args, timeout, isolate)`` tuples. Reply: ``dispatch_isolated``'s
job frames — held back and sent with the done frame in one write, or as they come once the
rescuer has woken (so a neighbour that then ends the worker does not take them along) —
then ``RETIRE`` when this worker must not be reused (a check ran out of time and may still
run, a check left a thread running), then the empty done frame. The server enforces the
deadlines (pool.py) and kills a worker that is late. End of file on the request pipe (the
server is gone) ends the worker.
"""
import _thread
import marshal
import os
import sys
import time

RETIRE = marshal.dumps(("retire",))
RESCAN_SECONDS = 1.0
RESCUE_SECONDS = 0.05
COLLECT_EVERY = 1000
_HEADER = 4


def main(argv):
    hooks_root, request_fd, reply_fd = os.path.abspath(argv[1]), int(argv[2]), int(argv[3])
    # As dispatch.py sees it: its own folder first, the hooks tree after.
    sys.path[0] = os.path.join(hooks_root, "_dispatch")
    if hooks_root not in sys.path:
        sys.path.append(hooks_root)
    import dispatch_isolated
    import dispatch_runner

    dispatch_runner.prepare().installed().__enter__()  # for the worker's life
    worker = Worker(dispatch_runner, _sender(dispatch_isolated.FrameWriter)(reply_fd), hooks_root)
    requests = _Frames(request_fd)
    while True:
        body = requests.next()
        if body is None:
            os._exit(0)
        try:
            stdin_text, root, cwd, rows = marshal.loads(body)
            retire = worker.serve(stdin_text, root, cwd, rows)
        except BaseException:
            retire = True
        if retire:
            worker.send.frame(RETIRE)
        worker.send.done()  # with the held frames, in one write
        if retire:
            os._exit(0)
        worker.after_reply()


class Worker:
    def __init__(self, runner, send, hooks_root):
        self.runner = runner
        self.send = send
        self.hooks_root = hooks_root
        self.cache = {}  # (script, root, isolate) -> (dependencies, their stamps, main)
        self.slots = []
        self.threads = None  # how many threads run between requests: counted at the first one
        self.tree = _scan(hooks_root)
        self.scanned = time.monotonic()
        self.cwd = None
        self.served = 0
        self.lock = _thread.allocate_lock()
        self.stdin_text, self.queue, self.rescued, self.running_since = "", [], [], None
        _thread.start_new_thread(self._rescuer, ())

    def serve(self, stdin_text, root, cwd, rows):
        """Run one request's checks; True when this worker must be retired afterwards."""
        self._chdir(cwd)
        if self.threads is None:
            self.threads = _thread._count()  # the rescuer and the pool's threads
        jobs = [_Job(_Row(*row)) for row in rows]
        checks = [self.runner.Check(job, root, self.send.job) for job in jobs]
        budget_end = time.monotonic() + max(check.timeout for check in checks)
        slots = len(self.slots)
        loaded, retire, imported = self._load(checks, budget_end)
        if not loaded:
            return retire or self._threads_left(len(self.slots) - slots, imported)
        # One after another in this thread: a thread per check costs more than most checks.
        # When one has run RESCUE_SECONDS, the rescuer starts those not started yet at once,
        # each in a thread of its own, as ThreadRunner runs them all.
        self.send.hold()
        start = time.monotonic()
        for check in loaded:
            check.started = start
        with self.lock:
            self.stdin_text, self.queue, self.rescued = stdin_text, list(loaded), []
        while True:
            with self.lock:
                if not self.queue:
                    self.running_since = None
                    break
                check = self.queue.pop(0)
                self.running_since = time.monotonic()
            _then_release(check.call, _NO_LOCK, stdin_text)
        for check, slot in self.rescued:
            if not slot.wait(min(start + check.timeout, budget_end)):
                retire = True  # its thread still runs the check
        return retire or self._threads_left(len(self.slots) - slots, imported)

    def _threads_left(self, new_slots, imported):
        """Whether a check left a thread running (at import or in main()): then this worker is
        retired, since such a thread may write into a later request. The import thread, if
        one ran, is given a moment to end."""
        self.threads += new_slots
        if imported:
            end = time.monotonic() + 0.02
            while _thread._count() > self.threads and time.monotonic() < end:
                time.sleep(0.0005)
        return _thread._count() > self.threads

    def _rescuer(self):
        while True:
            time.sleep(RESCUE_SECONDS)
            with self.lock:
                since = self.running_since
                if since is None or time.monotonic() - since < RESCUE_SECONDS:
                    continue
                if self.send.holding:
                    self.send.release_held()  # the server learns of the checks that finished
                taken, self.queue = self.queue, []
                while len(self.slots) < len(taken):
                    self.slots.append(_Slot())
                for check, slot in zip(taken, self.slots):
                    slot.submit(check, self.stdin_text)
                    self.rescued.append((check, slot))

    def _chdir(self, cwd):
        """The checks run in the payload's cwd, as the command hook runs in the host's; else in /."""
        target = cwd if isinstance(cwd, str) and cwd else "/"
        if target != self.cwd:
            try:
                os.chdir(target)
            except OSError:
                target = "/"
                os.chdir(target)
            self.cwd = target

    def _load(self, checks, budget_end):
        """The checks whose main() is ready: from the cache when no dependency changed, else
        imported afresh, in a thread as ThreadRunner does (an import that hangs is abandoned)."""
        stale = []
        stamps = {}
        for check in checks:
            entry = self.cache.get((check.script, check.root, check.isolate))
            if entry is not None and all(_stamp(path, stamps) == seen for path, seen in zip(entry[0], entry[1])):
                check.main = entry[2]
            else:
                stale.append(check)
        if not stale:
            return checks, False, False
        failed = set()

        def load_serially():
            for check in stale:
                try:
                    self._import(check)
                except BaseException as exc:
                    check.load_error = "import error %s" % type(exc).__name__
                    failed.add(check)

        done = _thread.allocate_lock()
        done.acquire()
        _thread.start_new_thread(_then_release, (load_serially, done))
        finished = done.acquire(True, max(0.001, budget_end - time.monotonic()))
        loaded = []
        for check in checks:
            if check.main is not None and check not in failed and (finished or check not in stale):
                loaded.append(check)
                continue
            job = check.job
            job.kind, job.detail = ("error", check.load_error) if check.load_error else ("timeout", "import timed out")
            self.send.job(job)
        return loaded, not finished, True

    def _import(self, check):
        before = dict(sys.modules)
        check.main = None
        check.load()
        files = {check.script}
        folders = {os.path.dirname(check.script)}
        folders.update(os.path.join(check.root, name) for name in check.isolate)
        for name, module in list(sys.modules.items()):
            if before.get(name) is not module:
                path = getattr(module, "__file__", None)
                if isinstance(path, str):
                    files.add(path)
        for folder in folders:
            files.add(folder)  # a file added or removed there changes the folder's mtime
            try:
                files.update(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".py"))
            except OSError:
                pass
        files = tuple(sorted(files))
        stamps = {}
        self.cache[(check.script, check.root, check.isolate)] = (files, [_stamp(path, stamps) for path in files],
                                                                 check.main)

    def after_reply(self):
        """Housekeeping while the server answers. Every COLLECT_EVERY requests, a full garbage
        collection: each run leaves reference cycles (a capture and its ``buffer``) that the
        young generations promote, and the oldest one is collected too rarely to keep a
        long-lived worker's memory flat. At most once a second: any change of a .py file under
        the hooks tree drops every imported check (a file a check loads by path while it runs
        is seen here)."""
        self.served += 1
        if self.served % COLLECT_EVERY == 0:
            import gc

            gc.collect()
        now = time.monotonic()
        if now - self.scanned < RESCAN_SECONDS:
            return
        self.scanned = now
        tree = _scan(self.hooks_root)
        if tree != self.tree:
            self.tree = tree
            self.cache.clear()


def _sender(base):
    """dispatch_isolated's frame writer, holding back the frames of a request's jobs until its
    done frame, so that they leave in one write (each write wakes the server). Once the
    rescuer has started threads (a check ran long), held and later frames go out at once, as
    ForkRunner's worker sends them, so a neighbour that then ends the worker loses them not."""

    class Sender(base):
        def __init__(self, fd):
            base.__init__(self, fd)
            self.holding = False
            self.held = b""

        def hold(self):
            self.holding = True

        def release_held(self):
            with self.lock:
                self.holding = False
                self._write(b"")

        def frame(self, body):
            frame = len(body).to_bytes(_HEADER, "big") + body
            with self.lock:
                if body and self.holding:
                    self.held += frame
                    return
                self.holding = False
                self._write(frame)

        def _write(self, frame):
            data, self.held = self.held + frame, b""
            while data:
                data = data[os.write(self.fd, data):]

    return Sender


class _NoLock:
    def release(self):
        pass


_NO_LOCK = _NoLock()


class _Row:
    __slots__ = ("index", "name", "path", "args", "timeout", "isolate")

    def __init__(self, index, name, path, args, timeout, isolate):
        self.index, self.name, self.path, self.args, self.timeout = index, name, path, list(args), timeout
        self.isolate = tuple(isolate)


class _Job:
    """What ``Check`` fills in (dispatch_core's Outcome fields a runner sets)."""

    __slots__ = ("row", "ran", "kind", "detail", "elapsed_ms", "output")

    def __init__(self, row):
        self.row = row
        self.ran = False
        self.kind = self.detail = self.elapsed_ms = None
        self.output = ""


class _Slot:
    """A thread kept for the worker's life that runs one check's main() per request."""

    def __init__(self):
        self.go = _thread.allocate_lock()
        self.go.acquire()
        self.done = _thread.allocate_lock()
        self.done.acquire()
        self.task = None
        _thread.start_new_thread(self._loop, ())

    def submit(self, check, stdin_text):
        self.task = (check, stdin_text)
        self.go.release()

    def wait(self, deadline):
        return self.done.acquire(True, max(0.0, deadline - time.monotonic()))

    def _loop(self):
        while True:
            self.go.acquire()
            check, stdin_text = self.task
            self.task = None
            _then_release(check.call, self.done, stdin_text)


def _then_release(function, lock, *args):
    try:
        function(*args)
    except BaseException:
        pass
    finally:
        lock.release()


def _stamp(path, memo):
    stamp = memo.get(path)
    if stamp is None:
        try:
            info = os.stat(path)
            stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        except OSError:
            stamp = ()
        memo[path] = stamp
    return stamp


def _scan(root):
    found = {}
    folders = [root]
    while folders:
        try:
            entries = os.scandir(folders.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != "__pycache__":
                            folders.append(entry.path)
                    elif entry.name.endswith(".py"):
                        info = entry.stat()
                        found[entry.path] = (info.st_mtime_ns, info.st_size, info.st_ino)
                except OSError:
                    pass
    return found


class _Frames:
    """Length-prefixed frames from a pipe; None at end of file."""

    def __init__(self, fd):
        self.fd = fd
        self.buffer = b""

    def next(self):
        while True:
            if len(self.buffer) >= _HEADER:
                size = int.from_bytes(self.buffer[:_HEADER], "big")
                if len(self.buffer) >= _HEADER + size:
                    body, self.buffer = self.buffer[_HEADER:_HEADER + size], self.buffer[_HEADER + size:]
                    return body
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk


if __name__ == "__main__":
    try:
        main(sys.argv)
    finally:
        os._exit(0)
