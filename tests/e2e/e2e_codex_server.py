"""A loopback stand-in for the OpenAI Responses API, for driving the real Codex CLI.

The Responses-API twin of e2e_model_server.py (same shape: ``script`` the tool calls,
read back ``conversation()``). ``POST /v1/responses`` answers a *conversation* request
(one that offers tools) with the next scripted turn -- one ``function_call`` output
item -- and, once the script is used up, with an assistant message. Requests without
tools do not consume the script. Replies are server-sent events: ``response.created``,
``response.output_item.added`` / ``.done`` per item, ``response.completed`` with
``usage``. Every request body is recorded, so a test can read exactly what the model
was shown after the hooks ran. Standard library only; binds 127.0.0.1.
"""
from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from e2e_model_server import FINAL_TEXT, Recorded


@dataclass
class FunctionCall:
    """One tool call the model makes: ``exec_command`` with ``{"cmd": ...}``, or
    ``spawn_agent`` (namespace ``multi_agent_v1``) with ``{"agent_type": ..., "message": ...}``;
    a freeform (``custom``) tool such as ``apply_patch`` takes its raw text as ``arguments``."""

    name: str
    arguments: dict | str
    namespace: str | None = None


def shell(cmd: str) -> FunctionCall:
    return FunctionCall("exec_command", {"cmd": cmd})


def spawn_agent(agent_type: str, message: str = "Do the task.") -> FunctionCall:
    return FunctionCall("spawn_agent", {"agent_type": agent_type, "message": message}, "multi_agent_v1")


def apply_patch(patch: str) -> FunctionCall:
    """Codex's freeform apply_patch tool (offered to models whose catalog entry says so, e.g. gpt-5.5)."""
    return FunctionCall("apply_patch", patch)


@dataclass
class ResponsesServer:
    """``with ResponsesServer() as server: server.script([...]); url = server.url + "/v1"``."""

    requests: list[Recorded] = field(default_factory=list)
    issued: list[str] = field(default_factory=list)  # call_ids of the function calls sent, in order

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._script: list[FunctionCall] = []
        self._ids = itertools.count(1)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "ResponsesServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, turns: list[FunctionCall]) -> None:
        """Reset the recording and queue function calls for the next conversation."""
        with self._lock:
            self._script = list(turns)
            self.requests = []
            self.issued = []

    def conversation(self) -> list[Any]:
        """Bodies of the recorded requests that offered tools (the agent loop)."""
        with self._lock:
            return [r.body for r in self.requests if _offers_tools(r.body)]

    def _next_reply(self, body: Any) -> list[dict]:
        """The output items of the next response."""
        with self._lock:
            self.requests.append(Recorded("/v1/responses", body))
            number = next(self._ids)
            if _offers_tools(body) and self._script:
                turn = self._script.pop(0)
                if isinstance(turn.arguments, str):
                    item = {"type": "custom_tool_call", "id": f"ctc_e2e_{number:04d}",
                            "call_id": f"call_e2e_{number:04d}", "name": turn.name, "input": turn.arguments}
                else:
                    item = {"type": "function_call", "id": f"fc_e2e_{number:04d}", "call_id": f"call_e2e_{number:04d}",
                            "name": turn.name, "arguments": json.dumps(turn.arguments)}
                if turn.namespace:
                    item["namespace"] = turn.namespace
                self.issued.append(item["call_id"])
                return [item]
            return [{"type": "message", "id": f"msg_e2e_{number:04d}", "role": "assistant", "status": "completed",
                     "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}]}]

    def _record_other(self, path: str, body: Any) -> None:
        with self._lock:
            self.requests.append(Recorded(path, body))


def _offers_tools(body: Any) -> bool:
    return isinstance(body, dict) and bool(body.get("tools"))


def _sse_events(number: int, items: list[dict], request: Any):
    model = request.get("model", "stub") if isinstance(request, dict) else "stub"
    response = {"id": f"resp_e2e_{number:04d}", "object": "response", "model": model, "status": "in_progress",
                "output": []}
    yield {"type": "response.created", "response": response}
    for index, item in enumerate(items):
        yield {"type": "response.output_item.added", "output_index": index, "item": item}
        yield {"type": "response.output_item.done", "output_index": index, "item": item}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    yield {"type": "response.completed", "response": dict(response, status="completed", output=items, usage=usage)}


def _handler_for(server: ResponsesServer):
    numbers = itertools.count(1)

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
            if not path.rstrip("/").endswith("/v1/responses"):
                server._record_other(path, body)
                self._send_json(404, {"error": {"type": "not_found", "message": path}})
                return
            items = server._next_reply(body)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for event in _sse_events(next(numbers), items, body):
                self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

        def do_GET(self) -> None:
            server._record_other(self.path, None)
            if self.path.split("?", 1)[0].rstrip("/").endswith("/v1/models"):
                self._send_json(200, {"object": "list", "data": []})
                return
            self._send_json(404, {"error": {"type": "not_found", "message": self.path}})

    return Handler
