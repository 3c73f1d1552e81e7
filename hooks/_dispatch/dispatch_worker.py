"""The one warm worker, forked by the arbiter (dispatch_arbiter.py) with the dispatcher loaded.

    Worker(arbiter, channel, page).serve_calls(pool, calls)   the command hook's calls, one at a time
    Worker(arbiter, channel, page).serve_connections(serve)   hookmux serve: many HTTP requests

Both run the selected checks with ``WarmRunner``, keep them imported between calls, and report
each finished check at once: a command hook's caller reads a frame per check from the call's
frames file, serve keeps the reply of the finished checks in the worker's ``Page``; so a worker
that dies mid-call loses only the advice of the check that killed it. Each writes its state
and its call's deadline to its page, which the arbiter reads, and past which it kills it. docs/reliability.md and docs/serve.md tell the whole model.
"""
import _thread
import gc
import marshal
import mmap
import os
import select
import signal
import struct
import sys
import time

import dispatch_core as core
import dispatch_runner
from _common import ledger, warm
from _common import manifest as manifest_module
from _common.warm import FIFO, open_owned
from dispatch_isolated import FrameWriter

RESCUE_SECONDS = 0.05
RESCAN_SECONDS = 1.0
COLLECT_EVERY = 1000
CALLS_PER_WORKER = 1000  # a pool worker's, then a fresh fork: what checks leave behind stays bounded
SELECTING_SECONDS = 5.0  # the deadline the arbiter sees before the checks' own is known
THREAD_END_SECONDS = 0.2  # what the import thread may take to end once its work is done
MADV_POPULATE_WRITE = 23  # Linux 5.14
PR_SET_PDEATHSIG = 1
IDLE, BUSY, REPLYING = 0, 1, 2


class Page:
    """What a worker shares with the arbiter, with no message per call: its state, its deadline,
    its last call, and the reply of the checks that finished so far (``keep``).

    The worker writes while the arbiter reads, on another core, and ``struct`` moves a double a
    byte at a time: a read that overlaps a write can see half of each (the arbiter once killed a
    worker that had just begun a request, its new state beside its old deadline 0.0). So the
    three are written to whichever of two slots is not current, then a one-byte generation names
    the new one; a reader takes the slot its generation names and keeps it only if the generation
    did not move meanwhile. A worker stopped halfway through a write leaves the last whole one."""

    HEADER = 64
    KEPT_MAX = 256 << 10  # a capped context (dispatch_core.MAX_CONTEXT_CHARS) escaped as JSON fits
    SLOT = struct.Struct("<B7xdd")  # state, deadline, last call
    SLOTS = (8, 32)  # byte 0: the generation; its lowest bit names the current slot
    KEPT_LENGTH = 56

    def __init__(self):
        self.map = mmap.mmap(-1, self.HEADER + self.KEPT_MAX)  # shared with the forked worker

    def mark(self, state, deadline):
        generation = (self.map[0] + 1) & 0xFF
        self.SLOT.pack_into(self.map, self.SLOTS[generation & 1], state, deadline, time.monotonic())
        self.map[0] = generation  # one byte: never seen half-written

    def read(self):
        """(state, deadline, last call) as one write left them, or None if the worker marked
        its page again and again while this read (the caller looks again at its next tick)."""
        for _ in range(8):
            generation = self.map[0]
            fields = self.SLOT.unpack_from(self.map, self.SLOTS[generation & 1])
            if self.map[0] == generation:
                return fields
        return None

    def keep(self, reply, running=None):
        """Keep ``reply`` (b"": none) as the answer should the worker die now, and ``running``
        (``(hooks_root, (event, index, path, name))`` of the row that would be blamed, or None);
        the length is zero while the bytes change, so a worker that dies halfway leaves none.
        Read only once the worker is gone (``kept``), so no generation is needed."""
        struct.pack_into("<I", self.map, self.KEPT_LENGTH, 0)
        data = marshal.dumps((reply, running))
        if len(data) <= self.KEPT_MAX:
            self.map[self.HEADER:self.HEADER + len(data)] = data
            struct.pack_into("<I", self.map, self.KEPT_LENGTH, len(data))

    def kept(self):
        """(reply, running) as ``keep`` left them; (b"", None) when it left none whole."""
        size = struct.unpack_from("<I", self.map, self.KEPT_LENGTH)[0]
        try:
            reply, running = marshal.loads(self.map[self.HEADER:self.HEADER + size]) if 0 < size <= self.KEPT_MAX else (b"", None)
            return (reply, running) if isinstance(reply, bytes) else (b"", None)
        except (ValueError, EOFError, TypeError):
            return b"", None


