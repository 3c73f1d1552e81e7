"""The one supervisor of the warm workers, as gunicorn's arbiter is of its workers.

    python3 -S -E dispatch_arbiter.py pool POOL_FOLDER               (dispatch_isolated.launch)
    python3 -S -E dispatch_arbiter.py serve HOOKS LISTENER_FD IDLE    (hookmux serve, by exec)

It loads the dispatcher once, forks its workers (dispatch_worker.py) from itself, keeps enough
of them free, replaces one that died, kills one past the deadline it published on its page,
and leaves when idle. It never runs a check. Where calls come from is the one difference:
``Pool``, the command hook's (a FIFO the free workers read; a worker serves one call at a
time, call after call), or ``Serve``, Claude Code's HTTP hooks (a loopback listener whose connections it hands
to workers, keeping a copy of each; a worker serves many). docs/reliability.md, docs/serve.md.
"""
import _socket
import collections
import fcntl
import json
import os
import select
import signal
import sys
import time

import dispatch_isolated  # it puts the hooks tree on sys.path, for _common
import dispatch_runner
import dispatch_worker
from _common import warm
from dispatch_worker import BUSY, IDLE, REPLYING

PRELOADED = ("re", "json", "_sha2", "_sha256")  # what most checks import: loaded once, here


def main(argv):
    os.chdir("/")
    source = Pool(argv[2]) if argv[1] == "pool" else Serve(argv[2], int(argv[3]), float(argv[4]))
    dispatch_runner.prepare()
    dispatch_runner.PRISTINE.update(dispatch_runner.ALWAYS_ISOLATED)  # no check has run here
    for module in PRELOADED:
        try:
            __import__(module)
        except ImportError:
            pass
    Arbiter(source).run()


class Child:
    def __init__(self, pid, channel, page):
        self.pid, self.channel, self.page = pid, channel, page
        self.busy = False  # serving a call (Pool) or holding a connection (Serve)
        self.connection = None
        self.asked = False  # to hand its idle connection back
        self.killed = False  # at its deadline: what it was running timed out
        self.used = time.monotonic()


class Arbiter:
    def __init__(self, source):
        self.source = source
        self.stamp = dispatch_isolated.code_stamp()  # of the code loaded now: an upgrade makes it stale
        self.madvise = dispatch_worker.page_toucher()
        self.prctl = dispatch_worker.death_pact()
        self.pid = os.getpid()
        self.children = {}  # pid -> Child
        self.selector = _Watched()
        self.wake_r, self.wake_w = os.pipe()
        self.stopping = False

    def run(self):
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)  # a worker that dies wakes us at once
        signal.signal(signal.SIGCHLD, _ignore)
        signal.signal(signal.SIGTERM, self.stop)
        self.selector.register(self.wake_r, None)
        try:
            self.source.start(self)
            while not self.stopping:
                self.fill()
                for watched, data in self.selector.select(self.kill_due(time.monotonic())):
                    if data is None:
                        os.read(self.wake_r, 4096)
                    elif isinstance(data, Child):
                        self.message(data)
                    else:
                        data(watched)
                self.reap()
                if not self.source.tick(time.monotonic()):
                    break
        finally:
            leaving = list(self.children.values())
            for child in leaving:
                self.retire(child, keep_page=True)  # its worker leaves once idle
            self.outlast(leaving)
            self.source.leave()

    def kill_due(self, now):
        """Kill each worker still running a call ``warm.KILL_GRACE`` past the deadline it
        published (``Worker.publish``): the one way a warm worker's stuck check ends (reap()
        answers for it). The seconds until the next is due, at most the source's TICK."""
        wait = self.source.TICK
        for child in list(self.children.values()):
            state, deadline, _ = child.page.read() or (BUSY, now, 0.0)  # None: marking, look again soon
            if state == IDLE:
                continue
            due = deadline + warm.KILL_GRACE
            if now >= due:
                if not child.killed:
                    child.killed = True
                    _kill(child.pid)
            else:
                wait = min(wait, due - now)
        return wait

    def stop(self, *_):
        self.stopping = True

    def fill(self):
        source = self.source
        free = sum(1 for child in self.children.values() if not child.busy)
        while (free < source.FREE or len(self.children) < source.LEAST) and len(self.children) < source.most:
            self.fork()
            free += 1

    def fork(self):
        channel, theirs = _socket.socketpair()  # not socket.py: 0.5 MB more for each worker to copy
        page = dispatch_worker.Page()
        pid = os.fork()
        if pid == 0:
            try:
                signal.set_wakeup_fd(-1)
                for signum in (signal.SIGCHLD, signal.SIGTERM):
                    signal.signal(signum, signal.SIG_DFL)
                for fd in (self.wake_r, self.wake_w):
                    os.close(fd)
                for sock in [channel] + [child.channel for child in self.children.values()] + self.source.sockets():
                    _forget(sock)
                self.source.work(dispatch_worker.Worker(self, theirs, page))
            finally:
                os._exit(0)
        theirs.close()
        child = self.children[pid] = Child(pid, channel, page)
        self.selector.register(channel, child)
        return child

    def message(self, child):
        try:
            data = child.channel.recv(64)
        except OSError:
            data = b""
        data = data.replace(b"t", b"")  # a deadline moved: this wake-up was all it asked
        if data:
            self.source.message(child, data)
        else:  # it is leaving: reap() hears of it; nothing more is handed to it
            self.selector.unregister(child.channel)
            child.busy = True

    def retire(self, child, keep_page=False):
        """End ``child`` when it is next idle (end of file on its channel)."""
        self.children.pop(child.pid, None)
        self.selector.unregister(child.channel)
        child.channel.close()
        if not keep_page:
            child.page.map.close()

    def outlast(self, leaving):
        """Stay until each worker of ``leaving`` is idle or gone: a worker dies with its arbiter
        (``Worker.__init__``: PR_SET_PDEATHSIG), so one running a call finishes it first, killed
        past its deadline as ever."""
        while leaving:
            now = time.monotonic()
            for child in list(leaving):
                try:
                    gone = os.waitpid(child.pid, os.WNOHANG)[0] != 0
                except ChildProcessError:
                    gone = True
                fields = child.page.read()
                if gone or (fields is not None and fields[0] == IDLE):
                    leaving.remove(child)
                    child.page.map.close()
                elif fields is not None and now > fields[1] + warm.KILL_GRACE:
                    _kill(child.pid)
            if leaving:
                time.sleep(0.01)

    def reap(self):
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if not pid:
                return
            child = self.children.get(pid)
            if child is not None:
                self.source.died(child)
                self.retire(child)


