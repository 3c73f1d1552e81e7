"""A loopback stand-in for the Anthropic Messages API, for driving the real CLIs
(tests/e2e, ``hookmux bench --turn``).

``POST /v1/messages`` answers a *conversation* request (one that offers tools) with
the next scripted turn -- a ``tool_use`` block -- and, once the script is used up,
with a text ``end_turn``. Requests without tools (titles, summaries, probes) get
text and do not consume the script. Every request body is recorded, so a test
can read exactly what the model was shown after the hooks ran.
Standard library only; binds 127.0.0.1.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hookmux.standin.base import FINAL_TEXT, JsonHandler, Recorded, StandIn  # noqa: F401  (Recorded: re-exported)


@dataclass
class ToolUse:
    name: str
    input: dict


class Handler(JsonHandler):
    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        body = self._body()
        if path.rstrip("/").endswith("/v1/messages/count_tokens"):
            self.stand_in._record(path, body)
            self._send_json(200, {"input_tokens": 10})
            return
        if not path.rstrip("/").endswith("/v1/messages"):
            self.stand_in._record(path, body)
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})
            return
        message = self.stand_in._next_reply(body)
        if isinstance(body, dict) and body.get("stream"):
            self._send_events(_sse_events(message))
        else:
            self._send_json(200, message)
        self.stand_in._mark_sent([b["id"] for b in message["content"] if b["type"] == "tool_use"])

    def do_GET(self) -> None:
        self.stand_in._record(self.path, None)
        if self.path.split("?", 1)[0].rstrip("/").endswith("/v1/models"):
            self._send_json(200, {"data": [], "has_more": False})
            return
        self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


class ModelServer(StandIn):
    """``with ModelServer() as server: server.script([ToolUse(...)]); url = server.url``."""

    Handler = Handler

    def _next_reply(self, body: Any) -> dict:
        number, turn = self._take("/v1/messages", body)
        if turn is None:
            return _message(number, [{"type": "text", "text": FINAL_TEXT}], "end_turn", body)
        block = {"type": "tool_use", "id": f"toolu_e2e_{number:04d}", "name": turn.name, "input": turn.input}
        self.issued.append(block["id"])
        return _message(number, [block], "tool_use", body)


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