class Worker:
    """A process forked by the arbiter: ``serve_call`` or ``serve_connections``, then its end."""

    def __init__(self, arbiter, channel, page):
        global _PID
        _PID = os.getpid()
        self.arbiter = arbiter
        self.channel = channel
        self.page = page
        if arbiter.prctl is not None:  # dies with the arbiter, which outlasts a call under way
            arbiter.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != arbiter.pid:
                os._exit(0)  # it died before
        gc.freeze()  # what the arbiter loaded is never traversed (nor its pages written) by a collection
        if arbiter.madvise is not None:
            _copy_pages(arbiter.madvise)

    def publish(self, deadline):
        """The call's checks are due by ``deadline``: the arbiter kills this worker
        ``warm.KILL_GRACE`` past it if it is still running them then (the one way a warm worker's
        stuck check ends). It is told when that is sooner than its next look."""
        self.page.mark(BUSY, deadline)
        if deadline - time.monotonic() < self.arbiter.source.TICK:
            try:
                self.channel.send(b"t")
            except OSError:
                pass

    # ------------------------------------------------------------ a command hook's call

    def serve_calls(self, pool, calls):
        """Claim the calls announced on the ``calls`` FIFO of the pool's folder ``pool`` (an fd)
        one at a time, each run as its caller's process would, its frames written; after one
        that left a thread running, one of older code, CALLS_PER_WORKER of them, or any
        failure of its own, return (the process ends and the arbiter forks a fresh one)."""
        self.runner = None
        for _ in range(CALLS_PER_WORKER):
            name = self._claim(pool, calls)
            if name is None or not self._serve_call(pool, name):
                return
            self.channel.send(b"i")

    def _claim(self, pool, calls):
        """The name of the call this worker took (renamed ``.taken``), or None: the arbiter left."""
        while True:
            ready = select.select([calls, self.channel], [], [])[0]
            if self.channel in ready:
                return None
            try:
                name = os.read(calls, 64).decode("ascii", "replace").strip()
            except (BlockingIOError, InterruptedError):
                continue  # another worker read it
            if not name.replace("-", "").isdigit():
                continue
            try:
                os.rename(name + ".call", name + ".taken", src_dir_fd=pool, dst_dir_fd=pool)
            except OSError:
                continue  # taken back by its caller, who gave up waiting
            self.page.mark(BUSY, time.monotonic() + SELECTING_SECONDS)  # an arbiter leaving now waits for it
            self.channel.send(b"c")
            return name

    def _serve_call(self, pool, name):
        """Run the call ``name``; whether this worker may take another."""
        try:  # only a file of this user's, made for nobody else, is a call (else this raises)
            with open(open_owned(name + ".taken", os.O_RDONLY, pool), "rb") as handle:
                call = marshal.loads(handle.read())
        finally:
            os.unlink(name + ".taken", dir_fd=pool)
        frames = open_owned(name + ".frames", os.O_WRONLY | os.O_APPEND, pool)
        try:
            done = open_owned(name + ".done", os.O_WRONLY | os.O_NONBLOCK, pool, FIFO)  # fails if the caller is gone
        except BaseException:
            os.close(frames)
            raise
        try:
            current = call[0] == self.arbiter.stamp
            send = FrameWriter(frames)
            send.frame(marshal.dumps(("hello", os.getpid(), current)))
            if current:
                argv, cwd, umask, environ, stdin_text, hooks_root, rows = call[1:]
                _become(argv, cwd, umask, environ)
                jobs = [core.Outcome(manifest_module.Row(None, index, {"script": path, "args": args, "timeout": timeout,
                                                                       "isolate": isolate}, "/"))
                        for index, path, args, timeout, isolate in rows]
                if self.runner is None:
                    self.runner = WarmRunner(self.page, report=send.job, publish=self.publish, cache={})
                    self.threads = _thread._count()
                    self.root = self.caller = None
                    self.intact = Intact()
                if call[1:5] != self.caller:  # what a check read at import time may differ: imported anew
                    self.runner.cache.clear()
                    self.caller = call[1:5]
                self.runner.report = send.job
                self.runner.run(jobs, stdin_text, hooks_root)
                send.done()
            os.write(done, b"d")
            self.page.mark(IDLE, 0.0)
            _let_the_caller_run()
        finally:
            os.close(done)
            os.close(frames)
        if not current or self._threads_left() or not self.intact.holds():
            return False
        self._rescan(hooks_root)  # after the answer: nobody waits for it
        return True

    # ------------------------------------------------------------ hookmux serve

    def serve_connections(self, serve):
        """Serve the connections the arbiter hands over, until it is gone."""
        import socket

        self.page.map[Page.HEADER:] = bytes(Page.KEPT_MAX)  # faulted in now, not over the worker's life
        self.serve = serve
        self.http = serve.http
        self.runner = WarmRunner(self.page, report=self._finished, publish=self.publish, cache={})
        self.manifest_path = os.path.join(serve.hooks, "_dispatch", "manifest.json")
        self.manifest_cache = None
        self.root, self.tree, self.scanned = serve.hooks, _scan(serve.hooks), time.monotonic()
        self.served = 0
        self.current = self.cwd = None
        self.threads = _thread._count()
        self.intact = Intact()
        while True:
            data, fds, _, _ = socket.recv_fds(self.channel, 1, 1)
            if not data:
                return
            if data == b"C" and fds:
                self.channel.sendall(self._connection(socket.socket(fileno=fds[0])))
            else:  # a late "R": this worker holds no connection any more
                for fd in fds:
                    os.close(fd)

    def _connection(self, sock):
        """Serve ``sock``'s requests; b"F" once it is closed, b"P" when handed back."""
        conn = self.http.Connection(sock, self.serve.secret)
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN)
        poller.register(self.channel.fileno(), select.POLLIN)
        give_back = False
        wait = self.http.READ_TIMEOUT  # for the first request; then the keep-alive limit
        while True:
            if conn.idle:
                ready = dict(poller.poll(0 if give_back else wait * 1000))
                if not ready and not give_back:  # silent too long
                    conn.end()
                    return b"F"
                if self.channel.fileno() in ready:
                    message = self.channel.recv(1)
                    if not message:
                        os._exit(0)  # the arbiter is gone
                    give_back = give_back or message == b"R"
                if sock.fileno() not in ready:
                    if give_back:
                        sock.close()  # this copy only: the arbiter keeps the connection
                        return b"P"
                    continue
            request = conn.next_request()
            if request is None:
                conn.end()
                return b"F"
            if request.kind == "health":
                conn.reply(200, b'{"pid": %d}' % os.getppid(), close=not request.keep)
            else:
                self._answer(conn, request)
            if not request.keep:
                conn.end()
                return b"F"
            wait = self.http.KEEP_ALIVE_SECONDS

    def _answer(self, conn, request):
        self.page.mark(BUSY, time.monotonic() + SELECTING_SECONDS)
        self.page.keep(b"")
        later = []
        received = time.monotonic()
        text = request.body.decode("utf-8", "replace")

        def observe(call, outcomes, failure):
            later.append(ledger.of_call(call, outcomes, failure, received))

        self.current = _Current(conn, request, text, received)
        manifest, hooks_root = self._manifest()
        output = core.run(request.event, text, manifest=manifest, hooks_root=hooks_root, runner=self,
                          observe=observe, breaker=True)
        with self.runner.lock:
            self.current = None
        self._reply(conn, output, request, later)
        if self._threads_left() or not self.intact.holds():
            os._exit(0)  # retired: a thread a check left may write into a later request, a patch leak into it
        self._after_reply()

    def run(self, jobs, stdin_text, hooks_root):
        """dispatch_core's Runner interface: the checks in the payload's cwd, by the warm runner."""
        self._chdir(_cwd_of(stdin_text))
        current = self.current
        with self.runner.lock:
            current.jobs, current.hooks_root = jobs, hooks_root
            self._keep(current)
        self.runner.run(jobs, stdin_text, hooks_root)

    def _reply(self, conn, output, request, later):
        self.page.mark(REPLYING, time.monotonic() + self.http.READ_TIMEOUT)
        try:
            conn.reply(200, output.encode("utf-8", "surrogatepass"), close=not request.keep)
        except OSError:
            pass
        self.page.mark(IDLE, 0.0)
        _let_the_caller_run()
        for record in later:  # after the reply: the host is not kept waiting for the ledger
            ledger.write_dispatch(record)

    def _finished(self, job):
        """A check finished: keep the reply of every check that advised in time so far, and the
        row the arbiter blames should the worker die now (``_keep``)."""
        try:
            with self.runner.lock:
                current = self.current
                if current is None or current.jobs is None:
                    return
                current.finished.add(id(job))
                if job.output and job.row.emits and job.elapsed_ms <= job.row.timeout * 1000:
                    contexts = core.contexts_from(job.output)
                    if contexts:
                        current.advice[id(job)] = contexts
                self._keep(current)
        except Exception:
            pass

    def _keep(self, current):
        """The page's answer for a worker that dies now (under the runner's lock): the advice of
        the checks that finished, and the first row that has not, which the arbiter counts in
        the breaker as the pool's caller does (dispatch_isolated.settle)."""
        reply = b""
        if current.advice:
            if current.call is None:
                current.call = core._event.parse(current.text, current.request.event, None)
            advice = [_Advice(current.advice[id(one)]) for one in current.jobs if id(one) in current.advice]
            reply = core.render(current.call, advice).encode("utf-8", "surrogatepass")
        running = (current.hooks_root, [(job.row.event, job.row.index, job.row.path, job.row.name)
                                        for job in current.jobs if id(job) not in current.finished])
        self.page.keep(reply, running)

    def _manifest(self):
        """The manifest loaded, with its hooks root, read again when the file's stamp changes;
        else its path, and ``run()`` says what is wrong."""
        try:
            stamp = warm.stamp_of(os.stat(self.manifest_path))
        except OSError:
            return self.manifest_path, None
        known = self.manifest_cache
        if known is None or known[0] != stamp:
            try:
                loaded = manifest_module.load(self.manifest_path)
            except Exception:
                return self.manifest_path, None
            known = self.manifest_cache = (stamp, loaded, loaded.hooks_root)
        return known[1], known[2]

    def _chdir(self, cwd):
        """The checks run in the payload's cwd, as the command hook runs in the host's; else in /."""
        target = cwd or "/"
        if target != self.cwd:
            try:
                os.chdir(target)
            except OSError:
                target = "/"
                os.chdir(target)
            self.cwd = target

    def _threads_left(self):
        """Whether a check left a thread running (the import thread is given THREAD_END_SECONDS)."""
        self.threads += self.runner.new_slots
        self.runner.new_slots = 0
        end = time.monotonic() + (THREAD_END_SECONDS if self.runner.imported else 0)
        while _thread._count() > self.threads and time.monotonic() < end:
            time.sleep(0.0005)
        return _thread._count() > self.threads

    def _after_reply(self):
        """Every COLLECT_EVERY requests a full collection (a long-lived worker's memory stays
        flat); then ``_rescan`` of the server's tree."""
        self.served += 1
        if self.served % COLLECT_EVERY == 0:
            gc.collect()
        self._rescan(self.serve.hooks)

    def _rescan(self, root):
        """At most once a second, and after a call that imported a check, any change of a .py
        file under ``root`` drops every imported check (a file a check loads by path while it
        runs is seen here), unless the change is only the files that call imported."""
        now = time.monotonic()
        if root != self.root:
            self.root, self.tree, self.scanned = root, _scan(root), now
            return
        if now - self.scanned >= RESCAN_SECONDS or self.runner.fresh:
            self.scanned = now
            tree = _scan(root)
            if tree != self.tree:
                changed = {path for path in set(tree) | set(self.tree) if tree.get(path) != self.tree.get(path)}
                if not changed <= self.runner.fresh:  # not only what this call imported anew
                    self.runner.cache.clear()
                self.tree = tree


