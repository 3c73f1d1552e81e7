"""The resident server: ``POST /<secret>/<EVENT>`` with a hook payload -> the dispatcher's answer.

Each request is answered by ``dispatch_core.run()`` of the installed hooks tree — the same
engine, manifest (read again whenever the file changes), rows, timeouts, ledger and output as the command hook —
in a server thread, with ``pool.PoolRunner``: the selected checks run in one of a few
persistent worker processes (``worker.py``), which keeps them imported until one of their
files changes. A check that hangs, crashes, calls ``os._exit`` or holds the GIL takes its
worker with it, never the server: the runner waits no longer than the largest selected
timeout plus the dispatcher's margin, then kills the worker, and a warm replacement is ready.

Refused with an empty body and before any work: a wrong or missing secret (404, compared
with ``hmac.compare_digest``), a body over ``MAX_BODY`` (413), a request slower than
``READ_TIMEOUT`` per read (the connection is closed). Bound to 127.0.0.1 only.
"""
import hmac
import http.server
import json
import os
import signal
import socket
import socketserver
import sys
import threading
import time

from hookmux.serve import pool

MAX_BODY = 1 << 20
READ_TIMEOUT = 5.0
# What a refused connection may still send before it is closed, at most (see Handler._linger).
LINGER_SECONDS = 1.0
LINGER_BYTES = 4 * MAX_BODY
IDLE_MINUTES = 60.0
MAX_WORKERS = max(4, 4 * (os.cpu_count() or 1))
MAX_CONNECTIONS = 512


def load_engine(hooks):
    """``dispatch_core``, ``_common.ledger`` and ``dispatch_isolated`` of the installed hooks tree."""
    for entry in (os.path.join(hooks, "_dispatch"), hooks):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    import dispatch_core
    import dispatch_isolated
    from _common import ledger

    return dispatch_core, ledger, dispatch_isolated


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, port, secret, hooks, manifest, idle_seconds=IDLE_MINUTES * 60):
        self.secret = secret.encode("ascii")
        self.hooks = hooks
        self.manifest = manifest
        self.manifest_cache = None
        self.idle_seconds = idle_seconds
        self.last_active = time.monotonic()
        self.workers = threading.BoundedSemaphore(MAX_WORKERS)
        self.connections = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.engine, self.ledger, self.isolated = load_engine(hooks)
        from _common import manifest as manifest_module

        self.manifest_module = manifest_module
        self.devnull = os.open(os.devnull, os.O_RDWR)
        super().__init__(("127.0.0.1", port), Handler)
        self.pool = pool.Pool(hooks)
        self.runner = pool.PoolRunner(self.pool, self.isolated)

    def server_close(self):
        super().server_close()
        self.pool.close()

    def process_request(self, request, client_address):
        if not self.connections.acquire(blocking=False):
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.release()

    def serve_until_idle(self):
        watcher = threading.Thread(target=self._idle_watch, daemon=True)
        watcher.start()
        self.serve_forever(poll_interval=0.5)

    def _idle_watch(self):
        while True:
            time.sleep(min(5.0, max(0.1, self.idle_seconds / 4)))
            self.pool.trim()
            if time.monotonic() - self.last_active > self.idle_seconds:
                self.shutdown()
                return

    def authorized(self, given):
        return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), self.secret)

    def answer(self, event, body, later):
        """The dispatcher's output for one payload ("" on any failure, as ``run()`` promises).
        The terminal ledger's record is made at the end of the run (its duration ends there)
        and appended to ``later``, for after the reply."""
        started = time.monotonic()

        def observe(call, outcomes, failure):
            event, host = (call.name, call.host) if call is not None else (None, None)
            duration_ms = (time.monotonic() - started) * 1000
            later.append(self.ledger.from_outcomes(event, host, outcomes, failure, duration_ms))

        manifest, hooks_root = self.current_manifest()
        with self.workers:
            return self.engine.run(event, body, manifest=manifest, hooks_root=hooks_root, runner=self.runner,
                                   observe=observe)

    def current_manifest(self):
        """The manifest as ``run()`` takes it: its parsed JSON and hooks root, read again when the
        file's (mtime, size, inode) changes; else its path, and ``run()`` says what is wrong."""
        try:
            info = os.stat(self.manifest)
            stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        except OSError:
            return self.manifest, None
        known = self.manifest_cache
        if known is None or known[0] != stamp:
            try:
                loaded = self.manifest_module.load(self.manifest)
            except Exception:
                return self.manifest, None
            known = self.manifest_cache = (stamp, loaded.data, loaded.hooks_root)
        return known[1], known[2]


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            411: "Length Required", 413: "Content Too Large", 431: "Request Header Fields Too Large",
            505: "HTTP Version Not Supported"}
