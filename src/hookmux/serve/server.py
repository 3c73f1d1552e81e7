"""The resident server: ``POST /<secret>/<EVENT>`` with a hook payload -> the dispatcher's answer.

Each request is answered by ``dispatch_core.run()`` of the installed hooks tree — the same
engine, manifest (read per request), rows, timeouts, ledger and output as the command hook —
run in a worker forked from this warm process. The worker imports the selected checks
afresh (so a changed check file is picked up without a restart), runs them with the
command transport's ``ThreadRunner`` and watchdog, writes its one answer into a pipe and
leaves with ``os._exit``. A check that hangs, crashes, calls ``os._exit`` or holds the GIL
takes its worker with it, never the server: the server waits no longer than the largest
timeout plus a grace, then kills the worker and answers with an empty body (fail open).

Refused with an empty body and before any work: a wrong or missing secret (404, compared
with ``hmac.compare_digest``), a body over ``MAX_BODY`` (413), a request slower than
``READ_TIMEOUT`` per read (the connection is closed). Bound to 127.0.0.1 only.
"""
import hmac
import http.server
import json
import os
import select
import signal
import socketserver
import sys
import threading
import time

MAX_BODY = 1 << 20
READ_TIMEOUT = 5.0
# Seconds past the largest row timeout before a worker is killed.
WORKER_GRACE = 2.0
IDLE_MINUTES = 60.0
MAX_WORKERS = max(4, 4 * (os.cpu_count() or 1))
MAX_CONNECTIONS = 512


def load_engine(hooks):
    """``dispatch_core`` and ``dispatch_transport`` of the installed hooks tree."""
    for entry in (os.path.join(hooks, "_dispatch"), hooks):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    import dispatch_core
    import dispatch_transport

    return dispatch_core, dispatch_transport


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
        self.engine, self.transport = load_engine(hooks)
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

    def answer(self, event, body):
        """The dispatcher's output for one payload, from a forked worker ("" on any failure)."""
        with self.workers:
            return run_in_worker(self, event, body)


def _budget(server):
    """The largest row timeout of the current manifest: how long a worker may take."""
    try:
        with open(server.manifest, "r", encoding="utf-8") as handle:
            data = json.load(handle)
        timeouts = [row.get("timeout", 8) for spec in data.get("events", {}).values()
                    for row in spec.get("checks", []) if isinstance(row, dict)]
        return max([t for t in timeouts if isinstance(t, (int, float)) and not isinstance(t, bool)] or [8.0])
    except Exception:
        return 8.0


def run_in_worker(server, event, body):
    deadline = time.monotonic() + _budget(server) + WORKER_GRACE
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return ""
    if pid == 0:  # the worker
        try:
            os.close(read_end)
            _worker(server, event, body, write_end)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                chunks = []
                break
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        _reap(pid)
    return b"".join(chunks).decode("utf-8", "replace")


def _reap(pid):
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _worker(server, event, body, out_fd):
    started = time.monotonic()
    # Nothing of the server's reaches the checks: not the listening socket, not other
    # clients' connections (a child process a check leaves behind would hold them open).
    os.closerange(3, out_fd)
    os.closerange(out_fd + 1, 1 << 16)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    _enter_cwd(body)
    transport = server.transport
    output = server.engine.run(
        event, body, manifest=server.manifest,
        runner=transport.GuardedThreadRunner(transport.Watchdog(devnull)),
        observe=transport.ledger_observer(started),
    )
    data = output.encode("utf-8", "surrogatepass")
    while data:
        data = data[os.write(out_fd, data):]


def _enter_cwd(body):
    """Run where a command hook would: the payload's ``cwd``."""
    try:
        cwd = json.loads(body).get("cwd")
        if isinstance(cwd, str) and os.path.isabs(cwd):
            os.chdir(cwd)
    except Exception:
        pass


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
        output = self.server.answer(event, body.decode("utf-8", "replace"))
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
        server.serve_until_idle()
    finally:
        server.server_close()
    return 0
