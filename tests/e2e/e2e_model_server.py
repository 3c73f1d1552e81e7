"""A loopback stand-in for the Anthropic Messages API, for driving the real CLIs.

``POST /v1/messages`` answers a *conversation* request (one that offers tools) with
the next scripted turn -- a ``tool_use`` block -- and, once the script is used up,
with a text ``end_turn``. Requests without tools (titles, summaries, probes) get
text and do not consume the script. Every request body is recorded, so a test
can read exactly what the model was shown after the hooks ran.
Standard library only; binds 127.0.0.1.
"""
from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL_TEXT = "done"


@dataclass
class Recorded:
    path: str
    body: Any


@dataclass
class ToolUse:
    name: str
    input: dict


class ModelServer:
    """``with ModelServer() as server: server.script([...]); url = server.url``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: list[ToolUse] = []
        self._ids = itertools.count(1)
        self.requests: list[Recorded] = []
        self.issued: list[str] = []  # ids of the tool_use blocks sent, in order
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "ModelServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, turns: list[ToolUse]) -> None:
        """Reset the recording and queue tool_use turns for the next conversation."""
        with self._lock:
            self._script = list(turns)
            self.requests = []
            self.issued = []

    def conversation(self) -> list[Any]:
        """Bodies of the recorded requests that offered tools (the agent loop)."""
        with self._lock:
            return [r.body for r in self.requests if _offers_tools(r.body)]

    def _next_reply(self, body: Any) -> dict:
        with self._lock:
            self.requests.append(Recorded("/v1/messages", body))
            if _offers_tools(body) and self._script:
                turn = self._script.pop(0)
                block = {"type": "tool_use", "id": f"toolu_e2e_{next(self._ids):04d}", "name": turn.name, "input": turn.input}
                self.issued.append(block["id"])
                return _message(next(self._ids), [block], "tool_use", body)
            return _message(next(self._ids), [{"type": "text", "text": FINAL_TEXT}], "end_turn", body)

    def _record_other(self, path: str, body: Any) -> None:
        with self._lock:
            self.requests.append(Recorded(path, body))


def _offers_tools(body: Any) -> bool:
    return isinstance(body, dict) and bool(body.get("tools"))


def _message(number: int, content: list[dict], stop_reason: str, request: Any) -> dict:
    """Each reply needs its own id: Claude Code merges assistant messages sharing one."""
    model = request.get("model", "stub") if isinstance(request, dict) else "stub"
    return {
        "id": f"msg_e2e_{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _sse_events(message: dict):
    head = dict(message, content=[], stop_reason=None)
    yield "message_start", {"type": "message_start", "message": head}
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            start = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": 5},
    }
    yield "message_stop", {"type": "message_stop"}


def _handler_for(server: ModelServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

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

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0]
            body = self._body()
            if path.rstrip("/").endswith("/v1/messages/count_tokens"):
                server._record_other(path, body)
                self._send_json(200, {"input_tokens": 10})
                return
            if not path.rstrip("/").endswith("/v1/messages"):
                server._record_other(path, body)
                self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})
                return
            message = server._next_reply(body)
            if not (isinstance(body, dict) and body.get("stream")):
                self._send_json(200, message)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for event, data in _sse_events(message):
                self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

        def do_GET(self) -> None:
            server._record_other(self.path, None)
            if self.path.split("?", 1)[0].rstrip("/").endswith("/v1/models"):
                self._send_json(200, {"data": [], "has_more": False})
                return
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler

