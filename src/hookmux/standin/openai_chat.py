"""A loopback stand-in for OpenAI's Chat Completions API, for driving the real CLIs that talk to
an OpenAI-compatible endpoint (Qwen Code's ``OPENAI_BASE_URL``, Cline's, opencode's, Pi's).

``POST …/chat/completions`` answers a *conversation* request (one that offers ``tools``) with
the next scripted turn -- one ``tool_calls`` entry whose arguments are the scripted input --
and, once the script is used up, with a final text: ``done`` and then, one line each, what the
messages after the model's last turn said (the tool result, any context a hook added), so the
CLI's own output shows what the model was shown. Requests without tools (titles, next-speaker
checks, probes) get ``done`` and do not consume the script. ``"stream": true`` gets
``chat.completion.chunk`` server-sent events ending in ``data: [DONE]`` (a usage chunk first
when ``stream_options.include_usage`` asks for it); otherwise one ``chat.completion``. Every
request body is recorded, so a test reads exactly what the model was shown after the hooks ran
(``after_call``). Scripted with ``anthropic.ToolUse`` (name, input) like the other stand-ins.
Standard library only; binds 127.0.0.1.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from hookmux.standin.anthropic import ToolUse  # noqa: F401  (re-exported: the script's turns)
from hookmux.standin.base import FINAL_TEXT, JsonHandler, StandIn

USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


class Handler(JsonHandler):
    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        body = self._body()
        if not path.rstrip("/").endswith("/chat/completions"):
            self.stand_in._record(path, body)
            self._send_json(404, {"error": {"type": "not_found", "message": path}})
            return
        completion = self.stand_in._next_reply(path, body)
        if isinstance(body, dict) and body.get("stream"):
            usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._send_events((None, chunk) for chunk in _chunks(completion, usage))
        else:
            self._send_json(200, completion)
        message = completion["choices"][0]["message"]
        self.stand_in._mark_sent([call["id"] for call in message.get("tool_calls") or ()])

    def do_GET(self) -> None:
        self.stand_in._record(self.path, None)
        if self.path.split("?", 1)[0].rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "stub", "object": "model", "owned_by": "e2e"}]})
            return
        self._send_json(404, {"error": {"type": "not_found", "message": self.path}})


class ChatServer(StandIn):
    """``with ChatServer() as server: server.script([ToolUse("run_shell_command", {...})])``;
    the CLI's base URL is ``server.url + "/v1"``."""

    Handler = Handler

    def _next_reply(self, path: str, body: Any) -> dict:
        number, turn = self._take(path, body)
        if turn is None:
            text = report(body) if isinstance(body, dict) and body.get("tools") else FINAL_TEXT
            return _completion(number, {"role": "assistant", "content": text}, "stop", body)
        call = {"id": f"call_e2e_{number:04d}", "type": "function",
                "function": {"name": turn.name, "arguments": json.dumps(turn.input)}}
        self.issued.append(call["id"])
        return _completion(number, {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls", body)


def message_text(content: Any) -> str:
    """The text of a message's ``content``: a string, or a list of ``{"type": "text", "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(message_text(part) for part in content)
    if isinstance(content, dict):
        return str(content.get("text", ""))
    return ""


def report(body: dict) -> str:
    """The final text: ``done``, then the text of each message after the model's last turn."""
    messages = body.get("messages") or []
    last = max((i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"),
               default=None)
    if last is None:
        return FINAL_TEXT
    said = [f"{m.get('role')}: {message_text(m.get('content'))}" for m in messages[last + 1:] if isinstance(m, dict)]
    return "\n".join([FINAL_TEXT, *said])


@dataclass
class AfterCall:
    """What the model was shown after one of its tool calls."""

    result: str        # the ``role: "tool"`` message answering the call
    extra: list[str]   # every other message's text up to the next assistant turn


def after_call(request: dict, call_id: str) -> AfterCall:
    messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
    start = None
    for i, message in enumerate(messages):
        if message.get("role") == "assistant" and any(
            isinstance(call, dict) and call.get("id") == call_id for call in message.get("tool_calls") or ()
        ):
            start = i
    assert start is not None, f"tool call {call_id} is not in the request"
    result, extra = None, []
    for message in messages[start + 1:]:
        if message.get("role") == "assistant":
            break
        text = message_text(message.get("content"))
        if message.get("role") == "tool" and message.get("tool_call_id") == call_id:
            result = text
        elif text:
            extra.append(text)
    assert result is not None, f"no tool message for {call_id}"
    return AfterCall(result, extra)


def _completion(number: int, message: dict, finish_reason: str, request: Any) -> dict:
    model = request.get("model", "stub") if isinstance(request, dict) else "stub"
    return {
        "id": f"chatcmpl-e2e-{number:04d}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": dict(USAGE),
    }


def _chunks(completion: dict, usage: bool):
    """The completion as the chunks a streaming endpoint sends, then ``[DONE]``."""
    head = {key: completion[key] for key in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    choice = completion["choices"][0]
    message = choice["message"]

    def chunk(delta: dict, finish_reason: str | None = None) -> dict:
        return head | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}]}

    yield chunk({"role": "assistant", "content": ""})
    if message.get("content"):
        yield chunk({"content": message["content"]})
    for index, call in enumerate(message.get("tool_calls") or ()):
        function = call["function"]
        yield chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                     "function": {"name": function["name"], "arguments": ""}}]})
        yield chunk({"tool_calls": [{"index": index, "function": {"arguments": function["arguments"]}}]})
    yield chunk({}, choice["finish_reason"])
    if usage:
        yield head | {"choices": [], "usage": completion["usage"]}
    yield "[DONE]"
