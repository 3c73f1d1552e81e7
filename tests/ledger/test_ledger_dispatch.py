"""The dispatcher process writes one terminal-ledger record per dispatch, as a host runs it."""
from __future__ import annotations

import json
import textwrap

import pytest
from hookmux_testing import DISPATCH, hermetic_env, run_hook

ROWS = {
    "quiet": "def main():\n    pass\n",
    "speaks": "import json\ndef main():\n    print(json.dumps({'additionalContext': 'hello'}))\n",
    "raises": "def main():\n    raise RuntimeError('secret=hunter2 in the message')\n",
    "exits": "import sys\ndef main():\n    sys.exit(3)\n",
    "hangs": "import time\ndef main():\n    time.sleep(30)\n",
    "broken": "def main(:\n",
    "muted": "import json\ndef main():\n    print(json.dumps({'additionalContext': 'dropped'}))\n",
}
PAYLOAD = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": "echo ghp_" + "Q" * 36}})


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "hooks"
    for name, body in ROWS.items():
        (root / name).mkdir(parents=True)
        (root / name / "check.py").write_text(textwrap.dedent(body))
    env = hermetic_env(tmp_path)

    def dispatch(*names, event="PreToolUse", payload=PAYLOAD, manifest=None, **extra):
        checks = [{"name": f"{n}/check", "script": f"{n}/check.py", "timeout": 1 if n == "hangs" else 5,
                   "matcher": "^Bash$", "emits": n != "muted"} for n in names]
        path = tmp_path / "manifest.json"
        path.write_text(json.dumps({"version": 1, "hooks_root": str(root), "events": {"PreToolUse": {"checks": checks}}}))
        result = run_hook(DISPATCH, ["--manifest", str(manifest or path), event], payload, {**env, **extra})
        assert result.returncode == 0
        return result

    def records():
        path = tmp_path / "state" / "ledger" / "dispatch.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    dispatch.records = records
    return dispatch


def test_ok_rows_and_their_codes(tree):
    tree("quiet", "speaks", "muted")
    (record,) = tree.records()
    assert (record["event"], record["host"], record["outcome"], record["reason"]) == ("PreToolUse", "claude", "ok", None)
    assert [row[:2] for row in record["rows"]] == [
        ["quiet/check", "silent"], ["speaks/check", "emitted"], ["muted/check", "dropped"]]
    assert all(row[2] >= 0 for row in record["rows"]) and record["ms"] >= max(row[2] for row in record["rows"])


def test_a_timeout(tree):
    tree("quiet", "hangs")
    (record,) = tree.records()
    assert record["outcome"] == "timeout" and record["rows"][0][1] == "silent"
    assert record["rows"][1][1] in ("timeout", "not-run")  # not-run: a loaded machine spent the budget importing


@pytest.mark.parametrize("row,code,reason", [("raises", "error", "row-error"), ("exits", "error", "row-error"),
                                             ("broken", "import-error", "import-error")])
def test_failed_open_rows(tree, row, code, reason):
    tree("speaks", row)
    (record,) = tree.records()
    assert (record["outcome"], record["reason"]) == ("failed-open", reason)
    assert record["rows"][1][:2] == [f"{row}/check", code]
    assert "hunter2" not in json.dumps(record) and "RuntimeError" not in json.dumps(record)


def test_a_dispatcher_failure_is_failed_open(tree, tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    tree("quiet", manifest=tmp_path / "bad.json")
    (record,) = tree.records()
    assert (record["outcome"], record["reason"], record["rows"]) == ("failed-open", "dispatcher-error", [])


def test_one_record_per_dispatch_even_when_nothing_runs(tree):
    tree("quiet", payload=json.dumps({"session_id": "s", "tool_name": "Write", "tool_input": {}}))
    tree("quiet", event="Stop", payload="{}")
    tree("quiet", event="", payload="not json")
    assert [(r["event"], r["outcome"], r["rows"]) for r in tree.records()] == [
        ("PreToolUse", "ok", []), ("Stop", "ok", []), ("none", "ok", [])]


def test_copilot_host_is_recorded(tree):
    tree("quiet", event="preToolUse", payload=json.dumps({"sessionId": "s", "toolName": "bash", "toolArgs": {}}))
    assert [(r["event"], r["host"]) for r in tree.records()] == [("PreToolUse", "copilot")]


def test_switched_off(tree, tmp_path):
    tree("quiet", "speaks", HOOKMUX_LEDGER="0")
    assert tree.records() == [] and not (tmp_path / "state").exists()


def test_no_payload_content(tree):
    tree("speaks", "raises")
    text = json.dumps(tree.records())
    assert "ghp_" not in text and "echo" not in text and "hello" not in text
