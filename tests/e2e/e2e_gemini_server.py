"""A loopback stand-in for the Gemini API, for driving the real Gemini CLI.

Gemini CLI 0.61.0 (``GOOGLE_GEMINI_BASE_URL`` pointed here) sends two kinds of request:

- ``POST /v1beta/models/<m>:generateContent`` -- the model router's classification (a JSON
  answer with ``complexity_reasoning`` / ``complexity_score``) and other one-shot calls; they
  get a fixed answer and never take the script;
- ``POST /v1beta/models/<m>:streamGenerateContent?alt=sse`` -- the agent loop. A request that
  offers tools takes the next scripted turn (one ``functionCall`` part) and, once the script
  is used up, gets a text turn. Server-sent events: ``data: {"candidates": [...]}``.

Every request body is recorded (``requests``), so a test reads exactly what the model was
shown after the hooks ran. The twin of ``e2e_model_server.ModelServer`` (same ``script`` /
``conversation`` / ``issued``). Standard library only; binds 127.0.0.1.
"""
from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from e2e_model_server import FINAL_TEXT, Recorded, ToolUse

ROUTER_ANSWER = {"complexity_reasoning": "a scripted e2e turn", "complexity_score": 1}
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


class GeminiServer:
    """``with GeminiServer() as server: server.script([ToolUse("run_shell_command", {...})])``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: list[ToolUse] = []
        self._ids = itertools.count(1)
        self.requests: list[Recorded] = []
        self.issued: list[str] = []  # ids of the functionCall parts sent, in order
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "GeminiServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, turns: list[ToolUse]) -> None:
        """Reset the recording and queue functionCall turns for the next conversation."""
        with self._lock:
            self._script = list(turns)
            self.requests = []
            self.issued = []

    def conversation(self) -> list[Any]:
        """Bodies of the recorded streaming requests that offered tools (the agent loop)."""
        with self._lock:
            return [r.body for r in self.requests if r.path.endswith(":streamGenerateContent") and _offers_tools(r.body)]

    def _stream_reply(self, path: str, body: Any) -> dict:
        with self._lock:
            self.requests.append(Recorded(path, body))
            if _offers_tools(body) and self._script:
                turn = self._script.pop(0)
                call_id = f"call_e2e_{next(self._ids):04d}"
                self.issued.append(call_id)
                return _candidate({"functionCall": {"id": call_id, "name": turn.name, "args": turn.input}})
            return _candidate({"text": FINAL_TEXT})

    def _one_shot_reply(self, path: str, body: Any) -> dict:
        with self._lock:
            self.requests.append(Recorded(path, body))
        config = body.get("generationConfig", {}) if isinstance(body, dict) else {}
        wants_json = "json" in str(config.get("responseMimeType", "")) or "responseSchema" in config \
            or "responseJsonSchema" in config
        return _candidate({"text": json.dumps(ROUTER_ANSWER) if wants_json else FINAL_TEXT})

    def _record_other(self, path: str, body: Any) -> None:
        with self._lock:
            self.requests.append(Recorded(path, body))


def _offers_tools(body: Any) -> bool:
    return isinstance(body, dict) and any(
        isinstance(tool, dict) and tool.get("functionDeclarations") for tool in body.get("tools") or [])


def _candidate(part: dict) -> dict:
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": USAGE,
        "modelVersion": "e2e-stand-in",
    }


def _handler_for(server: GeminiServer):
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
            if path.endswith(":streamGenerateContent"):
                reply = server._stream_reply(path, body)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(f"data: {json.dumps(reply)}\n\n".encode())
                self.wfile.flush()
                self.close_connection = True
            elif path.endswith(":generateContent"):
                self._send_json(200, server._one_shot_reply(path, body))
            elif path.endswith(":countTokens"):
                server._record_other(path, body)
                self._send_json(200, {"totalTokens": 10})
            else:
                server._record_other(path, body)
                self._send_json(404, {"error": {"code": 404, "message": path, "status": "NOT_FOUND"}})

        def do_GET(self) -> None:
            server._record_other(self.path, None)
            self._send_json(404, {"error": {"code": 404, "message": self.path, "status": "NOT_FOUND"}})

    return Handler
