"""The resident server: accepts connections on 127.0.0.1 and hands each to a warm worker.

The requests themselves (``POST /<secret>/<EVENT>`` with a hook payload -> the dispatcher's
answer) never pass through this process: the worker a connection is handed to (worker.py)
reads them, runs ``dispatch_core.run()`` of the installed hooks tree — the same engine,
manifest, rows, timeouts, ledger and output as the command hook — and writes each reply,
so a request costs one process wake-up. This process only

- accepts (at most MAX_CONNECTIONS open) and hands each connection to a free worker, or
  keeps it until one is free (asking workers holding idle connections to hand theirs back);
- watches the connections no worker holds, and hands one over when a request starts;
- supervises: a worker that dies leaves its connection here (when a request was under way,
  its client gets the advice of the checks that finished, kept in the shared page: shared.py), one past its deadline is killed, spares are kept warm;
- exits after ``idle_seconds`` without a request, unless a Claude Code session it serves still
  runs (``sessions/<pid>``, noted by the SessionStart hook: its port must not be left to
  another user mid-session), or on SIGTERM.

Bound to 127.0.0.1 only. A connection whose client socket belongs to another user (its uid
from the kernel: hooks/_common/loopback.py) is closed as it is accepted, before a byte of it is
read, and never counts against the limit: MAX_CONNECTIONS holds per user, and only the
server's own user gets any. The secret, size and time limits are checked by the worker
(connection.py) before any work. Where the kernel cannot say who the client is (no Linux
``sock_diag`` or ``/proc/net/tcp``), the server refuses to start (``Unsupported``).
"""
import collections
import os
import selectors
import signal
import socket
import time

from hookmux.serve import files, pool, shared
from hookmux.serve.connection import KEEP_ALIVE_SECONDS, head

IDLE_MINUTES = 60.0
MAX_WORKERS = max(4, 4 * (os.cpu_count() or 1))
MAX_CONNECTIONS = 512
TICK_SECONDS = 0.25
TRIM_SECONDS = 5.0


class Unsupported(OSError):
    """This system cannot tell who is at the other end of a loopback connection."""


def _loopback():
    from hookmux import resources

    return resources.runtime("loopback")