MAX_LINE = 8192
MAX_HEADERS = 100


class Handler(socketserver.StreamRequestHandler):
    """HTTP/1.1 with keep-alive, as much of it as a hook client uses: a request line, header
    lines, a ``Content-Length`` body. (``http.server`` parses headers with the email package,
    a tenth of a request's budget.) Anything else is refused and the connection closed."""

    timeout = READ_TIMEOUT
    disable_nagle_algorithm = True

    def handle(self):
        try:
            while self.handle_one_request():
                pass
        except (OSError, ValueError):  # a read timed out, the peer went away
            pass

    def handle_one_request(self):
        """Read and answer one request; False when the connection is to be closed."""
        line = self.rfile.readline(MAX_LINE + 1)
        if not line:
            return False
        parts = line.split()
        if len(line) > MAX_LINE or len(parts) != 3:
            return self._refuse(400)
        method, path, version = parts
        if version not in (b"HTTP/1.1", b"HTTP/1.0"):
            return self._refuse(505)
        headers = {}
        for _ in range(MAX_HEADERS + 1):
            header = self.rfile.readline(MAX_LINE + 1)
            if header in (b"\r\n", b"\n", b""):
                break
            if len(header) > MAX_LINE:
                return self._refuse(431)
            name, _, value = header.partition(b":")
            headers[name.strip().lower()] = value.strip()
        else:
            return self._refuse(431)
        connection = headers.get(b"connection", b"").lower()
        keep = connection != b"close" if version == b"HTTP/1.1" else connection == b"keep-alive"
        path = path.decode("latin-1")
        if method == b"POST":
            return self.post(path, headers) and keep
        if method == b"GET":
            secret, _, rest = path.lstrip("/").partition("/")
            if rest == "health" and self.server.authorized(secret):
                self._reply(200, json.dumps({"pid": os.getpid()}).encode())
                return keep
            return self._refuse(404)
        return self._refuse(405)

    def post(self, path, headers):
        secret, _, event = path.lstrip("/").partition("/")
        if not self.server.authorized(secret):
            return self._refuse(404)
        event = event.partition("?")[0]
        if not event or "/" in event or len(event) > 64:
            return self._refuse(404)
        if b"transfer-encoding" in headers:
            return self._refuse(411)
        try:
            length = int(headers.get(b"content-length", b""))
        except ValueError:
            return self._refuse(411)
        if length < 0 or length > MAX_BODY:
            return self._refuse(413)
        if headers.get(b"expect", b"").lower() == b"100-continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        body = self.rfile.read(length)
        if len(body) != length:
            return False
        self.server.last_active = time.monotonic()
        later = []
        output = self.server.answer(event, body.decode("utf-8", "replace"), later)
        self._reply(200, output.encode("utf-8", "surrogatepass"))
        for record in later:  # after the reply: the host is not kept waiting for the ledger
            self.server.ledger.write_dispatch(record)
        self.server.last_active = time.monotonic()
        return True

    def _reply(self, status, body=b"", close=False):
        head = "HTTP/1.1 %d %s\r\nServer: hookmux\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n" % (
            status, _REASONS.get(status, ""), len(body), "Connection: close\r\n" if close else "")
        self.wfile.write(head.encode("ascii") + body)

    def _refuse(self, status):
        """An empty reply, and the connection closes."""
        self._reply(status, close=True)
        self._linger()
        return False

    def _linger(self):
        """Before the close, read (and drop) what the client is still sending, for a moment: a
        socket closed with unread data resets the connection, and a client still writing the
        body it was refused for (a 413) would see the reset, not the reply."""
        try:
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(LINGER_SECONDS)
            deadline = time.monotonic() + LINGER_SECONDS
            drained = 0
            while drained < LINGER_BYTES and time.monotonic() < deadline:
                chunk = self.connection.recv(1 << 16)
                if not chunk:
                    break
                drained += len(chunk)
        except OSError:
            pass


def serve(hooks, port, secret, idle_seconds, on_ready=None):
    """Bind, record, serve until idle or SIGTERM; return the exit status."""
    hooks = os.path.abspath(hooks)
    manifest = os.path.join(hooks, "_dispatch", "manifest.json")
    server = Server(port, secret, hooks, manifest, idle_seconds)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown, daemon=True).start())
    try:
        if on_ready is not None:
            on_ready(server)
        # nothing a check or its children write to fds 0-2 reaches a terminal or a pipe
        for fd in (0, 1, 2):
            os.dup2(server.devnull, fd)
        server.serve_until_idle()
    finally:
        server.server_close()
    return 0
