"""One client connection as a worker serves it: HTTP/1.1 requests in, replies out.

    connection = Connection(sock, secret)
    request = connection.next_request()       # None: closed (or refused, and the reply sent)
    connection.reply(200, body, close=not request.keep)

As much of HTTP/1.1 as a hook client uses: a request line, header lines, a ``Content-Length``
body, keep-alive, ``Expect: 100-continue``. Refused with an empty body before any work, and
the connection closed: a wrong or missing secret (404, ``hmac.compare_digest``), a body over
``MAX_BODY`` (413), chunked bodies (411), other methods (405), long lines or too many headers
(431/400). A read that stalls ``READ_TIMEOUT`` closes the connection, as does silence
before its first request (``READ_TIMEOUT``) or between requests (``KEEP_ALIVE_SECONDS``).
(``http.server`` parses headers with the email package, a tenth of a request's budget.)

Standard library only: the serve worker (dispatch_worker.py) reads requests with it.
"""
import hmac
import socket
import time

MAX_BODY = 1 << 20
READ_TIMEOUT = 5.0  # a read within a request, or the first request of a connection
KEEP_ALIVE_SECONDS = 30.0  # an idle keep-alive connection is closed after this
# What a refused connection may still send before it is closed, at most (see Connection._linger).
LINGER_SECONDS = 1.0
LINGER_BYTES = 4 * MAX_BODY
MAX_LINE = 8192
MAX_HEADERS = 100
REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
           411: "Length Required", 413: "Content Too Large", 431: "Request Header Fields Too Large",
           505: "HTTP Version Not Supported"}


def head(status, length, close):
    """The status line and headers of a reply with a body of ``length`` bytes."""
    return ("HTTP/1.1 %d %s\r\nServer: hookmux\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n" % (
        status, REASONS.get(status, ""), length, "Connection: close\r\n" if close else "")).encode("ascii")


class Request:
    __slots__ = ("kind", "event", "body", "keep")

    def __init__(self, kind, event, body, keep):
        self.kind = kind  # "post" (a hook event) or "health"
        self.event = event
        self.body = body
        self.keep = keep


class Connection:
    def __init__(self, sock, secret):
        self.sock = sock
        self.secret = secret
        self.buffer = b""
        sock.settimeout(READ_TIMEOUT)

    @property
    def idle(self):
        """Nothing of a next request has been read yet (it may be handed on)."""
        return not self.buffer

    def next_request(self):
        """The next request, or None when the connection is to be closed (any refusal has been sent)."""
        try:
            return self._read_request()
        except (OSError, ValueError):  # a read timed out, the peer went away
            return None

    def _read_request(self):
        line = self._readline()
        if not line:
            return None
        parts = line.split()
        if len(line) > MAX_LINE or len(parts) != 3:
            return self._refuse(400)
        method, path, version = parts
        if version not in (b"HTTP/1.1", b"HTTP/1.0"):
            return self._refuse(505)
        headers = {}
        for _ in range(MAX_HEADERS + 1):
            header = self._readline()
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
        secret, _, rest = path.decode("latin-1").lstrip("/").partition("/")
        if not self._authorized(secret):
            return self._refuse(404)
        if method == b"GET":
            return Request("health", None, b"", keep) if rest == "health" else self._refuse(404)
        if method != b"POST":
            return self._refuse(405)
        event = rest.partition("?")[0]
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
            self.sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        body = self._read(length)
        if len(body) != length:
            return None
        return Request("post", event, body, keep)

    def reply(self, status, body=b"", close=False):
        self.sock.sendall(head(status, len(body), close) + body)

    def end(self):
        """Close this side for good: the server holds a copy of the socket, so a close alone would not."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def _authorized(self, given):
        return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), self.secret)

    def _refuse(self, status):
        """An empty reply; the connection closes (after the linger)."""
        try:
            self.reply(status, close=True)
            self._linger()
        except OSError:
            pass
        return None

    def _linger(self):
        """Before the close, read (and drop) what the client is still sending, for a moment: a
        socket closed with unread data resets the connection, and a client still writing the
        body it was refused for (a 413) would see the reset, not the reply."""
        self.sock.shutdown(socket.SHUT_WR)
        self.sock.settimeout(LINGER_SECONDS)
        deadline = time.monotonic() + LINGER_SECONDS
        drained = 0
        while drained < LINGER_BYTES and time.monotonic() < deadline:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                break
            drained += len(chunk)

    def _readline(self):
        """A line with its end, at most MAX_LINE + 1 bytes (longer: refused by the caller); b"" at EOF."""
        while True:
            end = self.buffer.find(b"\n", 0, MAX_LINE + 1)
            if end >= 0:
                line, self.buffer = self.buffer[:end + 1], self.buffer[end + 1:]
                return line
            if len(self.buffer) > MAX_LINE:
                line, self.buffer = self.buffer[:MAX_LINE + 1], self.buffer[MAX_LINE + 1:]
                return line
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                line, self.buffer = self.buffer, b""
                return line
            self.buffer += chunk

    def _read(self, size):
        while len(self.buffer) < size:
            chunk = self.sock.recv(max(1 << 16, size - len(self.buffer)))
            if not chunk:
                break
            self.buffer += chunk
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data