class Intact:
    """What a check could change in the worker's process and the next call would inherit: the
    shared modules (each still the one loaded, its namespace as it was), ``sys.path`` and the
    import machinery, the streams, descriptors 0-2, ``os.environ`` itself, the signal handlers,
    hooks and limits. Taken once the worker is ready; ``holds()`` after each call says whether
    the worker may serve another (else it ends and the arbiter forks a fresh one), and takes in
    the standard library modules that call imported, so a later call's patch of them is seen.
    A check's own modules (its script, its helpers) keep their state: that is what the cache is.
    A namespace is kept as the tuples of its names and values, compared item by identity first:
    in order, which is far cheaper than comparing dicts (0.6 ms for serve's 5,000 names)."""

    SIGNALS = ("SIGINT", "SIGTERM", "SIGPIPE", "SIGCHLD", "SIGALRM", "SIGHUP", "SIGUSR1", "SIGUSR2")
    BOOKKEEPING = ("__warningregistry__",)  # what the interpreter itself adds to a module's namespace

    def __init__(self):
        import builtins

        self.stdlib = os.path.dirname(os.__file__) + os.sep
        self.modules = {}  # name: [module, names, values, shared]
        self.seen = set()
        self._take(list(sys.modules.items()))
        self.builtins = builtins.__dict__
        self.builtin_items = (tuple(self.builtins), tuple(self.builtins.values()))
        self.state = self._state()

    def holds(self):
        """Whether the process is as it was; then the modules the call loaded are taken in."""
        try:
            current = sys.modules
            for name, entry in self.modules.items():
                module, names, values, shared = entry
                if shared and current.get(name) is not module:
                    return False
                now = module.__dict__
                if tuple(now.values()) != values or tuple(now) != names:
                    grown = self._grew(name, now, dict(zip(names, values)))
                    if grown is None:
                        return False
                    entry[1:3] = grown
            if (tuple(self.builtins), tuple(self.builtins.values())) != self.builtin_items or self._state() != self.state:
                return False
            self._take([(name, module) for name, module in list(current.items()) if name not in self.seen])
            return True
        except Exception:
            return False

    @classmethod
    def _grew(cls, name, now, namespace):
        """The namespace ``now`` (as names, values) when its only change from ``namespace`` is a
        submodule the import of which set it on its package, or the interpreter's bookkeeping;
        else None."""
        for key, value in now.items():
            if key in namespace:
                if namespace[key] is not value and namespace[key] != value and key not in cls.BOOKKEEPING:
                    return None
            elif key not in cls.BOOKKEEPING and (getattr(value, "__name__", None) != name + "." + key
                                                 or type(value) is not type(sys)):
                return None
        if any(key not in now for key in namespace):
            return None  # a name went
        return [tuple(now), tuple(now.values())]

    def _take(self, items):
        for name, module in items:
            self.seen.add(name)
            if name == "sys" or name.startswith(dispatch_runner.MODULE_PREFIX) or name == "__main__":
                continue  # sys: argv is each caller's (below, what of it counts); a check's: its own state
            namespace = getattr(module, "__dict__", None)
            if not isinstance(namespace, dict):
                continue
            if name.split(".", 1)[0] in dispatch_runner.ALWAYS_ISOLATED:
                # Each check imports these anew (dispatch_runner.Check.load): what must hold is
                # the dispatcher's own copy, which it holds by reference, not sys.modules' entry.
                if name in _OURS:
                    self.modules[name] = [module, tuple(namespace), tuple(namespace.values()), False]
                continue
            origin = getattr(getattr(module, "__spec__", None), "origin", None)
            if origin in ("built-in", "frozen") or (isinstance(origin, str) and origin.startswith(self.stdlib)
                                                     and "site-packages" not in origin) or name in _OURS:
                self.modules[name] = [module, tuple(namespace), tuple(namespace.values()), True]

    def _state(self):
        fds = []
        for fd in (0, 1, 2):
            try:
                info = os.fstat(fd)
                fds.append((info.st_dev, info.st_ino, info.st_rdev))
            except OSError:
                fds.append(None)
        handlers = tuple(signal.getsignal(getattr(signal, name)) for name in self.SIGNALS if hasattr(signal, name))
        return (list(sys.path), list(sys.meta_path), list(sys.path_hooks), sys.path_importer_cache is not None,
                id(os.environ), sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__,
                sys.excepthook, sys.displayhook, sys.gettrace(), sys.getprofile(), sys.getrecursionlimit(),
                sys.getswitchinterval(), gc.isenabled(), tuple(fds), handlers)


