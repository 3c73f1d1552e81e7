"""Row matchers: the literal fast path decides exactly as re.search would, and the hot path never imports re."""
from __future__ import annotations

import json
import re
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from dispatch_helpers import bash_payload, emitter, manifest, write_manifest  # puts hooks/_dispatch on sys.path
from hookmux_testing import DISPATCH, PYTHON, RUNTIME_DIR, STANDBY_LINE

import dispatch_core  # noqa: E402

MATCHERS = ["Bash", "Bash|PowerShell", "^Bash$", "^(Bash|PowerShell)$", "^(?:Edit|Write)$", "Edit", "ash",
            "^Bash|Read$", "^(Bash)|(Read)$", "^()$", "", "|", "Bash|", "^$", "^(Bash|Power.*)$", "[", "^(Bash$",
            "mcp__.*", "^A$", "^Bash\\b"]
NAMES = ["Bash", "PowerShell", "bash", "Read", "Edit", "NotebookEdit", "Bash\n", "Bashful", "", "A", "xBash", "\nBash"]


def reference(matcher, names):
    try:
        pattern = re.compile(matcher)
    except re.error:
        return None
    return any(pattern.search(name) for name in names)


@pytest.mark.parametrize("matcher", MATCHERS)
def test_matches_agrees_with_re_search(matcher):
    for name in NAMES:
        assert dispatch_core.matches(matcher, [name]) == reference(matcher, [name]), (matcher, name)
    assert dispatch_core.matches(matcher, NAMES) == reference(matcher, NAMES)


name_text = st.text(alphabet="ABab_|^$()?:\n.x", max_size=12)


@given(matcher=name_text, names=st.lists(name_text, max_size=3))
def test_matches_agrees_with_re_search_on_generated_matchers(matcher, names):
    assert dispatch_core.matches(matcher, names) == reference(matcher, names)


# Runs the dispatcher and writes the names in sys.modules when it leaves (os._exit), in
# every process that leaves (the parent, and a forked worker), one file per pid.
MODULES_DUMPER = r"""
import os, sys
folder, script = sys.argv[1], sys.argv[2]
real_exit = os._exit
def _exit(code):
    with open(os.path.join(folder, str(os.getpid())), "w") as handle:
        handle.write("\n".join(sorted(sys.modules)))
    real_exit(code)
os._exit = _exit
sys.argv = sys.argv[2:]
sys.path[0] = os.path.dirname(script)
exec(compile(open(script).read(), script, "exec"), {"__name__": "__main__", "__file__": script})
"""


def imported_by_dispatch(tmp_path, payload, *args, isolation="1", processes=1, warm="0", trace=None):
    """The dispatcher's output, and the modules each of its ``processes`` held when it left
    (a forked worker may leave just after the host's process; a standby of the warm pool,
    ``warm="1"``, is not the dispatcher's and writes none)."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HOOKMUX_STATE_DIR": str(tmp_path / "state"),
           "HOOKMUX_ISOLATION": isolation, "HOOKMUX_LEDGER": "0", "HOOKMUX_WARM": warm,
           "HOOKMUX_RUNTIME_DIR": RUNTIME_DIR, "HOOKMUX_WARM_IDLE": "5"}
    result = subprocess.run([PYTHON, "-S", "-c", MODULES_DUMPER, str(folder), str(DISPATCH), *args],
                            input=payload.encode(), capture_output=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    deadline = time.monotonic() + 10
    while len(list(folder.iterdir())) < processes and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)  # and the last one written whole
    if trace is not None:
        trace.append(result.stderr.decode())
    return result.stdout, [set(path.read_text().split()) for path in folder.iterdir()]


def test_a_call_that_selects_no_row_imports_neither_re_nor_json(tmp_path):
    emitter(tmp_path, "a/check.py", "never")
    path = write_manifest(tmp_path / "m.json", manifest(tmp_path, [{"script": "a/check.py", "matcher": "^(Bash|PowerShell)$"}]))
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {}})
    stdout, processes = imported_by_dispatch(tmp_path, payload, "--manifest", str(path), "PreToolUse")
    assert stdout == b"" and len(processes) == 1  # no worker either
    assert "dispatch_core" in processes[0]
    assert not processes[0] & {"re", "json", "threading", "dispatch_runner", "dispatch_trace"}, sorted(processes[0])
    selected = subprocess.run([PYTHON, "-S", str(DISPATCH), "--manifest", str(path), "PreToolUse"],
                              input=bash_payload().encode(), capture_output=True)
    assert b"never" in selected.stdout


@pytest.mark.parametrize("isolation", ["1", "0"])
def test_the_shipped_rows_on_a_shell_call_naming_no_hazard_import_neither_re_nor_json(tmp_path, isolation):
    from hookmux_testing import HOOKS

    args = ("--hooks-root", str(HOOKS), "PreToolUse")
    plain = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s",
                        "tool_input": {"command": "ls -la src", "description": "List the source folder",
                                       "timeout": 5}})
    count = 2 if isolation == "1" else 1  # the host's process, and the worker
    stdout, processes = imported_by_dispatch(tmp_path, plain, *args, isolation=isolation, processes=count)
    assert stdout == b""
    assert len(processes) == count
    everything = set().union(*processes)
    assert {"hookmux-check:0:%s" % (HOOKS / "contraindication" / "check.py")} <= everything  # the checks ran
    assert not everything & {"re", "json", "threading"}, sorted(everything)
    hazard = plain.replace("ls -la src", "git push --force origin main")
    stdout, processes = imported_by_dispatch(tmp_path, hazard, *args, isolation=isolation, processes=count)
    assert b"additionalContext" in stdout and "re" in set().union(*processes)


def test_with_a_standby_the_hosts_process_imports_neither_re_nor_json_even_on_a_hazard(tmp_path):
    from hookmux_testing import HOOKS

    args = ("--hooks-root", str(HOOKS), "--trace", "PreToolUse")
    for attempt in range(50):  # the first call forks and starts the pool
        hazard = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s%d" % attempt,
                             "tool_input": {"command": "git push --force origin main"}})  # a new session advises
        trace = []
        stdout, processes = imported_by_dispatch(tmp_path, hazard, *args, warm="1", trace=trace)
        if STANDBY_LINE in trace[0]:
            break
        time.sleep(0.1)
    assert STANDBY_LINE in trace[0], trace
    assert len(processes) == 1
    assert b"additionalContext" in stdout  # the checks ran, in the standby
    assert not processes[0] & {"re", "json", "threading", "dispatch_runner"}, sorted(processes[0])
