"""``hookmux log``: the summary of the dispatch ledger, as text and as JSON."""
from __future__ import annotations

import json
import os
import sys

import pytest
from hookmux_testing import HOOKS

from hookmux import cli
from hookmux.commands.log import percentile

sys.path.insert(0, str(HOOKS))
from _common import ledger  # noqa: E402


@pytest.fixture
def state(tmp_path, monkeypatch):
    for key in list(os.environ):
        if key.startswith("HOOKMUX_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


def write(event="PreToolUse", outcome="ok", reason=None, ms=10.0, rows=()):
    assert ledger.write_dispatch(ledger.dispatch_record(event, "claude", outcome, reason, ms, list(rows)))


def log(capsys, *args):
    assert cli.main(["log", *args]) == 0
    return capsys.readouterr().out


def seed():
    for index in range(18):
        write(ms=10.0 + index, rows=[("contraindication/check", "silent" if index % 3 else "emitted", 2.0),
                                     ("calibrated-silence/reactions", "silent", 1.0)])
    write(outcome="timeout", ms=8010.0, rows=[("slow/check", "timeout", 8000.0)])
    write(outcome="failed-open", reason="row-error", ms=40.0, rows=[("contraindication/check", "error", 3.0)])
    write(event="UserPromptSubmit", ms=9.0, rows=[("calibrated-silence/reactions", "silent", 0.5)])
    write(event="PostToolUse", outcome="failed-open", reason="dispatcher-error", ms=5.0)


@pytest.mark.parametrize("values,p50,p95", [
    ([], None, None), ([7.0], 7.0, 7.0), ([1.0, 2.0], 1.0, 2.0),
    ([float(v) for v in range(1, 101)], 50.0, 95.0), ([float(v) for v in range(1, 21)], 10.0, 19.0),
])
def test_percentiles_are_nearest_rank(values, p50, p95):
    assert (percentile(values, 0.5), percentile(values, 0.95)) == (p50, p95)


def test_json_summary(state, capsys):
    seed()
    report = json.loads(log(capsys, "--json", "-n", "3"))
    assert report["dispatches"] == 22 and report["enabled"] is True
    assert report["outcomes"] == {"ok": 19, "timeout": 1, "failed-open": 2}
    assert report["failed_open_reasons"] == {"dispatcher-error": 1, "row-error": 1}
    durations = sorted([10.0 + i for i in range(18)] + [8010.0, 40.0, 9.0, 5.0])
    assert report["p50_ms"] == durations[10] and report["p95_ms"] == durations[20]
    rows = {(r["name"], r["event"]): r for r in report["rows"]}
    check = rows[("contraindication/check", "PreToolUse")]
    assert (check["runs"], check["emitted"], check["silent"], check["error"]) == (19, 6, 12, 1)
    assert rows[("slow/check", "PreToolUse")]["timeout"] == 1
    assert rows[("calibrated-silence/reactions", "UserPromptSubmit")]["runs"] == 1
    assert [r["event"] for r in report["recent"]] == ["PreToolUse", "UserPromptSubmit", "PostToolUse"]


def test_text_summary(state, capsys):
    seed()
    out = log(capsys)
    assert "22 dispatches" in out
    assert "ok 19, timeout 1, failed open 2 (dispatcher-error 1, row-error 1)" in out
    assert "duration: p50 18.0 ms, p95 40.0 ms" in out
    line = next(line for line in out.splitlines() if line.startswith("contraindication/check"))
    assert line.split()[1:7] == ["PreToolUse", "19", "6", "12", "0", "1"]
    assert "failed-open (dispatcher-error)  5.0 ms  no row selected" in out


def test_event_filter(state, capsys):
    seed()
    report = json.loads(log(capsys, "--json", "--event", "UserPromptSubmit"))
    assert report["dispatches"] == 1 and report["p50_ms"] == 9.0


def test_empty_and_switched_off(state, capsys, monkeypatch):
    assert "no dispatches recorded" in log(capsys)
    monkeypatch.setenv("HOOKMUX_LEDGER", "0")
    out = log(capsys)
    assert "off: HOOKMUX_LEDGER" in out
    assert json.loads(log(capsys, "--json"))["enabled"] is False


def test_malformed_records_are_ignored(state, capsys):
    write()
    path = state / "ledger" / "dispatch.jsonl"
    with open(path, "a") as handle:
        handle.write('{"v": 1, "event": "PreToolUse"}\n{"v": 2, "event": "X", "ms": 1, "rows": []}\nnot json\n')
    assert json.loads(log(capsys, "--json"))["dispatches"] == 1


def test_calibrated_silence_section(state, capsys):
    from hookmux_testing import HOOKS as hooks
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("cs_for_log", hooks / "calibrated-silence" / "calibrated_silence.py")
    cs = module_from_spec(spec)
    spec.loader.exec_module(cs)
    for index in range(3):
        cs.record_interjection("contraindication", "GIT-RESET-HARD", "s%d" % index)
        cs.record_reaction("contraindication", "GIT-RESET-HARD", "s%d" % index, "ignored")
    cs.record_interjection("contraindication", "TERRAFORM-DESTROY", "s0")
    cs.record_reaction("contraindication", cs.ANY_KEY, "s0", "annoyed")
    cs.should_interject("contraindication", {"finding": "GIT-RESET-HARD", "session_id": "s9"})
    report = json.loads(log(capsys, "--json"))
    assert report["silence"] == [
        {"type": "contraindication", "key": "GIT-RESET-HARD", "shown": 3, "suppressed": 1, "acted": 0, "ignored": 3,
         "annoyed": 1, "unknown": 0, "next": "quiet", "reason": "fatigued"},
        {"type": "contraindication", "key": "TERRAFORM-DESTROY", "shown": 1, "suppressed": 0, "acted": 0, "ignored": 0,
         "annoyed": 1, "unknown": 0, "next": "show", "reason": "cold-start"}]
    out = log(capsys)
    assert "contraindication/GIT-RESET-HARD" in out and "quiet (fatigued)" in out