# The dispatcher's own modules: loaded by the arbiter, shared by every call.
_OURS = {"dispatch_core", "dispatch_runner", "dispatch_isolated", "dispatch_transport", "dispatch_arbiter",
         "dispatch_worker", "dispatch_http", "_common", "_common.event", "_common.hosts", "_common.manifest",
         "_common.warm", "_common.ledger", "_common.breaker", "_common.state", "_common.redact", "_common.loopback"}


def _let_the_caller_run():
    """Yield the CPU once the answer is out. The answer wakes its caller (the host, the pool's
    hook process) on this worker's own CPU, where it waits for whatever the worker does next:
    0.5 ms of work after the reply added 0.35 ms to serve's median (docs/serve.md)."""
    try:
        os.sched_yield()
    except (AttributeError, OSError):
        pass


class _Current:
    """The request whose checks run now."""

    __slots__ = ("conn", "request", "text", "received", "jobs", "advice", "call", "hooks_root", "finished")

    def __init__(self, conn, request, text, received):
        self.conn, self.request, self.text, self.received = conn, request, text, received
        self.jobs = self.hooks_root = self.call = None
        self.advice = {}  # id(job) -> the contexts of a finished check that advised
        self.finished = set()  # id(job) of each finished check


class _Advice:
    """A finished check's contexts as ``dispatch_core.render`` reads an outcome."""

    __slots__ = ("contexts", "used")

    def __init__(self, contexts):
        self.contexts, self.used = contexts, True


