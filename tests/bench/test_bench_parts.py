"""The bench's parts without timing anything: fixture, manifest, skills tree, runner, verdicts."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import jsonschema
import pytest

from hookmux_testing import REPO, run_hook
from hookmux import wiring
from hookmux.bench import cases, importtime, report
from hookmux.bench.runner import Invocation, Sample, measure, round_robin
from hookmux.bench.skills_tree import make_skills_tree

PAYLOAD = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})


def test_fixture_runs_standalone_and_emits_one_context(tmp_path, env):
    folder = tmp_path / "bench-3"
    folder.mkdir()
    script = folder / "check.py"
    script.write_bytes(cases.FIXTURE.read_bytes())
    result = run_hook(script, ["PreToolUse"], PAYLOAD, env)
    assert result.returncode == 0
    assert result.stderr == b""
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1
    output = json.loads(lines[0])["hookSpecificOutput"]
    assert output == {"hookEventName": "PreToolUse", "additionalContext": "bench-3: saw a Bash call"}


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '{"tool_name": 5}'])
def test_fixture_is_silent_on_bad_input(tmp_path, env, stdin):
    result = run_hook(cases.FIXTURE, ["PreToolUse"], stdin, env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_bench_manifest_is_valid_and_selects_shell_tools(tmp_path):
    manifest = cases.bench_manifest(tmp_path)
    schema = json.loads((REPO / "manifest.schema.json").read_text())
    jsonschema.validate(manifest, schema)
    rows = manifest["events"]["PreToolUse"]["checks"]
    assert len(rows) == cases.FIXTURE_COUNT == 8
    assert len({row["name"] for row in rows}) == 8
    assert all(re.search(row["matcher"], "Bash") for row in rows)
    assert not any(re.search(row["matcher"], "Read") for row in rows)


def test_skills_tree_has_130_distinct_skills_none_an_agent(tmp_path):
    roots = make_skills_tree(tmp_path, 130)
    assert len(roots) == 3
    names = []
    for root in roots:
        for folder, _dirs, files in os.walk(root):
            if "SKILL.md" in files:
                with open(os.path.join(folder, "SKILL.md"), encoding="utf-8") as handle:
                    names += [line[5:].strip() for line in handle if line.startswith("name:")]
    assert len(names) == len(set(names)) == 130
    assert all(root.is_dir() and any(root.iterdir()) for root in roots)
    assert cases.AGENT_ONLY_NAME not in names


def test_dispatcher_flags_go_before_the_event_and_argv_drops_the_fail_open_suffix():
    command = wiring.dispatcher_command("/x y/python", "/t t", "PreToolUse", ["--manifest", "/m n.json"])
    assert command == "'/x y/python' -S -E '/t t/_dispatch/dispatch.py' --manifest '/m n.json' PreToolUse || true"
    assert cases._argv(command, shell=False) == (
        "/x y/python", "-S", "-E", "/t t/_dispatch/dispatch.py", "--manifest", "/m n.json", "PreToolUse")
    assert cases._argv(command, shell=True) == ("/bin/sh", "-c", command)


def test_measure_reports_each_exit_code_and_a_duration(tmp_path):
    stdin = tmp_path / "in"
    stdin.write_text("hello")
    out = [(str(tmp_path / f"{i}.out"), str(tmp_path / f"{i}.err")) for i in range(2)]
    sample = measure(
        [
            Invocation((sys.executable, "-S", "-c", "import sys; print(sys.stdin.read()); sys.exit(3)"), str(stdin)),
            Invocation((sys.executable, "-S", "-c", "pass"), str(stdin)),
        ],
        dict(os.environ),
        out,
    )
    assert sample.exit_codes == [3, 0]
    assert sample.wall_ns > 0 and sample.cpu_ns > 0
    assert (tmp_path / "0.out").read_text() == "hello\n"


def test_round_robin_rotates_and_drops_warmup():
    calls = []

    def run_once(name, round_index):
        calls.append((round_index, name))
        return Sample(wall_ns=round_index, cpu_ns=0)

    samples = round_robin(["a", "b", "c"], run_once, runs=2, warmup=1)
    assert [name for _r, name in calls] == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert {name: [s.wall_ns for s in got] for name, got in samples.items()} == {"a": [1, 2], "b": [1, 2], "c": [1, 2]}


def _fake_case(name, target=None):
    return cases.Case(name, name, ["cmd"], lambda _r: "", cases.expect_exit0, target=target)


def test_verdicts_compare_medians_to_the_floor(tmp_path):
    shim = tmp_path / "python"
    shim.write_text("#!/bin/sh\nexec python3 \"$@\"\n")

    def samples(*ms):
        return [Sample(wall_ns=int(m * 1e6), cpu_ns=int(m * 1e6)) for m in ms]

    fake = [_fake_case("B0"), _fake_case("B3.pre", 1.3), _fake_case("B2", 2.5),
            _fake_case("B1.dispatch", 3.0), _fake_case("B1.separate")]
    results = report.summarize(
        fake,
        {"B0": samples(10, 10, 50), "B3.pre": samples(12, 14, 13), "B2": samples(30, 26, 24),
         "B1.dispatch": samples(20, 20, 20), "B1.separate": samples(90, 90, 90)},
        {},
    )
    assert results["B3.pre"]["median_wall_ms"] == 13.0
    assert results["B3.pre"]["ratio_to_b0"] == 1.3
    verdicts = {v["target"]: v["pass"] for v in report.verdicts(results, str(shim))}
    assert verdicts == {
        "B3.pre wall <= 1.3x B0": True,
        "B2 wall <= 2.5x B0": False,
        "B1.dispatch wall <= 3.0x B0": True,
        "B1.dispatch CPU <= 0.2 x B1.separate CPU": False,
        "interpreter is not a version-manager shim": False,
    }


def test_expectations_reject_wrong_output():
    assert cases.expect_silent([(0, "", "")]) is None
    assert "expected no output" in cases.expect_silent([(0, '{"x": 1}\n', "")])
    assert "exit 1" in cases.expect_exit0([(1, "", "Traceback")])
    good = json.dumps({"hookSpecificOutput": {"additionalContext": "bench-1: a\nbench-2: b"}})
    assert cases.expect_context(["bench-1:", "bench-2:"])([(0, good, "")]) is None
    assert "lacks" in cases.expect_context(["bench-3:"])([(0, good, "")])
    deny = json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "prompt-writer is an agent"})
    assert cases.expect_deny([(2, deny, "reason")]) is None
    assert cases.expect_deny([(0, "", "")]) is not None


def test_a_timed_run_with_an_unexpected_exit_code_is_an_error():
    case = _fake_case("B3.pre", 1.3)
    results = report.summarize([case], {"B3.pre": [Sample(1_000_000, 1, [0]), Sample(1_000_000, 1, [2])]}, {})
    assert results["B3.pre"]["unexpected_exits"] == 1
    assert "unexpected" in results["B3.pre"]["check"]
    assert "ERROR" in report.format_table({
        "machine": {"nproc": 1, "cpu_model": "x", "platform": "p", "python_version": "3", "python": "py",
                    "loadavg_1min": None},
        "settings": {"runs": 2, "warmup": 0, "shell": False},
        "cases": results,
        "targets": [],
    })


def test_importtime_lines_are_parsed_with_their_depth():
    stderr = (
        "import time: self [us] | cumulative | imported package\n"
        "import time:       120 |        120 |     _json\n"
        "import time:       300 |        420 |   json.decoder\n"
        "import time:        50 |        900 | json\n"
        "some other line\n"
    )
    assert importtime.parse(stderr) == [("_json", 2, 120, 120), ("json.decoder", 1, 300, 420), ("json", 0, 50, 900)]
    costs = [importtime.ImportCost(n, d, s, c) for n, d, s, c in importtime.parse(stderr)]
    lines = importtime.summary(costs)
    assert lines[0] == "0.90 ms in 3 imports beyond the floor"
    assert "json 0.90" in lines[1]
    assert lines[2].startswith("  heaviest modules (self ms): json.decoder 0.30")


ORPHAN_SCRIPT = """
import os, sys, time
sys.path.insert(0, {src!r})
from hookmux.bench.runner import Invocation, adopt_orphans, measure
adopted = adopt_orphans()
# the timed process forks a child that burns CPU after its parent has exited, as the
# dispatcher's worker may
code = "import os, time\\nif os.fork() == 0:\\n    end = time.process_time() + 0.3\\n    while time.process_time() < end: pass\\n    os._exit(0)\\n"
sample = measure([Invocation((sys.executable, "-S", "-c", code), os.devnull)], dict(os.environ))
print(adopted, sample.cpu_ns / 1e9, sample.wall_ns / 1e9)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreapers are a Linux feature")
def test_measure_counts_the_cpu_of_a_process_the_timed_one_left_behind(tmp_path):
    # in a process of its own: a subreaper pytest would collect every test's orphans
    script = ORPHAN_SCRIPT.format(src=str(REPO / "src"))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    adopted, cpu, wall = result.stdout.split()
    assert adopted == "True", result.stderr
    assert float(cpu) >= 0.25  # the orphan's 0.3 s of CPU are in the sample
    assert float(wall) < float(cpu)  # while the wall time ends when the timed process does


