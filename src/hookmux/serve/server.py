"""The resident server: ``POST /<secret>/<EVENT>`` with a hook payload -> the dispatcher's answer.

Each request is answered by ``dispatch_core.run()`` of the installed hooks tree — the same
engine, manifest (read per request), rows, timeouts, ledger and output as the command hook —
in a server thread, with the dispatcher's ``ForkRunner`` (``dispatch_isolated``): the
selected checks run in a worker forked from this warm process, which imports them afresh
(a changed check file is picked up without a restart). A check that hangs, crashes, calls
``os._exit`` or holds the GIL takes its worker with it, never the server: the runner waits
no longer than the largest selected timeout plus its margin, then kills the worker.

Refused with an empty body and before any work: a wrong or missing secret (404, compared
with ``hmac.compare_digest``), a body over ``MAX_BODY`` (413), a request slower than
``READ_TIMEOUT`` per read (the connection is closed). Bound to 127.0.0.1 only.
"""
import hmac
import http.server
import json
import os
import signal
import socketserver
import sys
import threading
import time

MAX_BODY = 1 << 20
READ_TIMEOUT = 5.0
IDLE_MINUTES = 60.0
MAX_WORKERS = max(4, 4 * (os.cpu_count() or 1))
MAX_CONNECTIONS = 512


def load_engine(hooks):
    """``dispatch_core``, ``dispatch_transport`` and ``dispatch_isolated`` of the installed hooks tree."""
    for entry in (os.path.join(hooks, "_dispatch"), hooks):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    import dispatch_core
    import dispatch_isolated
    import dispatch_transport

    _reap_finished_workers(dispatch_isolated)
    return dispatch_core, dispatch_transport, dispatch_isolated


def _reap_finished_workers(isolated):
    """``ForkRunner`` does not wait for a worker that sent its done frame (a one-shot dispatcher
    exits next); a resident process must, or every request leaves a zombie. Only those pids are
    reaped here, by one thread, so the runner's own ``waitpid`` for the others never races it."""
    if getattr(isolated, "_hookmux_serve_reaper", False):
        return
    import queue

    finished = queue.SimpleQueue()
    original = isolated._reap

    def reap(pid, done, deadline):
        result = original(pid, done, deadline)
        if done:
            finished.put(pid)
        return result

    def reaper():
        while True:
            try:
                os.waitpid(finished.get(), 0)
            except ChildProcessError:
                pass

    isolated._reap = reap
    isolated._hookmux_serve_reaper = True
    threading.Thread(target=reaper, daemon=True, name="hookmux-reaper").start()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, port, secret, hooks, manifest, idle_seconds=IDLE_MINUTES * 60):
        self.secret = secret.encode("ascii")
        self.hooks = hooks
        self.manifest = manifest
        self.idle_seconds = idle_seconds
        self.last_active = time.monotonic()
        self.workers = threading.BoundedSemaphore(MAX_WORKERS)
        self.connections = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.engine, self.transport, self.isolated = load_engine(hooks)
        self.devnull = os.open(os.devnull, os.O_RDWR)
        super().__init__(("127.0.0.1", port), Handler)

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
            if time.monotonic() - self.last_active > self.idle_seconds:
                self.shutdown()
                return

    def authorized(self, given):
        return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), self.secret)

    def answer(self, event, body, connection_fd):
        """The dispatcher's output for one payload ("" on any failure, as ``run()`` promises)."""
        started = time.monotonic()
        # the worker drops the listening socket and this connection; the others are close-on-exec
        runner = self.isolated.ForkRunner(self.transport.Watchdog(self.devnull), (self.fileno(), connection_fd))
        with self.workers:
            return self.engine.run(event, body, manifest=self.manifest, runner=runner,
                                   observe=self.transport.ledger_observer(started))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = READ_TIMEOUT
    server_version = "hookmux"
    sys_version = ""

    def log_message(self, format, *args):
        pass

    def _reply(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def _refuse(self, status):
        self.close_connection = True
        self._reply(status)

    def do_GET(self):
        secret, _, rest = self.path.lstrip("/").partition("/")
        if rest == "health" and self.server.authorized(secret):
            self._reply(200, json.dumps({"pid": os.getpid()}).encode())
            return
        self._refuse(404)

    def do_POST(self):
        secret, _, event = self.path.lstrip("/").partition("/")
        if not self.server.authorized(secret):
            self._refuse(404)
            return
        event = event.partition("?")[0]
        if not event or "/" in event or len(event) > 64:
            self._refuse(404)
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._refuse(411)
            return
        if length < 0 or length > MAX_BODY:
            self._refuse(413)
            return
        body = self.rfile.read(length)
        if len(body) != length:
            self.close_connection = True
            return
        self.server.last_active = time.monotonic()
        output = self.server.answer(event, body.decode("utf-8", "replace"), self.connection.fileno())
        self.server.last_active = time.monotonic()
        self._reply(200, output.encode("utf-8", "surrogatepass"))

    do_PUT = do_DELETE = do_PATCH = do_HEAD = lambda self: self._refuse(405)


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
