"""The circuit breaker (hooks/_common/breaker.py), through the dispatcher process as a host runs it:
a row that times out or crashes N calls in a row is skipped for a cool-down, written to the
ledger as ``breaker-open``, and re-armed by a success or an edit of its script."""
from __future__ import annotations

import json
import os
import time

import pytest
from hookmux_testing import DISPATCH, hermetic_env, run_hook

PAYLOAD = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": "ls"}})
HANG = "import time\ndef main():\n    time.sleep(30)\n"
CRASH = "def main():\n    raise RuntimeError('boom')\n"
QUIET = "def main():\n    pass\n"
FLAKY = "import os\ndef main():\n    if os.environ.get('FAIL') == '1':\n        raise RuntimeError\n"
SPEAKS = "import json\ndef main():\n    print(json.dumps({'additionalContext': 'neighbour'}))\n"
TIMEOUT = 1.0


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "hooks"
    env = hermetic_env(tmp_path, HOOKMUX_BREAKER_COOLDOWN="4")

    def write(name, body):
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "check.py").write_text(body)

    def call(*names, **extra):
        checks = [{"name": f"{n}/check", "script": f"{n}/check.py", "timeout": TIMEOUT, "matcher": "^Bash$"}
                  for n in names]
        manifest = tmp_path / "manifest.json"
        manifest.write_text(json.dumps({"version": 1, "hooks_root": str(root),
                                        "events": {"PreToolUse": {"checks": checks}}}))
        started = time.monotonic()
        result = run_hook(DISPATCH, ["--manifest", str(manifest), "--trace", "PreToolUse"], PAYLOAD, {**env, **extra})
        assert result.returncode == 0, result.stderr
        return result, time.monotonic() - started

    def records():
        path = tmp_path / "state" / "ledger" / "dispatch.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def breaker_files():
        folder = tmp_path / "state" / "breaker"
        return sorted(p.name for p in folder.iterdir() if p.suffix == ".tsv") if folder.exists() else []

    call.write, call.records, call.breaker_files, call.root = write, records, breaker_files, root
    return call


def codes(record):
    return [code for _, code, _ in record["rows"]]


def test_a_hanging_row_costs_its_timeout_three_times_then_nothing_until_the_cool_down_ends(tree):
    tree.write("hangs", HANG)
    tree.write("speaks", SPEAKS)
    for _ in range(3):
        result, elapsed = tree("hangs", "speaks")
        assert elapsed >= TIMEOUT * 0.9
        assert b"timeout" in result.stderr
        assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "neighbour"
    skipped_at = time.monotonic()
    result, elapsed = tree("hangs", "speaks")
    assert elapsed < TIMEOUT * 0.8, "an open breaker must not wait for the row"
    assert b"skipped: breaker open: 3 failures in a row" in result.stderr
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "neighbour"
    assert [codes(r) for r in tree.records()] == [["timeout", "emitted"]] * 3 + [["breaker-open", "emitted"]]
    assert tree.records()[-1]["outcome"] == "ok"

    # After the cool-down (4 s) the row runs once more; failing again opens it for twice as long.
    time.sleep(max(0.0, 4.2 - (time.monotonic() - skipped_at)))
    result, elapsed = tree("hangs", "speaks")
    assert elapsed >= TIMEOUT * 0.9 and b"timeout" in result.stderr
    result, elapsed = tree("hangs", "speaks")
    assert elapsed < TIMEOUT * 0.8
    assert b"4 failures in a row" in result.stderr and b"of 8 s cool-down left" in result.stderr


def test_a_crashing_row_opens_it_too_and_a_success_after_the_cool_down_closes_it(tree):
    tree.write("flaky", FLAKY)
    fast = {"HOOKMUX_BREAKER_COOLDOWN": "1"}
    for _ in range(3):
        tree("flaky", FAIL="1", **fast)
    assert [codes(r) for r in tree.records()] == [["error"]] * 3
    result, _ = tree("flaky", FAIL="0", **fast)  # it would pass now, but the breaker is open
    assert b"skipped: breaker open" in result.stderr
    assert codes(tree.records()[-1]) == ["breaker-open"]
    time.sleep(1.2)
    result, _ = tree("flaky", FAIL="0", **fast)
    assert b"skipped" not in result.stderr and b"ok, silent" in result.stderr
    assert tree.breaker_files() == []  # closed: nothing left to remember
    # Counting starts again: two failures do not open it.
    tree("flaky", FAIL="1", **fast)
    tree("flaky", FAIL="1", **fast)
    result, _ = tree("flaky", FAIL="1", **fast)
    assert b"error RuntimeError" in result.stderr


def test_a_success_between_failures_resets_the_count(tree):
    tree.write("flaky", FLAKY)
    for fail in "1", "1", "0", "1", "1":
        tree("flaky", FAIL=fail)
    result, _ = tree("flaky", FAIL="0")
    assert b"skipped" not in result.stderr and b"ok, silent" in result.stderr


def test_an_edit_of_the_script_re_arms_it(tree):
    tree.write("hangs", HANG)
    for _ in range(3):
        tree("hangs")
    result, _ = tree("hangs")
    assert b"skipped: breaker open" in result.stderr
    tree.write("hangs", QUIET)  # the user fixed it: no waiting for the cool-down
    result, _ = tree("hangs")
    assert b"skipped" not in result.stderr and b"ok, silent" in result.stderr
    assert codes(tree.records()[-1]) == ["silent"]
    assert tree.breaker_files() == []


def test_settings_and_switch(tree):
    tree.write("flaky", CRASH)
    tree("flaky", HOOKMUX_BREAKER_AFTER="1")
    result, _ = tree("flaky", HOOKMUX_BREAKER_AFTER="1")
    assert b"skipped: breaker open: 1 failures in a row" in result.stderr
    result, _ = tree("flaky", HOOKMUX_BREAKER="0")
    assert b"skipped" not in result.stderr and b"error RuntimeError" in result.stderr


def test_no_match_and_healthy_calls_touch_no_breaker_file(tree, tmp_path):
    tree.write("quiet", QUIET)
    for _ in range(3):
        tree("quiet")
    assert tree.breaker_files() == []
    assert not (tmp_path / "state" / "breaker").exists()


def test_the_file_is_small_and_never_read_through_a_symlink(tree, tmp_path):
    tree.write("flaky", CRASH)
    for _ in range(3):
        tree("flaky")
    (name,) = tree.breaker_files()
    path = tmp_path / "state" / "breaker" / name
    text = path.read_text()
    assert text.startswith("hookmux-breaker\t1\t" + str(tree.root) + "\n") and len(text) < 1000
    assert "boom" not in text  # no exception text
    # A symlink put in its place is not followed: the breaker reads nothing and the row runs.
    moved = path.with_suffix(".real")
    path.rename(moved)
    path.symlink_to(moved)
    result, _ = tree("flaky")
    assert b"skipped" not in result.stderr and b"error RuntimeError" in result.stderr
