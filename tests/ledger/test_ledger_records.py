"""hooks/_common/ledger.py: bounded appends, the dispatch record's shape, the off switch."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hookmux_testing import HOOKS

sys.path.insert(0, str(HOOKS))
from _common import ledger  # noqa: E402


@pytest.fixture
def state(tmp_path, monkeypatch):
    for key in list(os.environ):
        if key.startswith("HOOKMUX_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


def record(**changes):
    values = dict(event="PreToolUse", host="claude", outcome="ok", reason=None, duration_ms=12.345,
                  rows=[("contraindication/check", "silent", 1.5)])
    values.update(changes)
    return ledger.dispatch_record(**values)


@pytest.mark.parametrize("value", [
    {"b": 1, "a": [1, 2.5, None, True, False, "x\u00e9\"\\\n"], "c": {"z": -3, "y": []}},
    {"t": 1796038996.655, "ms": 0.1, "rows": [["a", "b", 1e-07]], "big": 10 ** 20},
    [], {}, "", "\u2028\x00",
])
def test_encode_is_json_dumps_compact_sorted(value):
    assert ledger.encode(value) == json.dumps(value, separators=(",", ":"), sort_keys=True)


def test_encode_refuses_what_json_cannot_read():
    for bad in (float("nan"), float("inf"), object()):
        with pytest.raises((ValueError, TypeError)):
            ledger.encode({"x": bad})


def test_a_dispatch_record_holds_codes_names_and_numbers_only():
    rec = record(rows=[("contraindication/check", "emitted", 2), ("x" * 65, "silent", 1),
                       ("git push --force", "weird code!", 1), ("ok/name", "timeout", 8000.123)])
    assert set(rec) == {"v", "t", "event", "host", "outcome", "reason", "ms", "rows"}
    assert rec["rows"] == [["contraindication/check", "emitted", 2.0], ["?", "silent", 1.0],
                           ["?", "other", 1.0], ["ok/name", "timeout", 8000.12]]
    assert record(event="Pre ToolUse; rm -rf", outcome="weird")["event"] == "?"
    assert record(outcome="weird")["outcome"] == "failed-open"
    assert record(outcome="failed-open", reason="RuntimeError: secret=hunter2")["reason"] == "other"
    assert len(record(rows=[("r%d" % i, "silent", 1) for i in range(100)])["rows"]) == ledger.MAX_ROWS


def test_write_and_read_back(state):
    assert ledger.write_dispatch(record())
    assert ledger.write_dispatch(record(outcome="timeout"))
    path = state / "ledger" / "dispatch.jsonl"
    assert [r["outcome"] for r in ledger.read_records(str(path))] == ["ok", "timeout"]
    assert oct(path.stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("value", ["0", "off", "false", "no", "OFF"])
def test_the_environment_switch_turns_it_off(state, monkeypatch, value):
    monkeypatch.setenv("HOOKMUX_LEDGER", value)
    assert ledger.write_dispatch(record()) is False
    assert not state.exists()


def test_other_switch_values_keep_it_on(state, monkeypatch):
    for value in ("1", "on", ""):
        monkeypatch.setenv("HOOKMUX_LEDGER", value)
        assert ledger.write_dispatch(record())


def test_the_file_stays_bounded_and_keeps_the_newest(state, monkeypatch):
    monkeypatch.setenv("HOOKMUX_LEDGER_MAX_BYTES", "4096")
    for index in range(300):
        assert ledger.write_dispatch(record(duration_ms=index))
    path = state / "ledger" / "dispatch.jsonl"
    assert path.stat().st_size <= 4096
    records = ledger.read_records(str(path))
    assert records[-1]["ms"] == 299.0
    assert [r["ms"] for r in records] == sorted(r["ms"] for r in records)
    assert len(path.read_text().splitlines()) == len(records)  # only whole lines


def test_malformed_lines_are_skipped(state):
    ledger.write_dispatch(record())
    path = state / "ledger" / "dispatch.jsonl"
    with open(path, "ab") as handle:
        handle.write(b'{"half": \n\xff\xfe\n[1]\n')
    ledger.write_dispatch(record(outcome="timeout"))
    assert [r["outcome"] for r in ledger.read_records(str(path))] == ["ok", "timeout"]
    assert ledger.read_records(str(state / "missing.jsonl")) == []


def test_an_unwritable_state_dir_is_silent(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(blocker))
    assert ledger.write_dispatch(record()) is False
    assert blocker.read_text() == "x"


def test_writing_imports_no_json(tmp_path):
    code = ("import sys; sys.path.insert(0, %r); from _common import ledger;"
            "ledger.write_dispatch(ledger.dispatch_record('PreToolUse', 'claude', 'ok', None, 1.0, []));"
            "print(sorted(m for m in sys.modules if m.startswith('json')))" % str(HOOKS))
    env = {**os.environ, "HOOKMUX_STATE_DIR": str(tmp_path / "state")}
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]"


class FakeOutcome:
    def __init__(self, name, selected=True, ran=True, kind="ok", contexts=(), used=False, elapsed_ms=1.0):
        self.name, self.selected, self.ran, self.kind = name, selected, ran, kind
        self.contexts, self.used, self.elapsed_ms = list(contexts), used, elapsed_ms


@pytest.mark.parametrize("outcomes,expected,reason,codes", [
    ([FakeOutcome("a/x"), FakeOutcome("b/x", contexts=["c"], used=True), FakeOutcome("c/x", contexts=["c"]),
      FakeOutcome("d/x", selected=False)], "ok", None, ["silent", "emitted", "dropped"]),
    ([FakeOutcome("a/x"), FakeOutcome("b/x", kind="timeout", elapsed_ms=2000.0)], "timeout", None, ["silent", "timeout"]),
    ([FakeOutcome("a/x", ran=False, kind="timeout", elapsed_ms=None)], "timeout", None, ["not-run"]),
    ([FakeOutcome("a/x", kind="error"), FakeOutcome("b/x", kind="exit")], "failed-open", "row-error", ["error", "error"]),
    ([FakeOutcome("a/x", ran=False, kind="error", elapsed_ms=None), FakeOutcome("b/x", kind="error")],
     "failed-open", "import-error", ["import-error", "error"]),
    ([], "ok", None, []),
])
def test_records_from_outcome_records(outcomes, expected, reason, codes):
    rec = ledger.from_outcomes("PreToolUse", "copilot", outcomes, None, 3.0)
    assert (rec["outcome"], rec["reason"], [row[1] for row in rec["rows"]]) == (expected, reason, codes)
    assert all(isinstance(row[2], float) for row in rec["rows"])


def test_a_dispatcher_failure_wins():
    rec = ledger.from_outcomes(None, None, None, "dispatcher-error", 1.0)
    assert (rec["event"], rec["host"], rec["outcome"], rec["reason"], rec["rows"]) == (
        "none", "?", "failed-open", "dispatcher-error", [])


def test_a_reread_parses_only_what_was_appended_and_sees_every_change(state, monkeypatch):
    """A warm process (hookmux serve's worker) keeps what it parsed; the answer stays the file's."""
    path = state / "history.jsonl"
    ledger.append_records(str(path), [{"n": 1}, {"n": 2}])
    assert [r["n"] for r in ledger.read_records(str(path))] == [1, 2]
    parsed = []
    real = ledger._parse
    monkeypatch.setattr(ledger, "_parse", lambda data: parsed.append(data) or real(data))
    ledger.append_records(str(path), [{"n": 3}])
    assert [r["n"] for r in ledger.read_records(str(path))] == [1, 2, 3]
    assert parsed[0] == b'{"n":3}\n'  # the new line only
    with open(path, "ab") as handle:  # a line still being written: parsed, not kept
        handle.write(b'{"n":4}')
    assert [r["n"] for r in ledger.read_records(str(path))] == [1, 2, 3, 4]
    with open(path, "ab") as handle:
        handle.write(b'\n{"n":5,')
    assert [r["n"] for r in ledger.read_records(str(path))] == [1, 2, 3, 4]
    with open(path, "ab") as handle:
        handle.write(b'"m":0}\n')
    assert ledger.read_records(str(path))[3:] == [{"n": 4}, {"n": 5, "m": 0}]
    state_module = ledger._state()
    state_module.atomic_write_text(str(path), '{"n":9}\n')  # a compaction: another file
    assert ledger.read_records(str(path)) == [{"n": 9}]
    path.unlink()
    assert ledger.read_records(str(path)) == []
    ledger.append_records(str(path), [{"n": 10}])
    assert ledger.read_records(str(path)) == [{"n": 10}]
