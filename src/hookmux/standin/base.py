"""What the loopback model stand-ins share: a scripted, recording HTTP server.

Used by tests/e2e and by ``hookmux bench --turn`` (hookmux.bench.turn). A stand-in
(``hookmux.standin.anthropic``, ``hookmux.standin.openai_chat``, tests/e2e's ``e2e_codex_server`` and ``e2e_gemini_server``) queues the
tool calls a test scripts, hands the next one to each request of the agent loop, and records
every request body so a test can read exactly what the model was shown after the hooks ran.
Each one says how its API spells a turn; this module runs the server, keeps the script and the
record, and writes JSON and server-sent events. Standard library only; binds 127.0.0.1.
"""
from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL_TEXT = "done"


@dataclass
class Recorded:
    path: str
    body: Any
    at: float = 0.0  # time.monotonic() when the request arrived


class StandIn:
    """``with Server() as server: server.script([...]); url = server.url``. A subclass names
    its ``Handler`` and which recorded requests are the agent loop (``_in_conversation``)."""

    Handler: type = BaseHTTPRequestHandler

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: list = []
        self._ids = itertools.count(1)
        self.requests: list[Recorded] = []
        self.issued: list[str] = []  # ids of the tool calls sent, in order
        self.sent_at: dict[str, float] = {}  # tool call id -> time.monotonic() when its reply was written
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self.Handler)
        self._httpd.daemon_threads = True
        self._httpd.stand_in = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, turns: list) -> None:
        """Reset the recording and queue tool calls for the next conversation."""
        with self._lock:
            self._script = list(turns)
            self.requests = []
            self.issued = []
            self.sent_at = {}

    def conversation(self) -> list[Any]:
        """Bodies of the recorded requests of the agent loop."""
        with self._lock:
            return [r.body for r in self.requests if self._in_conversation(r)]

    def _in_conversation(self, recorded: Recorded) -> bool:
        return offers_tools(recorded.body)

    def _record(self, path: str, body: Any) -> None:
        with self._lock:
            self.requests.append(Recorded(path, body, time.monotonic()))

    def _mark_sent(self, ids) -> None:
        """The replies carrying these tool call ids are written (the tool interval starts)."""
        now = time.monotonic()
        with self._lock:
            for call_id in ids:
                self.sent_at.setdefault(call_id, now)

    def recorded(self) -> list[Recorded]:
        """Every recorded request so far, with its arrival time."""
        with self._lock:
            return list(self.requests)

    def _take(self, path: str, body: Any, wants_turn: bool | None = None):
        """Record a request; (its number, the next scripted turn, or None when the script is
        used up or the request offers no tools)."""
        wants_turn = offers_tools(body) if wants_turn is None else wants_turn
        with self._lock:
            self.requests.append(Recorded(path, body, time.monotonic()))
            turn = self._script.pop(0) if wants_turn and self._script else None
            return next(self._ids), turn


def offers_tools(body: Any) -> bool:
    return isinstance(body, dict) and bool(body.get("tools"))


class JsonHandler(BaseHTTPRequestHandler):
    """Reads a JSON body, answers JSON or a stream of server-sent events; logs nothing."""

    protocol_version = "HTTP/1.1"

    @property
    def stand_in(self) -> StandIn:
        return self.server.stand_in

    def log_message(self, *args) -> None:
        pass

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_events(self, events) -> None:
        """(event name or None, data) pairs as one server-sent-event stream, then close."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            text = data if isinstance(data, str) else json.dumps(data)  # a str goes as it is: ``[DONE]``
            self.wfile.write(f"{head}data: {text}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True