# ---------------------------------------------------------------- the warm runner


class WarmRunner:
    """dispatch_runner's Runner interface for a warm worker: ``dispatch_runner.Check`` (the import
    under a synthetic name, thread-local streams, bounded capture) with a thread per check only
    when it is needed:

    - the checks run one after another in this thread; when one has run RESCUE_SECONDS (a hang,
      or real work), the rescuer thread starts every check not started yet, each in a thread
      kept for the worker's life;
    - ``publish(deadline)`` says when the call's checks are due: at the start, the largest
      timeout; then, as checks finish, the largest timeout of those still running (so a call
      whose every unfinished check is past its own timeout is due now). The arbiter, which reads
      it on the worker's page, kills the worker ``warm.KILL_GRACE`` past it, whatever holds the
      interpreter: the only way a warm worker's stuck check ends. What finished was reported;
      this thread, once its own checks ran, waits for that kill rather than answer without a
      check that still runs (``_expire``);
    - ``cache`` (a dict) keeps a check imported between calls, keyed by the files it depends
      on (its script, the .py files of its folder and of ``_common``, every module its import
      loaded), each compared by ``warm.stamp_of`` when a call selects it.
    ``report(job)`` is called as each check finishes, from the thread that ran it."""

    def __init__(self, page, report, publish, cache=None):
        self.page = page
        self.report = report
        self.publish = publish
        self.cache = cache
        self.lock = _thread.allocate_lock()
        self.slots = []
        self.new_slots = 0
        self.queue, self.rescued, self.running_since = [], [], None
        self.checks = None  # the checks of the call that runs, for the rescuer
        self.due = 0.0  # the deadline published last
        self.imported = False
        self.fresh = set()  # the files of the checks this call imported anew (their cache entries)
        self.wake = _thread.allocate_lock()  # the rescuer sleeps on it between calls: no wake-ups
        self.wake.acquire()
        self.watching = False
        started = _thread.allocate_lock()
        started.acquire()
        _thread.start_new_thread(self._rescuer, (started,))
        started.acquire()  # counted in _thread._count() from now on: the worker's baseline includes it
        dispatch_runner.prepare().installed().__enter__()  # the checks' streams, for the worker's life
        self.streams = (sys.stdin, sys.stdout, sys.stderr)

    def run(self, jobs, stdin_text, hooks_root):
        self.jobs = jobs
        checks = [dispatch_runner.Check(job, hooks_root, self.report) for job in jobs]
        budget_end = time.monotonic() + max(check.timeout for check in checks)
        self.due = budget_end
        self.publish(budget_end)
        before = len(self.slots)
        loaded = self._load(checks, budget_end)
        sys.stdin, sys.stdout, sys.stderr = self.streams  # what a check's import did to them is undone
        self._run_loaded(loaded, stdin_text, budget_end)
        sys.stdin, sys.stdout, sys.stderr = self.streams
        self.new_slots = len(self.slots) - before

    def _run_loaded(self, loaded, stdin_text, budget_end):
        start = time.monotonic()
        for check in loaded:
            check.started = start
        with self.lock:
            self.checks, self.start, self.budget_end = loaded, start, budget_end
            self.queue, self.rescued, self.text = list(loaded), [], stdin_text
            if not self.watching:
                self.watching = True
                self.wake.release()
        while True:  # one after another in this thread: a thread per check costs more than most checks
            with self.lock:
                if not self.queue:
                    self.running_since = None
                    break
                check = self.queue.pop(0)
                self.running_since = time.monotonic()
            _run_one(check, stdin_text)
        stuck = [check for check, slot in self.rescued if not slot.wait(min(start + check.timeout, budget_end))]
        if stuck:
            self._expire()  # a thread still runs its check
        with self.lock:
            self.checks = None
            for check in loaded:
                check.record(start, budget_end)

    def _expire(self):
        """A check still runs past its timeout: the call is due now, and the arbiter ends it."""
        self.publish(time.monotonic())
        while True:
            time.sleep(1)

    def _rescuer(self, started):
        started.release()
        while True:
            self.wake.acquire()  # until a call's checks start
            while self._watch():
                pass

    def _watch(self):
        """One look, RESCUE_SECONDS after the last; False once no call's checks run."""
        time.sleep(RESCUE_SECONDS)
        with self.lock:
            since, checks = self.running_since, self.checks
            if checks is None:
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
                    slot.submit(_run_one, check, self.text)
                    self.rescued.append((check, slot))
            pending = [check.timeout for check in checks if check.finished is None]
            due = min(self.budget_end, self.start + max(pending)) if pending else self.due
            if due < self.due:
                self.due = due
                self.publish(due)
        return True

    def _load(self, checks, budget_end):
        """The checks whose main() is ready: from the cache when no dependency changed, else
        imported afresh, in a thread as ThreadRunner does (an import that hangs is abandoned)."""
        stale, memo = [], {}
        for check in checks:
            entry = None if self.cache is None else self.cache.get((check.script, check.root, check.isolate))
            if entry is not None and all(_stamp(path, memo) == seen for path, seen in zip(entry[0], entry[1])):
                check.main = entry[2]
            else:
                stale.append(check)
        self.imported, self.fresh = bool(stale), set()
        if not stale:
            return checks
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
        if not done.acquire(True, max(0.001, budget_end - time.monotonic())):
            for check in stale:  # an import still runs at the deadline
                if check.main is None and check not in failed:
                    check.job.kind, check.job.detail = "timeout", "import timed out"
                    self.report(check.job)
            self._expire()
        loaded = []
        for check in checks:
            if check.main is not None and check not in failed:
                loaded.append(check)
                continue
            job = check.job
            job.kind, job.detail = ("error", check.load_error) if check.load_error else ("timeout", "import timed out")
            self.report(job)
        return loaded

    def _import(self, check):
        before = dict(sys.modules)
        check.main = None
        check.load()
        if self.cache is None:
            return
        files = {check.script}
        folders = {os.path.dirname(check.script)}
        folders.update(os.path.join(check.root, name) for name in check.isolate)
        for name, module in list(sys.modules.items()):
            path = getattr(module, "__file__", None) if before.get(name) is not module else None
            if isinstance(path, str):
                files.add(path)
        for folder in folders:
            files.add(folder)  # a file added or removed there changes the folder's mtime
            try:
                files.update(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".py"))
            except OSError:
                pass
        files, memo = tuple(sorted(files)), {}
        self.cache[(check.script, check.root, check.isolate)] = (files, [_stamp(path, memo) for path in files],
                                                                 check.main)
        self.fresh.update(files)


