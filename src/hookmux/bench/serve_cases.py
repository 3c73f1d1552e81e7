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
import http.client
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
    def __init__(self, port: int, secret: str):
        self.path = f"/{secret}/PreToolUse"
        self.shown = f"POST http://127.0.0.1:{port}/<secret>/PreToolUse (keep-alive, hookmux serve)"
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def post(self, body: bytes) -> tuple[int, bytes]:
        self.conn.request("POST", self.path, body=body, headers={"Content-Type": "application/json"})
        reply = self.conn.getresponse()
        return reply.status, reply.read()


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