class Server:
    def __init__(self, port, secret, hooks, idle_seconds=IDLE_MINUTES * 60):
        self.loopback = _loopback()
        if not self.loopback.supported():
            raise Unsupported("this system does not say which user a loopback connection comes from "
                              "(Linux /proc/net/tcp): hookmux serve would answer anyone; use command hooks "
                              "(hookmux install without --serve)")
        self.uid = os.getuid()
        self.refused = 0  # connections of other users closed unread
        self.sessions = os.path.join(files.folder(hooks), "sessions")
        self.idle_seconds = idle_seconds
        self.listener = socket.create_server(("127.0.0.1", port), backlog=256)
        self.listener.setblocking(False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, None)
        self.connections = set()  # every open client connection: this process's copy
        self.waiting = collections.deque()  # connections with a request and no worker yet
        self.parked = {}  # connection -> when it was parked (idle, watched here)
        self.last_accept = self.trimmed = time.monotonic()
        self.stopping = False
        self.pool = pool.Pool(hooks, secret.encode("ascii"), most=MAX_WORKERS)
        for worker in self.pool.all:
            self._watch(worker)

    def stop(self):
        self.stopping = True

    def serve_until_idle(self):
        while not self.stopping:
            for key, _ in self.selector.select(TICK_SECONDS):
                if key.fileobj is self.listener:
                    self._accept()
                elif isinstance(key.data, pool.Worker):
                    self._from_worker(key.data)
                else:  # a connection no worker holds: a request starts
                    self.selector.unregister(key.fileobj)
                    self.parked.pop(key.fileobj, None)
                    self._assign(key.fileobj)
            self._supervise(time.monotonic())

    def close(self):
        self.selector.close()
        self.listener.close()
        self.pool.close()
        for connection in self.connections:
            connection.close()

    # ------------------------------------------------------------ connections

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of fds, say: the backlog keeps the rest
                return
            if self._peer_uid(connection) != self.uid:
                self.refused += 1
                connection.close()  # another user's (or gone): not a byte of it read
                continue
            if len(self.connections) >= MAX_CONNECTIONS:
                connection.close()
                continue
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.connections.add(connection)
            self.last_accept = time.monotonic()
            self._assign(connection)

    def _peer_uid(self, connection):
        try:
            return self.loopback.peer_uid(connection)
        except OSError:
            return None

    def _assign(self, connection):
        worker = self.pool.free()
        if worker is None:
            self.waiting.append(connection)
            for holder in self.pool.holders():
                holder.ask_back()
            return
        self._hand(worker, connection)

    def _hand(self, worker, connection):
        try:
            worker.hand(connection)
        except OSError:  # the worker is gone: its end of file comes next; park the connection
            worker.connection = None
            self._park(connection)
            return
        self._top_up()

    def _park(self, connection):
        """No worker holds it: watch it until its next request (or its close) begins."""
        try:
            self.selector.register(connection, selectors.EVENT_READ, "connection")
        except (ValueError, OSError):
            self._drop(connection)
            return
        self.parked[connection] = time.monotonic()

    def _drop(self, connection):
        if self.parked.pop(connection, None) is not None:
            self.selector.unregister(connection)
        self.connections.discard(connection)
        connection.close()

    # ------------------------------------------------------------ workers

    def _watch(self, worker):
        self.selector.register(worker.channel, selectors.EVENT_READ, worker)

    def _from_worker(self, worker):
        try:
            messages = worker.channel.recv(64)
        except OSError:
            messages = b""
        if not messages:
            self._reap(worker)
            return
        for message in messages:
            connection, worker.connection = worker.connection, None
            worker.used = time.monotonic()
            if connection is None:
                continue
            if message == ord("P"):
                self._park(connection)
            else:  # "F": it closed the connection
                self._drop(connection)
        self._next_waiting(worker)

    def _next_waiting(self, worker):
        while self.waiting and worker.connection is None:
            connection = self.waiting.popleft()
            if connection in self.connections:
                self._hand(worker, connection)

    def _reap(self, worker):
        """A worker ended: its connection stays here; a request it was running gets the reply the
        worker kept from the checks that finished (their advice, or empty)."""
        state = worker.state()[0]
        kept = worker.kept() if state == shared.BUSY else b""
        self.selector.unregister(worker.channel)
        self.pool.remove(worker)
        connection = worker.connection
        worker.close(wait=0)
        if connection is not None:
            if state == shared.IDLE:
                self._park(connection)
            else:
                if state == shared.BUSY:
                    try:  # what the socket's buffer takes at once: a client that does not read stalls nobody
                        connection.setblocking(False)
                        connection.send(head(200, len(kept), True) + kept)
                    except OSError:
                        pass
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                self._drop(connection)
        self._top_up()

    def _top_up(self):
        before = set(self.pool.all)
        try:
            self.pool.top_up()
        except OSError:
            pass
        for worker in self.pool.all:
            if worker not in before:
                self._watch(worker)
                self._next_waiting(worker)

    def _supervise(self, now):
        for worker in self.pool.overdue(now):
            worker.kill()  # its end of file follows; _reap answers its client
        for connection, since in list(self.parked.items()):
            if now - since > KEEP_ALIVE_SECONDS:  # as a worker closes an idle one
                self._drop(connection)
        while self.waiting and len(self.pool.all) < self.pool.most:
            worker = self.pool.start()
            self._watch(worker)
            self._next_waiting(worker)
        self._top_up()
        if now - self.trimmed > TRIM_SECONDS:
            self.trimmed = now
            self._trim(now)
        last = max(self.last_accept, self.pool.last_request())
        busy = any(worker.state()[0] != shared.IDLE for worker in self.pool.all)
        if not busy and now - last > self.idle_seconds:
            if self._sessions_alive():
                self.last_accept = now  # leaving would free the port for another user mid-session
            else:
                self.stopping = True

    def _sessions_alive(self):
        """Whether a Claude Code session the SessionStart hook noted (``<serve folder>/sessions/<pid>``)
        still runs; the files of those that ended are swept (``warm.sweep``)."""
        try:
            return files.warm_module().sweep(self.sessions) > 0
        except OSError:
            return False

    def _trim(self, now):
        before = list(self.pool.all)
        self.pool.trim(now)
        for worker in before:
            if worker not in self.pool.all:
                try:
                    self.selector.unregister(worker.channel)
                except (KeyError, ValueError):
                    pass


def serve(hooks, port, secret, idle_seconds, on_ready=None):
    """Bind, record, serve until idle or SIGTERM; return the exit status."""
    hooks = os.path.abspath(hooks)
    server = Server(port, secret, hooks, idle_seconds)
    signal.signal(signal.SIGTERM, lambda *_: server.stop())
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        if on_ready is not None:
            on_ready(server)
        # nothing a worker or its children write to fds 0-2 reaches a terminal or a pipe
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        server.serve_until_idle()
    finally:
        server.close()
    return 0
