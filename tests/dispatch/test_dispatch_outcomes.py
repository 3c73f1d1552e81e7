"""The engine returns one outcome record per row; runners and the trace only fill and read them."""
from __future__ import annotations

import json

from dispatch_helpers import bash_payload, emitter, manifest, write_check  # puts hooks/_dispatch on sys.path

import dispatch_core  # noqa: E402  (the repo's engine, never a live one)
import dispatch_trace  # noqa: E402
from _common import event, manifest as manifest_model  # noqa: E402


def dispatch(tmp_path, rows, payload=None, runner=None):
    loaded = manifest_model.from_data(manifest(tmp_path, rows))
    payload = payload or bash_payload()
    return dispatch_core.dispatch(event.parse(payload, "PreToolUse"), loaded, payload, runner)


def test_every_row_gets_an_outcome_in_manifest_order(tmp_path):
    write_check(tmp_path, "boom/check.py", "def main():\n    raise KeyError('x')\n")
    write_check(tmp_path, "exits/check.py", "import sys\ndef main():\n    sys.exit(4)\n")
    write_check(tmp_path, "slow/check.py", "import time\ndef main():\n    time.sleep(5)\n")
    write_check(tmp_path, "broken/check.py", "import not_a_module_anywhere\ndef main():\n    pass\n")
    rows = [
        {"script": emitter(tmp_path, "ok/check.py", "hello")},
        {"script": "ok/check.py", "name": "unmatched", "matcher": "^Read$"},
        {"script": "boom/check.py"},
        {"script": "exits/check.py"},
        {"script": "slow/check.py", "timeout": 0.3},
        {"script": emitter(tmp_path, "quiet/check.py", "kept back"), "emits": False},
        {"script": "broken/check.py"},
    ]
    outcomes = dispatch(tmp_path, rows)
    assert [o.row.index for o in outcomes] == list(range(7))
    summary = [(o.name, o.selected, o.why_not, o.ran, o.kind, o.detail, o.contexts, o.used) for o in outcomes]
    assert summary == [
        ("ok/check", True, None, True, "ok", "ok", ["hello"], True),
        ("unmatched", False, "matcher does not match tool", False, None, None, [], False),
        ("boom/check", True, None, True, "error", "error KeyError", [], False),
        ("exits/check", True, None, True, "exit", "exit code 4", [], False),
        ("slow/check", True, None, True, "timeout", "timeout", [], False),
        ("quiet/check", True, None, True, "ok", "ok", ["kept back"], False),
        ("broken/check", True, None, False, "error", "import error ModuleNotFoundError", [], False),
    ]
    assert outcomes[0].elapsed_ms is not None and outcomes[1].elapsed_ms is None


def test_trace_lines_are_read_from_outcomes(tmp_path):
    rows = [{"script": emitter(tmp_path, "ok/check.py", "hello")},
            {"script": "ok/check.py", "name": "unmatched", "matcher": "^Read$"},
            {"script": emitter(tmp_path, "quiet/check.py", "kept back"), "emits": False}]
    lines = dispatch_trace.lines(dispatch(tmp_path, rows))
    assert lines[0].startswith("[0] ok/check  selected ") and lines[0].endswith("ms ok, emitted 5 chars")
    assert lines[1] == "[1] unmatched  skipped: matcher does not match tool"
    assert lines[2].endswith("ms ok, emitted 9 chars but emits=false: dropped")


class RecordingRunner:
    """The whole Runner interface: run(jobs, stdin_text, hooks_root), filling each job in."""

    def __init__(self):
        self.seen = []

    def run(self, jobs, stdin_text, hooks_root):
        self.seen.append(([job.name for job in jobs], json.loads(stdin_text)["tool_name"], hooks_root))
        for job in jobs:
            job.ran, job.kind, job.detail, job.elapsed_ms = True, "ok", "ok", 1.0
            job.output = json.dumps({"additionalContext": "from " + job.name}) + "\n"


def test_a_new_runner_is_one_class_with_one_method(tmp_path):
    runner = RecordingRunner()
    rows = [{"script": "a/check.py", "name": "a"}, {"script": "b/check.py", "name": "b", "matcher": "^Read$"},
            {"script": "c/check.py", "name": "c", "emits": False}]
    data = manifest(tmp_path, rows)
    out = dispatch_core.run("PreToolUse", bash_payload(), manifest=data, runner=runner)
    assert runner.seen == [(["a", "c"], "Bash", str(tmp_path))]
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == "from a"


def test_no_selected_row_never_starts_a_runner(tmp_path):
    class Refusing:
        def run(self, *args):
            raise AssertionError("runner started")

    rows = [{"script": "a/check.py", "name": "a", "matcher": "^Read$"}]
    assert dispatch_core.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, rows), runner=Refusing()) == ""
