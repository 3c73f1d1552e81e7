"""One persistent worker of ``hookmux serve``: serves the connections the server hands it, one at a time.

    python -S -E worker.py HOOKS_ROOT CHANNEL_FD PAGE_FD     # started by pool.py, never by hand

For each request on its connection it does what the command hook's process does — reads the
payload, ``dispatch_core.run()`` of the installed hooks tree (manifest, selection, the checks,
rendering, the terminal ledger after the reply) — and writes the reply itself: a request
wakes this process and no other. Standard library only; it imports nothing of the
``hookmux`` package (connection.py and shared.py are loaded from beside it).

It runs the checks with the dispatcher's ``dispatch_runner.Check`` (the import under a
synthetic name, the thread-local streams, the bounded capture) as ``ThreadRunner`` does,
with these differences, which make a warm request cost microseconds:

- a check stays imported between requests, keyed by the files it depends on (the script, the
  ``.py`` files of its folder and of ``_common``, and every module its import loaded), each
  compared by its stamp (``warm.stamp_of``: inode, ctime, size) when a request selects it: a changed file is imported
  afresh for that very request. The whole tree is rescanned at most once a second after a
  reply, which catches files a check loads by path while it runs;
- the checks run one after another in the main thread, not in a new thread each; when one
  has run ``RESCUE_SECONDS`` (a hang, or real work), the rescuer thread starts every check
  not started yet at once, each in a thread kept for the worker's life, so a slow or hanging
  check delays its neighbours by that much only; and when the main thread is still inside a
  check at the deadline (its row's timeout), the rescuer writes the reply from the checks
  that finished and ends the worker;
- the kernel's alarm (SIGALRM, default action) ends the worker a margin after the deadline
  whatever holds the interpreter (a GIL-holding regex); the server kills it a second later
  still (a check that took the alarm away). Either way the server answers its client with
  the advice of the checks that finished (kept in the shared page: shared.py), or empty;
- the checks run in the payload's ``cwd`` (``/`` when it has none or it is gone).

A worker retires (exits after the reply; the server keeps the connection) when a check ran
out of time or left a thread running, since such a thread may write into a later request.
Channel: the server sends ``C`` with a connection's fd, ``R`` to ask for an idle connection
back; the worker answers ``F`` (closed) or ``P`` (handed back). End of file: the server is
gone, and the worker exits.
"""
import _thread
import mmap
import os
import select
import signal
import socket
import sys
import time

RESCAN_SECONDS = 1.0
RESCUE_SECONDS = 0.05
COLLECT_EVERY = 1000
SELECTING_SECONDS = 5.0  # the deadline the server sees before the checks' own is known
THREAD_END_SECONDS = 0.2  # what the import thread may take to end once its work is done (a loaded machine)


def main(argv):
    hooks_root, channel_fd, page_fd = os.path.abspath(argv[1]), int(argv[2]), int(argv[3])
    import connection
    import shared

    # Loaded beside this file; a check's own helper of the same name must not find them.
    del sys.modules["connection"], sys.modules["shared"]

    page = mmap.mmap(page_fd, shared.SIZE)
    os.close(page_fd)
    shared.touch(page)
    channel = socket.socket(fileno=channel_fd)
    secret = _read_exactly(channel, int.from_bytes(_read_exactly(channel, 2), "big"))
    # As dispatch.py sees it: its own folder first, the hooks tree after.
    sys.path[0] = os.path.join(hooks_root, "_dispatch")
    if hooks_root not in sys.path:
        sys.path.append(hooks_root)
    import dispatch_core
    import dispatch_runner
    from _common import ledger
    from _common import manifest as manifest_module
    from _common import warm

    dispatch_runner.prepare().installed().__enter__()  # for the worker's life
    _WARM.append(warm)
    engine = Engine(dispatch_core, dispatch_runner, ledger, manifest_module, warm)
    worker = Worker(engine, hooks_root, channel, page, shared, connection, secret)
    while True:
        data, fds, _, _ = socket.recv_fds(channel, 1, 1)
        if not data:
            os._exit(0)
        if data == b"C" and fds:
            channel.sendall(worker.serve_connection(socket.socket(fileno=fds[0])))
        else:  # a late "R": this worker holds no connection any more
            for fd in fds:
                os.close(fd)


