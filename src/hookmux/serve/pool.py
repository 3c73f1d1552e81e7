"""The server's check workers (worker.py): started, handed connections, supervised, stopped.

    pool = Pool(hooks, secret)      # starts SPARE workers
    worker = pool.free()            # a worker holding no connection, or None
    worker.hand(connection)         # it serves that connection's requests until it says otherwise

A worker owns the connection it is handed: it reads each request, runs the dispatcher and
the selected checks, and writes the reply itself, so a request wakes no other process. It
tells the server over its channel (a socketpair) only when it lets the connection go:
``F`` (closed) or ``P`` (handed back, idle, when the server asked with ``R`` because another
connection waits for a worker). The server keeps its own copy of every connection, so a
worker that dies (``os._exit``, a signal, the kernel's alarm at its deadline) loses nothing
but the request it was running: the shared page (shared.py) says whether one was under
way, and its client then gets the reply the worker kept there from the checks that finished
(their advice; empty when none advised: fail open).
"""
import mmap
import os
import socket
import subprocess
import sys
import tempfile
import time

from hookmux.serve import files, shared

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
SPARE = 2  # free workers kept warm
IDLE_TRIM_SECONDS = 120.0  # a free worker above SPARE unused this long is stopped


class Worker:
    def __init__(self, hooks, secret):
        self.channel, theirs = socket.socketpair()
        page = tempfile.TemporaryFile()
        try:
            page.truncate(shared.SIZE)
            self.page = mmap.mmap(page.fileno(), shared.SIZE)
            self.proc = subprocess.Popen(
                [sys.executable, "-S", "-E", WORKER, hooks, str(theirs.fileno()), str(page.fileno())],
                pass_fds=(theirs.fileno(), page.fileno()), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd="/", close_fds=True)
        except BaseException:
            self.channel.close()
            raise
        finally:
            theirs.close()
            page.close()
        self.channel.sendall(len(secret).to_bytes(2, "big") + secret)
        self.connection = None
        self.asked = False  # to hand its idle connection back
        self.used = time.monotonic()

    def hand(self, connection):
        socket.send_fds(self.channel, [b"C"], [connection.fileno()])
        self.connection = connection
        self.asked = False

    def ask_back(self):
        """Ask for its connection back when it is idle (another connection waits for a worker)."""
        if not self.asked:
            self.asked = True
            try:
                self.channel.send(b"R")
            except OSError:
                pass

    def state(self):
        return shared.read(self.page)

    def kept(self):
        """The reply it kept from its request's finished checks (shared.keep), b"" when none."""
        return shared.kept(self.page)

    def kill(self):
        try:
            self.proc.kill()
        except OSError:
            pass

    def close(self, wait=1.0):
        """Stop it: end of file on its channel ends it; one that does not end in ``wait`` is killed."""
        self.channel.close()
        try:
            self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            self.kill()
            self.proc.wait()
        self.page.close()


class Pool:
    """Every worker; ``free()`` gives one holding no connection, starting one if need be."""

    def __init__(self, hooks, secret, spare=SPARE, most=8):
        self.hooks = hooks
        self.secret = secret
        self.spare = spare
        self.most = most
        self.all = []
        self.top_up()

    def free(self):
        """A worker holding no connection (the one used last: its checks are warm), or None at ``most``."""
        idle = [worker for worker in self.all if worker.connection is None]
        if idle:
            return max(idle, key=lambda worker: worker.used)
        return self.start() if len(self.all) < self.most else None

    def top_up(self):
        """Keep ``spare`` workers free, so that a new connection finds a warm one."""
        missing = self.spare - sum(1 for worker in self.all if worker.connection is None)
        for _ in range(min(missing, self.most - len(self.all))):
            self.start()

    def start(self):
        worker = Worker(self.hooks, self.secret)
        self.all.append(worker)
        return worker

    def holders(self):
        return [worker for worker in self.all if worker.connection is not None]

    def remove(self, worker):
        if worker in self.all:
            self.all.remove(worker)

    def overdue(self, now):
        """Workers past their own deadline by ``warm.KILL_GRACE`` (a check that took the alarm away)."""
        grace = files.warm_module().KILL_GRACE
        late = []
        for worker in self.all:
            state, deadline, _ = worker.state()
            if state != shared.IDLE and now > deadline + grace:
                late.append(worker)
        return late

    def last_request(self):
        return max((worker.state()[2] for worker in self.all), default=0.0)

    def trim(self, now):
        """Stop free workers beyond ``spare`` unused for IDLE_TRIM_SECONDS (after a burst)."""
        idle = sorted((worker for worker in self.all if worker.connection is None), key=lambda worker: worker.used)
        for worker in idle[:max(0, len(idle) - self.spare)]:
            if now - max(worker.used, worker.state()[2]) > IDLE_TRIM_SECONDS:
                self.remove(worker)
                worker.close()

    def close(self):
        workers, self.all = self.all, []
        for worker in workers:
            worker.close()
