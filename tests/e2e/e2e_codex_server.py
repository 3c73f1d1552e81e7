"""A loopback stand-in for the OpenAI Responses API, for driving the real Codex CLI.

The Responses-API twin of hookmux/standin/anthropic.py (same shape: ``script`` the tool calls,
read back ``conversation()``). ``POST /v1/responses`` answers a *conversation* request
(one that offers tools) with the next scripted turn -- one ``function_call`` output
item -- and, once the script is used up, with an assistant message. Requests without
tools do not consume the script. Replies are server-sent events: ``response.created``,
``response.output_item.added`` / ``.done`` per item, ``response.completed`` with
``usage``. Every request body is recorded, so a test can read exactly what the model
was shown after the hooks ran. Standard library only; binds 127.0.0.1.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hookmux.standin.base import FINAL_TEXT, JsonHandler, StandIn


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


class Handler(JsonHandler):
    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        body = self._body()
        if not path.rstrip("/").endswith("/v1/responses"):
            self.stand_in._record(path, body)
            self._send_json(404, {"error": {"type": "not_found", "message": path}})
            return
        number, items = self.stand_in._next_reply(body)
        self._send_events((event["type"], event) for event in _sse_events(number, items, body))

    def do_GET(self) -> None:
        self.stand_in._record(self.path, None)
        if self.path.split("?", 1)[0].rstrip("/").endswith("/v1/models"):
            self._send_json(200, {"object": "list", "data": []})
            return
        self._send_json(404, {"error": {"type": "not_found", "message": self.path}})


class ResponsesServer(StandIn):
    """``with ResponsesServer() as server: server.script([...]); url = server.url + "/v1"``."""

    Handler = Handler

    def _next_reply(self, body: Any) -> tuple[int, list[dict]]:
        """The response's number and its output items."""
        number, turn = self._take("/v1/responses", body)
        if turn is None:
            return number, [{"type": "message", "id": f"msg_e2e_{number:04d}", "role": "assistant",
                             "status": "completed",
                             "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}]}]
        if isinstance(turn.arguments, str):
            item = {"type": "custom_tool_call", "id": f"ctc_e2e_{number:04d}",
                    "call_id": f"call_e2e_{number:04d}", "name": turn.name, "input": turn.arguments}
        else:
            item = {"type": "function_call", "id": f"fc_e2e_{number:04d}", "call_id": f"call_e2e_{number:04d}",
                    "name": turn.name, "arguments": json.dumps(turn.arguments)}
        if turn.namespace:
            item["namespace"] = turn.namespace
        self.issued.append(item["call_id"])
        return number, [item]


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
