"""A loopback stand-in for the Gemini API, for driving the real Gemini CLI.

Gemini CLI 0.61.0 (``GOOGLE_GEMINI_BASE_URL`` pointed here) sends two kinds of request:

- ``POST /v1beta/models/<m>:generateContent`` -- the model router's classification (a JSON
  answer with ``complexity_reasoning`` / ``complexity_score``) and other one-shot calls; they
  get a fixed answer and never take the script;
- ``POST /v1beta/models/<m>:streamGenerateContent?alt=sse`` -- the agent loop. A request that
  offers tools takes the next scripted turn (one ``functionCall`` part) and, once the script
  is used up, gets a text turn. Server-sent events: ``data: {"candidates": [...]}``.

Every request body is recorded (``requests``), so a test reads exactly what the model was
shown after the hooks ran. The twin of ``hookmux.standin.anthropic.ModelServer`` (same ``script`` /
``conversation`` / ``issued``). Standard library only; binds 127.0.0.1.
"""
from __future__ import annotations

import json
from typing import Any

from hookmux.standin.anthropic import ToolUse
from hookmux.standin.base import FINAL_TEXT, JsonHandler, Recorded, StandIn

ROUTER_ANSWER = {"complexity_reasoning": "a scripted e2e turn", "complexity_score": 1}
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


class Handler(JsonHandler):
    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        body = self._body()
        if path.endswith(":streamGenerateContent"):
            self._send_events([(None, self.stand_in._stream_reply(path, body))])
        elif path.endswith(":generateContent"):
            self._send_json(200, self.stand_in._one_shot_reply(path, body))
        elif path.endswith(":countTokens"):
            self.stand_in._record(path, body)
            self._send_json(200, {"totalTokens": 10})
        else:
            self.stand_in._record(path, body)
            self._send_json(404, {"error": {"code": 404, "message": path, "status": "NOT_FOUND"}})

    def do_GET(self) -> None:
        self.stand_in._record(self.path, None)
        self._send_json(404, {"error": {"code": 404, "message": self.path, "status": "NOT_FOUND"}})


class GeminiServer(StandIn):
    """``with GeminiServer() as server: server.script([ToolUse("run_shell_command", {...})])``."""

    Handler = Handler

    def _in_conversation(self, recorded: Recorded) -> bool:
        return recorded.path.endswith(":streamGenerateContent") and _offers_tools(recorded.body)

    def _stream_reply(self, path: str, body: Any) -> dict:
        number, turn = self._take(path, body, _offers_tools(body))
        if turn is None:
            return _candidate({"text": FINAL_TEXT})
        call_id = f"call_e2e_{number:04d}"
        self.issued.append(call_id)
        return _candidate({"functionCall": {"id": call_id, "name": turn.name, "args": turn.input}})

    def _one_shot_reply(self, path: str, body: Any) -> dict:
        self._record(path, body)
        config = body.get("generationConfig", {}) if isinstance(body, dict) else {}
        wants_json = "json" in str(config.get("responseMimeType", "")) or "responseSchema" in config \
            or "responseJsonSchema" in config
        return _candidate({"text": json.dumps(ROUTER_ANSWER) if wants_json else FINAL_TEXT})


def _offers_tools(body: Any) -> bool:
    return isinstance(body, dict) and any(
        isinstance(tool, dict) and tool.get("functionDeclarations") for tool in body.get("tools") or [])


def _candidate(part: dict) -> dict:
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": USAGE,
        "modelVersion": "e2e-stand-in",
    }