def _run_one(check, stdin_text):
    try:
        check.call(stdin_text)
    except BaseException:
        pass
    _not_a_fork()


class _Slot:
    """A thread kept for the worker's life that runs one check's main() per call."""

    def __init__(self):
        self.go, self.done = _thread.allocate_lock(), _thread.allocate_lock()
        self.go.acquire()
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


_PID = None


def _not_a_fork():
    """A check that forks without exec returns in the child too: the child ends here, before
    it could answer or read what it shares with the worker."""
    if os.getpid() != _PID:
        os._exit(0)


def _become(argv, cwd, umask, environ):
    """Take on the caller's argv, cwd, umask and environment: a check sees the caller's process."""
    sys.argv = argv
    os.chdir(cwd)
    os.umask(umask)
    if environ != os.environ:
        for name in [name for name in os.environ if name not in environ]:
            del os.environ[name]
        for name, value in environ.items():
            if os.environ.get(name) != value:
                os.environ[name] = value


def page_toucher():
    """``madvise`` from the C library (loaded by the arbiter, once), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        madvise = ctypes.CDLL(None).madvise
        madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        return madvise
    except Exception:
        return None


def death_pact():
    """``prctl`` from the C library (loaded by the arbiter, once), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None).prctl
        prctl.argtypes = [ctypes.c_int, ctypes.c_ulong]
        return prctl
    except Exception:
        return None


def _copy_pages(madvise):
    """Write-fault every private writable page now, while nobody waits: after it, a call writes
    to pages of its own and takes no copy-on-write fault."""
    try:
        with open("/proc/self/maps", "rb") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return
    for line in lines:
        fields = line.split()
        if len(fields) >= 2 and fields[1] == b"rw-p":
            start, end = (int(bound, 16) for bound in fields[0].split(b"-"))
            if end - start <= 64 << 20:  # a large reservation is not worth populating
                madvise(start, end - start, MADV_POPULATE_WRITE)


def _stamp(path, memo):
    stamp = memo.get(path)
    if stamp is None:
        stamp = memo[path] = warm.file_stamp(path)
    return stamp


def _scan(root):
    found, folders = {}, [root]
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
                        found[entry.path] = warm.stamp_of(entry.stat())
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
