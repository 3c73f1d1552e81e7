"""Build temporary hooks roots and manifests for dispatcher tests."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

from hookmux import testing

dispatch = testing.dispatcher()  # the repo's dispatcher, never a live one

EMIT = '''
import json, sys
def main():
    sys.stdin.read()
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": %r}}))
'''


def write_check(root: Path, script: str, body: str) -> str:
    path = root / script
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))
    return script


def emitter(root: Path, script: str, text: str) -> str:
    return write_check(root, script, EMIT % text)


def manifest(root: Path, rows: list[dict], event: str = "PreToolUse", **event_fields) -> dict:
    full_rows = [{"name": row.get("name", row["script"].removesuffix(".py")), **row} for row in rows]
    return {"version": 1, "hooks_root": str(root), "events": {event: {"checks": full_rows, **event_fields}}}


def write_manifest(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data))
    return path


def context_of(output: str) -> str:
    assert output.endswith("\n") and output.count("\n") == 1, output
    return testing.context_of(output)


def bash_payload(command: str = "ls", **extra) -> str:
    return testing.pre_tool_use("Bash", {"command": command}, session_id="s1", **extra).stdin
