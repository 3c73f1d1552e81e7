"""B8: what Claude Code does under ``install --serve`` — a keep-alive HTTP POST of a real
payload to the warm ``hookmux serve`` of the bench's install — timed beside B5 (the same
payloads through the command-line dispatcher, one process per call) in the same rounds.

The server runs with the hookmux interpreter on the bench's temporary install and state;
one keep-alive connection is reused for every request, as Claude Code's HTTP client does.
A sample's wall time is request sent -> reply read; its CPU time is the client's only
(the server's work shows in the wall time).
"""
from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from hookmux.bench.runner import Sample


@dataclass
class HttpCase:
    name: str
    title: str
    payload: Callable[[int], str]  # run index -> payload file
    expect: Callable[[list], Optional[str]]  # the same checks as the process cases
    client: "Client"
    target: Optional[float] = None
    prime: int = 0
    exits: tuple[int, ...] = (0,)
    commands: list[str] = field(default_factory=list)

    def measure(self, run_index: int) -> Sample:
        body = Path(self.payload(run_index)).read_bytes()
        start = time.perf_counter_ns()
        cpu = time.process_time_ns()
        status, _ = self.client.post(body)
        return Sample(wall_ns=time.perf_counter_ns() - start, cpu_ns=time.process_time_ns() - cpu,
                      exit_codes=[0 if status == 200 else status])

    def check(self) -> Optional[str]:
        for index in range(self.prime):
            self.client.post(Path(self.payload(-1 - index)).read_bytes())
        status, body = self.client.post(Path(self.payload(-1)).read_bytes())
        if status != 200:
            return f"HTTP {status}"
        return self.expect([(0, body.decode("utf-8", "replace"), "")])


class Client:
    """A keep-alive HTTP/1.1 client as lean as the host's (Node's HTTP parser is C): the request
    is one write, the reply's status line and headers are split by hand, ``Content-Length``
    bytes of body are read. (``http.client`` parses the reply's headers with the email
    package, ~0.2 ms of this process's CPU per request, which no server can save.)"""

    def __init__(self, port: int, secret: str):
        self.path = f"/{secret}/PreToolUse"
        self.shown = f"POST http://127.0.0.1:{port}/<secret>/PreToolUse (keep-alive, hookmux serve)"
        self.conn = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def post(self, body: bytes) -> tuple[int, bytes]:
        head = (f"POST {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode("ascii")
        self.conn.sendall(head + body)
        while b"\r\n\r\n" not in self.buffer:
            self._receive()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(self.buffer) < length:
            self._receive()
        reply, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, reply

    def _receive(self):
        chunk = self.conn.recv(1 << 16)
        if not chunk:
            raise ConnectionError("hookmux serve closed the connection")
        self.buffer += chunk


@contextlib.contextmanager
def server(setup):
    """A ``hookmux serve`` on the bench install for the length of the block; yields a Client."""
    proc = subprocess.Popen([sys.executable, "-m", "hookmux", "serve", "--target", str(setup.target),
                             "--idle-minutes", "30"], env=setup.env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    client = None
    try:
        state = Path(setup.env["HOOKMUX_STATE_DIR"]) / "serve"
        deadline = time.monotonic() + 60
        while not list(state.glob("*/server.json")):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("hookmux serve did not start")
            time.sleep(0.05)
        folder = next(state.glob("*/server.json")).parent
        client = Client(int((folder / "port").read_text()), (folder / "secret").read_text().strip())
        yield client
    finally:
        if client is not None:
            client.conn.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cases(setup, client: Client, expect_context, expect_silent) -> list[HttpCase]:
    fixed = lambda name: (lambda _run: str(setup.payload(name)))  # noqa: E731
    shown = [client.shown]
    return [
        HttpCase("B8.new", "hookmux serve, keep-alive POST: contraindicated, new session (advises)",
                 setup.fresh_contra_payload, expect_context([]), client, commands=shown),
        HttpCase("B8.plain", "hookmux serve, keep-alive POST: an ordinary shell command (silent)",
                 fixed("pre-bash"), expect_silent, client, commands=shown),
        HttpCase("B8.seen", "hookmux serve, keep-alive POST: contraindicated, seen session (silent)",
                 fixed("pre-contra-seen"), expect_silent, client, prime=1, commands=shown),
    ]


def is_http(case) -> bool:
    return isinstance(case, HttpCase)