class Engine:
    """The installed tree's dispatcher modules, as the worker uses them."""

    def __init__(self, core, runner, ledger, manifest, warm):
        self.core = core
        self.runner = runner
        self.ledger = ledger
        self.manifest = manifest
        self.warm = warm  # deadlines and grace, file stamps
        self.margin = warm.MARGIN + warm.ALARM_GRACE  # past the deadline, the kernel's alarm


class Worker:
    def __init__(self, engine, hooks_root, channel, page, shared, connection, secret):
        self.engine = engine
        self.hooks_root = hooks_root
        self.channel = channel
        self.page = page
        self.shared = shared
        self.connection = connection
        self.secret = secret
        self.manifest_path = os.path.join(hooks_root, "_dispatch", "manifest.json")
        self.manifest_cache = None
        self.cache = {}  # (script, root, isolate) -> (dependencies, their stamps, main)
        self.slots = []
        self.threads = None  # how many threads run between requests: counted at the first one
        self.tree = _scan(hooks_root)
        self.scanned = time.monotonic()
        self.cwd = None
        self.served = 0
        self.lock = _thread.allocate_lock()
        self.queue, self.rescued, self.running_since = [], [], None
        self.current = None  # the request whose checks run: what the rescuer needs to answer it
        self.retire = False
        # The rescuer sleeps on this lock between requests (no wake-ups while idle); a request
        # whose checks start releases it when the rescuer is not watching already.
        self.wake = _thread.allocate_lock()
        self.wake.acquire()
        self.watching = False
        _thread.start_new_thread(self._rescuer, ())

    # ------------------------------------------------------------ the connection

    def serve_connection(self, sock):
        """Serve ``sock``'s requests; b"F" once it is closed, b"P" when handed back to the server."""
        conn = self.connection.Connection(sock, self.secret)
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN)
        poller.register(self.channel.fileno(), select.POLLIN)
        give_back = False
        wait = self.connection.READ_TIMEOUT  # for the first request; then the keep-alive limit
        while True:
            if conn.idle:
                ready = dict(poller.poll(0 if give_back else wait * 1000))
                if not ready and not give_back:  # silent too long
                    conn.end()
                    return b"F"
                if self.channel.fileno() in ready:
                    message = self.channel.recv(1)
                    if not message:
                        os._exit(0)  # the server is gone
                    give_back = give_back or message == b"R"
                if sock.fileno() not in ready:
                    if give_back:
                        sock.close()  # this copy only: the server keeps the connection
                        return b"P"
                    continue
            request = conn.next_request()
            if request is None:
                conn.end()
                return b"F"
            if request.kind == "health":
                conn.reply(200, b'{"pid": %d}' % os.getppid(), close=not request.keep)
            else:
                self.answer(conn, request)
            if not request.keep:
                conn.end()
                return b"F"
            wait = self.connection.KEEP_ALIVE_SECONDS

    def answer(self, conn, request):
        now = time.monotonic()
        self._mark(self.shared.BUSY, now + SELECTING_SECONDS, now)
        self.shared.keep(self.page, b"")
        later = []
        text = request.body.decode("utf-8", "replace")

        def observe(call, outcomes, failure):
            later.append(self.engine.ledger.of_call(call, outcomes, failure, now))

        self.current = _Current(conn, request, text, now)
        manifest, hooks_root = self._manifest()
        output = self.engine.core.run(request.event, text, manifest=manifest, hooks_root=hooks_root, runner=self,
                                      observe=observe, breaker=True)
        with self.lock:
            current, self.current = self.current, None
            answered = current is None or current.answered
            if not answered:
                current.answered = True
        while answered:  # the rescuer answered this request and ends the worker
            time.sleep(1)
        self._reply(conn, output, request, later)
        if self.retire:
            os._exit(0)
        self._after_reply()

    def _reply(self, conn, output, request, later):
        now = time.monotonic()
        self._mark(self.shared.REPLYING, now + self.connection.READ_TIMEOUT, now)
        try:
            conn.reply(200, output.encode("utf-8", "surrogatepass"), close=not request.keep)
        except OSError:
            pass
        self._mark(self.shared.IDLE, 0.0, time.monotonic())
        for record in later:  # after the reply: the host is not kept waiting for the ledger
            self.engine.ledger.write_dispatch(record)

    def _mark(self, state, deadline, last):
        self.shared.write(self.page, state, deadline, last)

    def _manifest(self):
        """The manifest as ``run()`` takes it: loaded, with its hooks root, read again when the
        file's stamp changes; else its path, and ``run()`` says what is wrong."""
        try:
            info = os.stat(self.manifest_path)
            stamp = self.engine.warm.stamp_of(info)
        except OSError:
            return self.manifest_path, None
        known = self.manifest_cache
        if known is None or known[0] != stamp:
            try:
                loaded = self.engine.manifest.load(self.manifest_path)
            except Exception:
                return self.manifest_path, None
            known = self.manifest_cache = (stamp, loaded, loaded.hooks_root)
        return known[1], known[2]

    # ------------------------------------------------------------ the Runner interface

    def run(self, jobs, stdin_text, hooks_root):
        """Run the selected checks (dispatch_runner's Runner interface), the rescuer watching."""
        self._chdir(_cwd_of(stdin_text))
        self.current.hooks_root = hooks_root
        if self.threads is None:
            self.threads = _thread._count()  # the rescuer's and the main thread
        checks = [self.engine.runner.Check(job, hooks_root) for job in jobs]
        start = time.monotonic()
        budget = max(check.timeout for check in checks)
        budget_end = start + budget
        self._mark(self.shared.BUSY, budget_end + self.engine.margin, start)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, budget + self.engine.margin)
        try:
            retire, imported, slots = self._run_checks(jobs, checks, stdin_text, budget_end)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        self.retire = retire or self._threads_left(len(self.slots) - slots, imported)

    def _run_checks(self, jobs, checks, stdin_text, budget_end):
        slots = len(self.slots)
        loaded, retire, imported = self._load(checks, budget_end)
        start = time.monotonic()
        for check in loaded:
            check.started = start
        with self.lock:
            self.current.jobs, self.current.checks, self.current.start = jobs, loaded, start
            self.queue, self.rescued = list(loaded), []
            if not self.watching:
                self.watching = True
                self.wake.release()
        # One after another in this thread: a thread per check costs more than most checks.
        while True:
            with self.lock:
                if not self.queue:
                    self.running_since = None
                    break
                check = self.queue.pop(0)
                self.running_since = time.monotonic()
            self._run_one(check, stdin_text)
        for check, slot in self.rescued:
            if not slot.wait(min(start + check.timeout, budget_end)):
                retire = True  # its thread still runs the check
        with self.lock:
            _collect(loaded, start, budget_end)
        return retire, imported, slots

    def _run_one(self, check, stdin_text):
        try:
            check.call(stdin_text)
        except BaseException:
            pass
        _not_a_fork()
        self._keep_advice(check)

    def _keep_advice(self, check):
        """When a check that finished in time advised, keep the reply of every such check so far
        in the shared page: the server sends it should this worker die before it replies."""
        output = check.stdout.getvalue()
        if not output or not check.job.row.emits or check.finished - check.started > check.timeout:
            return
        core = self.engine.core
        try:
            with self.lock:
                current = self.current
                if current is None or current.answered or current.jobs is None:
                    return
                contexts = core.contexts_from(output)
                if not contexts:
                    return
                current.advice[id(check.job)] = contexts
                if current.call is None:
                    current.call = core._event.parse(current.text, current.request.event, None)
                advice = [_Advice(current.advice[id(job)]) for job in current.jobs if id(job) in current.advice]
                self.shared.keep(self.page, core.render(current.call, advice).encode("utf-8", "surrogatepass"))
        except Exception:
            pass

    def _threads_left(self, new_slots, imported):
        """Whether a check left a thread running (at import or in main()): then this worker is
        retired, since such a thread may write into a later request. The import thread, if
        one ran, is given up to THREAD_END_SECONDS to end."""
        self.threads += new_slots
        if imported:
            end = time.monotonic() + THREAD_END_SECONDS
            while _thread._count() > self.threads and time.monotonic() < end:
                time.sleep(0.0005)
        return _thread._count() > self.threads

    def _rescuer(self):
        while True:
            self.wake.acquire()  # until a request's checks start
            while self._watch():
                pass

    def _watch(self):
        """One look, RESCUE_SECONDS after the last; False once no request's checks run."""
        time.sleep(RESCUE_SECONDS)
        with self.lock:
            since, current = self.running_since, self.current
            if current is None or current.checks is None:
                self.watching = False
                return False
            if since is None:
                return True
            now = time.monotonic()
            if now - since >= RESCUE_SECONDS and self.queue:
                taken, self.queue = self.queue, []
                while len(self.slots) < len(taken):
                    self.slots.append(_Slot())
                for check, slot in zip(taken, self.slots):
                    slot.submit(self._run_one, check, current.text)
                    self.rescued.append((check, slot))
            pending = [check.timeout for check in current.checks if check.finished is None]
            if not pending or now < current.start + max(pending) or current.answered:
                return True
            # The main thread is still inside a check past its deadline: answer from here.
            current.answered = True
            _collect(current.checks, current.start, current.start + max(c.timeout for c in current.checks))
        self._answer_late(current)  # and ends the worker
        return False

    def _answer_late(self, current):
        core = self.engine.core
        output, failure = "", None
        try:
            call = core._event.parse(current.text, current.request.event, None)
            core.conclude(current.jobs)
            output = core.render(call, current.jobs)
        except BaseException:
            call, failure = None, "dispatcher-error"
        later = []
        try:
            later.append(self.engine.ledger.of_call(call, current.jobs, failure, current.received))
        except Exception:
            pass
        self._reply(current.conn, output, current.request, later)
        try:  # the circuit breaker counts the checks that ran out of time, as dispatch() would have
            held = core._breaker(current.hooks_root)
            if held is not None:
                held.record(current.jobs)
        except BaseException:
            pass
        os._exit(0)

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

    def _after_reply(self):
        """Housekeeping before the next request. Every COLLECT_EVERY requests, a full garbage
        collection: each run leaves reference cycles that the young generations promote, and
        the oldest one is collected too rarely to keep a long-lived worker's memory flat. At
        most once a second: any change of a .py file under the hooks tree drops every imported
        check (a file a check loads by path while it runs is seen here)."""
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