class _Watched:
    """What the arbiter waits for: ``select.poll``, which has no fd a forked worker must close."""

    def __init__(self):
        self.poll, self.watched, self.fds = select.poll(), {}, {}

    def register(self, what, data):
        fd = what if isinstance(what, int) else what.fileno()
        self.poll.register(fd, select.POLLIN)
        self.watched[fd], self.fds[id(what)] = (what, data), fd

    def unregister(self, what):
        fd = self.fds.pop(id(what), None)
        if fd is not None:
            self.watched.pop(fd, None)
            self.poll.unregister(fd)

    def select(self, timeout):
        return [self.watched[fd] for fd, _ in self.poll.poll(timeout * 1000) if fd in self.watched]


def _ignore(signum, frame):
    pass


def _forget(sock):
    """Close a socket in a forked worker without the object closing that fd number later."""
    try:
        os.close(sock.detach())
    except OSError:
        pass


def _kill(pid):
    try:
        os.kill(pid, 9)
    except OSError:
        pass


class Pool:
    """The command hook's calls: one pool per user, interpreter and hooks tree, in the private
    runtime folder (``dispatch_isolated.run_in_standby`` is the caller's half)."""

    TICK, FREE, LEAST = 1.0, 1, 2
    most = 32
    IDLE = 600.0

    def __init__(self, path):
        os.closerange(3, 1 << 16)  # nothing the host handed our starter stays open here
        try:
            self.idle = float(os.environ.get("HOOKMUX_WARM_IDLE") or self.IDLE)
        except ValueError:
            self.idle = self.IDLE
        self.folder = warm.open_within(os.path.dirname(path), os.path.basename(path), make=True)
        if self.folder is None:
            sys.exit(0)
        # Every name below is relative to the folder's fd: the path may be changed under us.
        self.lock = os.open("lock", os.O_RDWR | os.O_CREAT | warm.NOFOLLOW, 0o600, dir_fd=self.folder)
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            sys.exit(0)  # another arbiter has this pool
        try:
            os.unlink("calls", dir_fd=self.folder)  # left by an arbiter that is gone (we hold the lock)
        except FileNotFoundError:
            pass
        os.mkfifo("calls", 0o600, dir_fd=self.folder)
        # What the folder's name stands for (hookmux status reads it: the name may be a hash).
        key = "\0".join(dispatch_isolated.pool_key()).encode("utf-8", "surrogateescape")
        warm.write_file("key", key, self.folder)
        self.calls = warm.open_owned("calls", os.O_RDWR | os.O_NONBLOCK, self.folder, warm.FIFO)  # never an EOF
        self.bound = os.fstat(self.calls).st_ino
        self.served = self.reaped = 0
        self.reported = None

    def start(self, arbiter):
        self.arbiter = arbiter
        warm.sweep(self.folder, warm.LEFTOVER)  # what callers that died left: their pid is gone
        self.last = self.swept = time.monotonic()

    def sockets(self):
        os.close(self.lock)
        return []

    def work(self, worker):
        worker.serve_calls(self.folder, self.calls)

    def message(self, child, data):
        for message in data:
            if message == ord("c"):  # it claimed a call
                child.busy = True
                self.last = time.monotonic()
            elif message == ord("i") and child.busy:  # it finished one and reads the FIFO again
                child.busy = False
                self.served += 1

    def died(self, child):
        self.served += child.busy
        self.reaped += 1

    def tick(self, now):
        self.report()
        try:
            current = (os.stat("calls", dir_fd=self.folder, follow_symlinks=False).st_ino == self.bound
                       and warm.code_stamp(*self._code()) == self.arbiter.stamp)
        except OSError:
            current = False
        if now - self.swept > warm.LEFTOVER:
            self.swept = now
            warm.sweep(self.folder, warm.LEFTOVER)
        return current and now - self.last <= self.idle

    def _code(self):
        return dispatch_isolated.HERE, dispatch_isolated.MODULES

    def report(self):
        """``manager``: the arbiter's pid, the calls served and the CPU milliseconds of the pool
        so far (its reaped workers' and its live workers' included), for ``hookmux status`` and
        ``hookmux bench``."""
        if self.reported == (self.served, self.reaped):
            return
        live = 0
        for pid in self.arbiter.children:
            try:
                with open("/proc/%d/stat" % pid, "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
                live += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of stat(5))
            except (OSError, IndexError, ValueError):
                pass
        cpu = sum(os.times()[:4]) * 1000 + live * 1000 / os.sysconf("SC_CLK_TCK")
        line = "%d %d %.1f\n" % (os.getpid(), self.served, cpu)
        warm.write_file("manager", line.encode("ascii"), self.folder)
        self.reported = (self.served, self.reaped)

    def leave(self):
        try:
            if os.stat("calls", dir_fd=self.folder, follow_symlinks=False).st_ino == self.bound:
                os.unlink("calls", dir_fd=self.folder)
                os.unlink("manager", dir_fd=self.folder)
        except OSError:
            pass