def test_thread_twins_run_the_isolated_cases_with_isolation_off(tmp_path):
    setup = cases.BenchSetup(sys.executable, REPO / "hooks")
    setup.env = {"PATH": "/bin", "HOME": str(tmp_path)}
    every = [cases.Case(name, name, ["x"], lambda run: "", lambda outcome: None, target=3.0)
             for name in ("B0", "B1.dispatch", "B2", "B5.new", "B5.plain", "B5.seen")]
    twins = setup.thread_twins(every)
    setup.cleanup()
    assert [twin.name for twin in twins] == ["B1.dispatch.threads", "B5.new.threads", "B5.plain.threads",
                                             "B5.seen.threads"]
    for twin in twins:
        assert twin.env == {"PATH": "/bin", "HOME": str(tmp_path), "HOOKMUX_ISOLATION": "0"}
        assert twin.target is None and twin.commands == ["x"]
    assert all(case.env is None for case in every)


def test_the_worker_verdict_is_the_median_difference_to_the_twin():
    results = {
        "B5.plain": {"median_wall_ms": 31.0, "median_cpu_ms": 30.0},
        "B5.plain.threads": {"median_wall_ms": 30.0, "median_cpu_ms": 28.0},
        "B5.new": {"median_wall_ms": 50.0, "median_cpu_ms": 50.0},
        "B5.new.threads": {"median_wall_ms": 47.0, "median_cpu_ms": 46.0},
    }
    found = {v["target"].split(" ")[0]: v for v in report.verdicts(results, sys.executable) if "+ 1.5 ms" in v["target"]}
    assert found["B5.plain"]["value"] == 1.0 and found["B5.plain"]["pass"]
    assert found["B5.new"]["value"] == 3.0 and not found["B5.new"]["pass"]
    assert "CPU +4.00 ms" in found["B5.new"]["target"]
