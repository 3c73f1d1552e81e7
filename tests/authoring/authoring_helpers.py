"""Shared pieces of the authoring tests: a home to install into (the installer tests' Home)
and a hand-written user row in the live manifest, in the user's own formatting."""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "install"))
from install_helpers import Home, make_source  # noqa: E402,F401

USER_CHECK = '''import json, sys


def main():
    payload = json.load(sys.stdin)
    print(json.dumps({"additionalContext": "mine saw " + str(payload.get("tool_name") or payload.get("toolName"))}))
'''
# A row as a user types it: their own spacing, key order and a one-line object.
USER_ROW = '{ "script": "mine/check.py", "name": "mine/check",   "matcher": "^Bash$", "timeout": 3 }'


def manifest_path(h: Home) -> Path:
    return h.target / "_dispatch" / "manifest.json"


def add_user_row(h: Home, row_text: str = USER_ROW, event: str = "PreToolUse", script: str = "mine/check.py") -> str:
    """Write the user's check and put its row first in ``event``'s list, by text editing."""
    (h.target / Path(script).parent).mkdir(parents=True, exist_ok=True)
    (h.target / script).write_text(USER_CHECK)
    path = manifest_path(h)
    text = path.read_text()
    anchor = f'"{event}": {{'
    at = text.index('"checks": [', text.index(anchor)) + len('"checks": [')
    path.write_text(text[:at] + "\n        " + row_text + "," + text[at:])
    json.loads(path.read_text())
    return row_text


def rows(h: Home, event: str = "PreToolUse") -> list[dict]:
    return json.loads(manifest_path(h).read_text())["events"][event]["checks"]


def status(h: Home):
    return h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))