class Serve:
    """``hookmux serve``: the connections of Claude Code's HTTP hooks on 127.0.0.1.

    A connection whose client socket belongs to another user (its uid from the kernel:
    _common/loopback.py) is closed as it is accepted, before a byte of it is read, and never
    counts against MAX_CONNECTIONS. Each other one goes to a free worker, or waits until one is
    free (workers holding idle connections are asked to hand theirs back); an idle one no worker
    holds is watched here until its next request. A worker that dies leaves its connection here:
    a request under way gets the reply the worker kept (the finished checks' advice, or empty).
    It leaves after ``idle`` seconds without a request, unless a Claude Code session it serves
    still runs (``sessions/<pid>``, noted by the SessionStart hook: its port must not be left to
    another user mid-session), or on SIGTERM."""

    TICK, FREE, LEAST = 0.25, 2, 2
    most = max(4, 4 * (os.cpu_count() or 1))
    MAX_CONNECTIONS = 512
    TRIM_SECONDS, IDLE_TRIM_SECONDS = 5.0, 120.0

    def __init__(self, hooks, listener, idle):
        import socket

        import dispatch_http  # hmac loads OpenSSL: more pages for each of a pool's workers to copy
        from _common import loopback

        self.hooks, self.idle, self.http, self.loopback = hooks, idle, dispatch_http, loopback
        self.folder = warm.serve_folder(hooks)
        self.secret = (warm.read_text(os.path.join(self.folder, "secret")) or "").encode("ascii")
        self.listener = socket.socket(fileno=listener)
        self.listener.setblocking(False)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # nothing a worker or its children write reaches a terminal or a pipe
            os.dup2(devnull, fd)
        os.close(devnull)
        self.connections = set()  # every open client connection: this process's copy
        self.waiting = collections.deque()  # connections with a request and no worker yet
        self.parked = {}  # connection -> when it was parked (idle, watched here)
        self.last_accept = self.trimmed = time.monotonic()

    def start(self, arbiter):
        self.arbiter = arbiter
        arbiter.selector.register(self.listener, self._accept)

    def sockets(self):
        return [self.listener] + list(self.connections)

    def work(self, worker):
        worker.serve_connections(self)

    def _accept(self, _):
        import socket

        uid = os.getuid()
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # none left, or out of fds: the backlog keeps the rest
                return
            try:
                peer = self.loopback.peer_uid(connection)
            except OSError:
                peer = None
            if peer != uid or len(self.connections) >= self.MAX_CONNECTIONS:
                connection.close()  # another user's (or gone): not a byte of it read
                continue
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.connections.add(connection)
            self.last_accept = time.monotonic()
            self._assign(connection)

    def _assign(self, connection):
        free = [child for child in self.arbiter.children.values() if not child.busy]
        if free:
            self._hand(max(free, key=lambda child: child.used), connection)  # the one used last: warm
        elif len(self.arbiter.children) < self.most:
            self._hand(self.arbiter.fork(), connection)
        else:
            self.waiting.append(connection)
            for child in self.arbiter.children.values():
                if child.connection is not None and not child.asked:
                    child.asked = True
                    try:
                        child.channel.send(b"R")
                    except OSError:
                        pass

    def _hand(self, child, connection):
        import socket

        try:
            socket.send_fds(child.channel, [b"C"], [connection.fileno()])
        except OSError:  # the worker is gone: reap() hears of it; the connection waits here
            self._park(connection)
            return
        child.connection, child.busy, child.asked = connection, True, False

    def _park(self, connection):
        try:
            self.arbiter.selector.register(connection, self._unpark)
        except (ValueError, OSError):
            self._drop(connection)
            return
        self.parked[connection] = time.monotonic()

    def _unpark(self, connection):
        """A request starts on a connection no worker holds."""
        self.arbiter.selector.unregister(connection)
        self.parked.pop(connection, None)
        self._assign(connection)

    def _drop(self, connection):
        if self.parked.pop(connection, None) is not None:
            self.arbiter.selector.unregister(connection)
        self.connections.discard(connection)
        connection.close()

    def message(self, child, data):
        for message in data:
            connection, child.connection, child.busy = child.connection, None, False
            child.used = time.monotonic()
            if connection is not None:
                (self._park if message == ord("P") else self._drop)(connection)  # P: handed back, F: closed
        self._next_waiting(child)

    def _next_waiting(self, child):
        while self.waiting and child.connection is None:
            connection = self.waiting.popleft()
            if connection in self.connections:
                self._hand(child, connection)

    def died(self, child):
        """Its connection stays here; a request it was running gets the reply it kept."""
        import socket


        connection, state = child.connection, (child.page.read() or (REPLYING,))[0]  # its last whole write
        if connection is None:
            return
        if state == IDLE:
            self._park(connection)
            return
        if state == BUSY:
            kept, running = child.page.kept()
            try:  # what the socket's buffer takes at once: a client that does not read stalls nobody
                connection.setblocking(False)
                connection.send(self.http.head(200, len(kept), True) + kept)
            except OSError:
                pass
            _count_died(running, child.killed)
        try:
            connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._drop(connection)

    def tick(self, now):
        for connection, since in list(self.parked.items()):
            if now - since > self.http.KEEP_ALIVE_SECONDS:  # as a worker closes an idle one
                self._drop(connection)
        children = self.arbiter.children.values()
        while self.waiting and len(children) < self.most:
            self._next_waiting(self.arbiter.fork())
        if now - self.trimmed > self.TRIM_SECONDS:
            self.trimmed = now
            free = sorted((child for child in children if not child.busy), key=lambda child: child.used)
            for child in free[:max(0, len(free) - self.FREE)]:
                if now - max(child.used, (child.page.read() or (0, 0.0, now))[2]) > self.IDLE_TRIM_SECONDS:
                    self.arbiter.retire(child)
        pages = [child.page.read() or (BUSY, 0.0, now) for child in children]  # None: busy marking
        last = max([self.last_accept] + [page[2] for page in pages])
        if any(page[0] != IDLE for page in pages) or now - last <= self.idle:
            return True
        try:  # leaving would free the port for another user mid-session
            alive = warm.sweep(os.path.join(self.folder, "sessions")) > 0
        except OSError:
            alive = False
        if alive:
            self.last_accept = now
        return alive

    def leave(self):
        try:
            record = os.path.join(self.folder, "server.json")
            if json.loads(warm.read_text(record) or "{}").get("pid") == os.getpid():
                os.unlink(record)
        except (OSError, ValueError, AttributeError):
            pass

class _Died:
    """A row a dead worker was running, as ``breaker.record`` reads an outcome: it failed."""

    def __init__(self, kind, event, index, path, name):
        self.row, self.kind = self, kind
        self.event, self.index, self.path, self.name = event, index, path, name


def _count_died(running, timed_out):
    """Count in its tree's breaker what a serve worker was running when it died (``Page.keep``'s
    ``running``: the rows not finished), as the pool's caller does (dispatch_isolated.settle):
    killed at its deadline, each of them timed out; else the first, the one it most likely died
    in, is the error and the rest are not counted."""
    try:
        hooks_root, rows = running
        rows = rows if timed_out else rows[:1]
        from _common import breaker

        held = breaker.load(hooks_root)
        if held is not None and rows:
            held.record([_Died("timeout" if timed_out else "error", *row) for row in rows])
    except Exception:
        pass


if __name__ == "__main__":
    try:
        if len(sys.argv) in (3, 5):
            main(sys.argv)
    finally:
        os._exit(0)

