"""codex_trust against stand-in app-servers: a silent one times out, an erroring one and a
crashing one give clean errors, a missing binary is named. The real binary: tests/e2e."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from hookmux.installer import codex_trust


def _fake(tmp_path: Path, body: str) -> str:
    """An executable ``codex`` that runs ``body`` (Python) for ``codex app-server``."""
    script = tmp_path / "codex"
    script.write_text(f"#!{sys.executable}\nimport json, sys, time\n{body}\n")
    script.chmod(0o755)
    return str(script)


ANSWERS_INITIALIZE = """
def reply(answer):
    for line in sys.stdin:
        message = json.loads(line)
        if "id" in message:
            sys.stdout.write(json.dumps(answer(message)) + "\\n")
            sys.stdout.flush()
"""


def test_a_silent_app_server_times_out(tmp_path):
    codex = _fake(tmp_path, "time.sleep(30)")
    started = time.monotonic()
    with pytest.raises(codex_trust.CodexTrustError, match="did not answer initialize in time"):
        codex_trust.trust_state(codex, tmp_path, tmp_path / "hooks.json", timeout=0.5)
    assert time.monotonic() - started < 10


def test_an_error_reply_names_the_method(tmp_path):
    codex = _fake(tmp_path, ANSWERS_INITIALIZE + """
reply(lambda m: {"id": m["id"], "result": {}} if m["method"] == "initialize"
      else {"id": m["id"], "error": {"code": -32600, "message": "nope"}})
""")
    with pytest.raises(codex_trust.CodexTrustError, match="hooks/list: nope"):
        codex_trust.trust_state(codex, tmp_path, tmp_path / "hooks.json")


def test_a_crash_reports_its_stderr(tmp_path):
    codex = _fake(tmp_path, "sys.stderr.write('boom: no config\\n'); sys.exit(3)")
    with pytest.raises(codex_trust.CodexTrustError, match="exited .*boom: no config"):
        codex_trust.trust_state(codex, tmp_path, tmp_path / "hooks.json")


def test_trusts_only_the_hooks_it_is_told_are_ours(tmp_path):
    hooks_file = tmp_path / "hooks.json"
    log = tmp_path / "requests.jsonl"
    codex = _fake(tmp_path, ANSWERS_INITIALIZE + f"""
log = open({str(log)!r}, "a")
def answer(m):
    log.write(json.dumps(m) + "\\n"); log.flush()
    if m["method"] == "hooks/list":
        hook = lambda key, command, status: {{"key": key, "command": command, "sourcePath": {str(hooks_file)!r},
            "eventName": "preToolUse", "matcher": None, "currentHash": "sha256:" + command, "trustStatus": status}}
        return {{"id": m["id"], "result": {{"data": [{{"hooks": [
            hook({str(hooks_file)!r} + ":pre_tool_use:0:0", "user", "untrusted"),
            hook({str(hooks_file)!r} + ":pre_tool_use:1:0", "ours", "untrusted"),
            hook({str(hooks_file)!r} + ":stop:0:0", "ours-too", "trusted")]}}]}}}}
    if m["method"] == "config/read":
        return {{"id": m["id"], "result": {{"layers": [{{"name": {{"type": "user"}}, "config": {{"hooks": {{"state": {{
            {str(hooks_file)!r} + ":stop:0:0": {{"trusted_hash": "x"}},
            {str(hooks_file)!r} + ":stop:5:0": {{"trusted_hash": "y"}},
            "/elsewhere/hooks.json:stop:5:0": {{"trusted_hash": "z"}}}}}}}}}}]}}}}
    return {{"id": m["id"], "result": {{}}}}
reply(answer)
""")
    report = codex_trust.trust_own(codex, tmp_path, hooks_file, lambda command: command.startswith("ours"))
    assert report.trusted == [f"{hooks_file}:pre_tool_use:1:0"]
    assert report.kept == [f"{hooks_file}:stop:0:0"]
    assert report.forgotten == [f"{hooks_file}:stop:5:0"]
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    write = next(m for m in sent if m["method"] == "config/batchWrite")
    assert write["params"]["edits"] == [{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": {
        f"{hooks_file}:pre_tool_use:1:0": {"trusted_hash": "sha256:ours"}}}]
    forget = next(m for m in sent if m["method"] == "config/value/write")
    assert forget["params"] == {"keyPath": f'hooks.state."{hooks_file}:stop:5:0"', "value": None,
                                "mergeStrategy": "replace"}


def test_find_codex(tmp_path, monkeypatch):
    with pytest.raises(codex_trust.CodexTrustError, match="not an executable file"):
        codex_trust.find_codex(tmp_path / "missing")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert codex_trust.find_codex() is None
    codex = _fake(tmp_path, "")
    assert codex_trust.find_codex() == codex
    assert codex_trust.find_codex(os.path.relpath(codex)) == codex
