"""The Chat Completions stand-in over real HTTP: a scripted tool call, then a final text that
reports what the messages after it said; streaming and not; requests without tools leave the
script alone; everything recorded."""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from hookmux.standin.base import FINAL_TEXT
from hookmux.standin.openai_chat import ChatServer, ToolUse, after_call, report

TOOLS = [{"type": "function", "function": {"name": "run_shell_command", "parameters": {"type": "object"}}}]
COMMAND = "rm -rf /tmp/e2e-data-only"  # data: the stand-in only sends it back as a tool call's arguments


def wait_until(ready, seconds: float = 5.0) -> bool:
    """The handler marks a reply sent after its last byte is written, so the client may read it
    a moment before the mark lands."""
    end = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def post(url: str, body: dict, path: str = "/v1/chat/completions") -> tuple[int, str, str]:
    request = urllib.request.Request(url + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers.get("Content-Type", ""), answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read().decode()


def events(text: str) -> list:
    out = []
    for block in text.split("\n\n"):
        if block.startswith("data: "):
            data = block[len("data: "):]
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


def conversation(*after: dict) -> dict:
    return {"model": "qwen-stub", "tools": TOOLS, "messages": [{"role": "user", "content": "go"}, *after]}


def tool_turn(call_id: str, result: str, *extra: dict) -> list[dict]:
    call = {"id": call_id, "type": "function", "function": {"name": "run_shell_command", "arguments": "{}"}}
    return [{"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call_id, "content": result}, *extra]


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


def test_a_scripted_call_then_a_final_text_reporting_the_tool_result(server):
    server.script([ToolUse("run_shell_command", {"command": COMMAND})])
    status, kind, text = post(server.url, conversation())
    assert status == 200 and kind == "application/json"
    first = json.loads(text)
    choice = first["choices"][0]
    assert first["object"] == "chat.completion" and first["model"] == "qwen-stub"
    assert choice["finish_reason"] == "tool_calls"
    (call,) = choice["message"]["tool_calls"]
    assert call["function"]["name"] == "run_shell_command"
    assert json.loads(call["function"]["arguments"]) == {"command": COMMAND}
    assert server.issued == [call["id"]]
    assert wait_until(lambda: call["id"] in server.sent_at), "the reply's send time is never recorded"

    hook_note = {"role": "user", "content": [{"type": "text", "text": "hookmux: force push rewrote history"}]}
    status, _, text = post(server.url, conversation(*tool_turn(call["id"], "Blocked by hook: no", hook_note)))
    final = json.loads(text)["choices"][0]
    assert final["finish_reason"] == "stop" and "tool_calls" not in final["message"]
    assert final["message"]["content"].splitlines() == [
        FINAL_TEXT, "tool: Blocked by hook: no", "user: hookmux: force push rewrote history"]
    assert len(server.conversation()) == 2


def test_streaming_sends_chunks_that_add_up_to_the_call_then_done(server):
    server.script([ToolUse("write_file", {"file_path": "a.txt", "content": "x"})])
    status, kind, text = post(server.url, conversation() | {"stream": True, "stream_options": {"include_usage": True}})
    assert status == 200 and kind == "text/event-stream"
    chunks = events(text)
    assert chunks[-1] == "[DONE]"
    assert chunks[-2]["choices"] == [] and chunks[-2]["usage"]["total_tokens"] == 15
    deltas = [c["choices"][0] for c in chunks[:-2]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks[:-2])
    assert deltas[0]["delta"]["role"] == "assistant"
    assert deltas[-1]["finish_reason"] == "tool_calls"
    parts = [d["delta"]["tool_calls"][0] for d in deltas if "tool_calls" in d["delta"]]
    assert parts[0]["id"] == server.issued[0] and parts[0]["function"]["name"] == "write_file"
    assert json.loads("".join(p["function"]["arguments"] for p in parts)) == {"file_path": "a.txt", "content": "x"}

    status, _, text = post(server.url, conversation(*tool_turn(server.issued[0], "wrote a.txt")) | {"stream": True})
    chunks = events(text)
    assert chunks[-1] == "[DONE]" and not any("usage" in c for c in chunks[:-1])
    said = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks[:-1])
    assert said == f"{FINAL_TEXT}\ntool: wrote a.txt"
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"


def test_a_request_without_tools_gets_text_and_leaves_the_script(server):
    server.script([ToolUse("run_shell_command", {"command": "echo hi"})])
    _, _, text = post(server.url, {"model": "m", "messages": [{"role": "user", "content": "next speaker?"}]})
    assert json.loads(text)["choices"][0]["message"]["content"] == FINAL_TEXT
    assert server.issued == [] and server.conversation() == []
    _, _, text = post(server.url, conversation())
    assert json.loads(text)["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "run_shell_command"
    assert len(server.recorded()) == 2


def test_other_paths_are_recorded_and_refused(server):
    status, _, text = post(server.url, {"x": 1}, path="/v1/responses")
    assert status == 404 and "/v1/responses" in text
    assert [r.path for r in server.recorded()] == ["/v1/responses"]
    with urllib.request.urlopen(server.url + "/v1/models", timeout=10) as answer:
        assert json.loads(answer.read())["data"][0]["id"] == "stub"


def test_after_call_reads_the_tool_message_and_what_came_with_it():
    request = conversation(*tool_turn("call_1", "out", {"role": "system", "content": "ctx"}),
                           {"role": "assistant", "content": "later"}, {"role": "user", "content": "not it"})
    seen = after_call(request, "call_1")
    assert seen.result == "out" and seen.extra == ["ctx"]
    with pytest.raises(AssertionError, match="call_2"):
        after_call(request, "call_2")
    assert report({"messages": [{"role": "user", "content": "go"}]}) == FINAL_TEXT