class _Current:
    """The request whose checks run now."""

    __slots__ = ("conn", "request", "text", "received", "jobs", "checks", "start", "answered", "advice", "call",
                 "hooks_root")

    def __init__(self, conn, request, text, received):
        self.conn, self.request, self.text, self.received = conn, request, text, received
        self.jobs = self.checks = self.start = self.hooks_root = None
        self.answered = False
        self.advice = {}  # id(job) -> the contexts of a finished check that advised
        self.call = None  # the parsed payload, once a check advised


def _collect(checks, start, budget_end):
    """Each check's result onto its job once, as ThreadRunner records it."""
    for check in checks:
        if not check.job.ran:
            check.record(start, budget_end)


class _Advice:
    """A finished check's contexts as ``dispatch_core.render`` reads an outcome."""

    __slots__ = ("contexts", "used")

    def __init__(self, contexts):
        self.contexts, self.used = contexts, True


def _not_a_fork():
    """A check that forks without exec returns in the child too: the child ends here, before
    it could answer or read the connection it shares with the worker."""
    if os.getpid() != _PID:
        os._exit(0)


_PID = os.getpid()
_WARM = []  # the tree's _common.warm, once main() loaded it (a check's import evicts _common)


class _Slot:
    """A thread kept for the worker's life that runs one check's main() per request."""

    def __init__(self):
        self.go = _thread.allocate_lock()
        self.go.acquire()
        self.done = _thread.allocate_lock()
        self.done.acquire()
        self.task = None
        _thread.start_new_thread(self._loop, ())

    def submit(self, function, *args):
        self.task = (function, args)
        self.go.release()

    def wait(self, deadline):
        return self.done.acquire(True, max(0.0, deadline - time.monotonic()))

    def _loop(self):
        while True:
            self.go.acquire()
            function, args = self.task
            self.task = None
            _then_release(function, self.done, *args)


def _then_release(function, lock, *args):
    try:
        function(*args)
    except BaseException:
        pass
    finally:
        _not_a_fork()
        lock.release()


def _stamp(path, memo):
    stamp = memo.get(path)
    if stamp is None:
        stamp = memo[path] = _WARM[0].file_stamp(path)
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
                        found[entry.path] = _WARM[0].stamp_of(info)
                except OSError:
                    pass
    return found


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


def _read_exactly(sock, size):
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            os._exit(0)
        data += chunk
    return data


if __name__ == "__main__":
    try:
        main(sys.argv)
    finally:
        os._exit(0)
