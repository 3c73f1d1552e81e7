"""Checks that misbehave in ways a Python process allows: the dispatcher's output and exit code survive.

Each bad check runs beside a well-behaved SENTINEL check (once loaded before it, once after
it) through the real dispatcher process, the way a host runs it; the cases that make sense
in-process also go through ``dispatch.run()``. What a check can still break is listed in
docs/reliability.md ("Limits"); the last tests pin the documented behaviour of those limits.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import pytest
from reliability_support import (
    CLAUDE_PRE_BASH, DISPATCH, PYTHON, assert_dispatcher_output, case, dispatch, emitter, hermetic_env, manifest_for,
    run_hook, write_json, write_script,
)

SUITE = "Misbehaving checks"
LIMITS_SUITE = "Limits behave as documented"
SENTINEL = "SENTINEL-CONTEXT-OK"

# name -> (check body, also meaningful through dispatch.run() in this process)
BAD_CHECKS = {
    # working directory
    "chdir-in-main": ("import os, tempfile\ndef main():\n    os.chdir(tempfile.gettempdir())\n", True),
    "chdir-at-import": ("import os\nos.chdir('/')\ndef main():\n    pass\n", True),
    "chdir-to-deleted-dir": (
        "import os, tempfile\ndef main():\n    d = tempfile.mkdtemp()\n    os.chdir(d)\n    os.rmdir(d)\n", True),
    # environment
    "environ-clear": ("import os\ndef main():\n    os.environ.clear()\n", True),
    "environ-trace-and-home": (
        "import os\nos.environ['HOOKMUX_TRACE'] = '1'\ndef main():\n"
        "    os.environ['HOME'] = '/nonexistent'\n    os.environ['PYTHONPATH'] = '/nowhere'\n", True),
    "environ-rebound": ("import os\ndef main():\n    os.environ = {}\n", True),
    # sys.path
    "sys-path-clear-at-import": ("import sys\nsys.path.clear()\ndef main():\n    sys.path.clear()\n", True),
    "sys-path-none-at-import": ("import sys\nsys.path = None\ndef main():\n    pass\n", False),
    "sys-path-garbage": ("import sys\nsys.path[:0] = ['/nowhere', 42]\ndef main():\n    sys.path.append(None)\n", False),
    # sys.modules
    "sys-modules-clear-in-main": ("import sys\ndef main():\n    sys.modules.clear()\n", False),
    "sys-modules-clear-at-import": ("import sys\nsys.modules.clear()\ndef main():\n    pass\n", False),
    "sys-modules-drop-stdlib": (
        "import sys\nfor m in ('json', 'json.decoder', 'json.encoder', 'io', 'threading', 're', 'os', 'importlib',\n"
        "          'importlib.util', 'encodings'):\n    sys.modules.pop(m, None)\ndef main():\n    pass\n", False),
    "sys-modules-fake-json": (
        "import sys, types\nfake = types.ModuleType('json')\nfake.dumps = fake.loads = None\n"
        "def main():\n    sys.modules['json'] = fake\n", False),
    # stdout / stderr objects
    "stdout-replaced-with-devnull": ("import os, sys\ndef main():\n    sys.stdout = open(os.devnull, 'w')\n"
                                     "    print('{\"additionalContext\": \"into devnull\"}')\n", True),
    "stdout-set-to-none": ("import sys\ndef main():\n    sys.stdout = None\n    sys.stderr = None\n", True),
    "stdout-replaced-at-import": ("import io, sys\nsys.stdout = io.StringIO()\nsys.stderr = None\n"
                                  "def main():\n    pass\n", True),
    "stdout-closed": ("import sys\ndef main():\n    sys.stdout.close()\n    sys.stderr.close()\n"
                      "    print('after close')\n", True),
    "dunder-stdout-closed": ("import sys\ndef main():\n    sys.__stdout__.close()\n    sys.__stderr__.close()\n",
                             False),
    "stdout-is-dunder-stdout": ("import sys\ndef main():\n    sys.stdout = sys.__stdout__\n"
                                "    print('{\"additionalContext\": \"via __stdout__\"}', flush=True)\n", False),
    "stdin-closed-and-replaced": ("import io, sys\ndef main():\n    sys.stdin.close()\n"
                                  "    sys.stdin = io.StringIO('{}')\n", True),
    # threads the check starts itself
    "daemon-thread-prints-later": (
        "import json, os, sys, threading, time\n"
        "def later():\n    for _ in range(300):\n        time.sleep(0.01)\n"
        "        print(json.dumps({'additionalContext': 'from a daemon thread'}), flush=True)\n"
        "        os.write(1, b'{\"additionalContext\": \"fd1 from a daemon thread\"}\\n')\n"
        "def main():\n    threading.Thread(target=later, daemon=True).start()\n", False),
    "non-daemon-thread-prints-later": (
        "import json, os, sys, threading, time\n"
        "def later():\n    for _ in range(300):\n        time.sleep(0.01)\n"
        "        print(json.dumps({'additionalContext': 'from a thread'}), flush=True)\n"
        "        os.write(1, b'noise from a thread\\n')\n"
        "def main():\n    threading.Thread(target=later).start()\n", False),
    "non-daemon-thread-never-ends": (
        "import threading, time\ndef main():\n    threading.Thread(target=time.sleep, args=(3600,)).start()\n", False),
    "thread-raises-later": (
        "import threading, time\ndef boom():\n    time.sleep(0.05)\n    raise RuntimeError('late')\n"
        "def main():\n    threading.Thread(target=boom).start()\n", False),
    # recursion and memory
    "recursion-in-main": ("def f(n):\n    return f(n + 1) + 1\ndef main():\n    f(0)\n", True),
    "recursion-at-import": ("def f(n):\n    return f(n + 1) + 1\nf(0)\ndef main():\n    pass\n", True),
    "recursion-limit-lowered": ("import sys\ndef main():\n    sys.setrecursionlimit(25)\n", False),
    "memory-error-raised": ("def main():\n    raise MemoryError\n", True),
    "memory-error-allocation": ("def main():\n    b = bytearray(1 << 62)\n", True),
    "memory-error-at-import": ("x = 'x' * (1 << 62)\ndef main():\n    pass\n", True),
    # file descriptor 1
    "os-write-fd1-noise": ("import os\ndef main():\n    os.write(1, b'not json at all\\n' * 1000)\n", False),
    "os-write-fd1-deny-json": (
        "import os\ndef main():\n    os.write(1, b'{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", '\n"
        "             b'\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"x\"}}\\n')\n", False),
    "os-write-fd1-at-import": ("import os\nos.write(1, b'{\"additionalContext\": \"import-time fd1\"}\\n')\n"
                               "def main():\n    pass\n", False),
    "os-close-fd1": ("import os\ndef main():\n    os.close(1)\n    os.open(os.devnull, os.O_RDONLY)\n", False),
    "os-dup2-fd2-onto-fd1": ("import os\ndef main():\n    os.dup2(2, 1)\n    os.write(1, b'junk\\n')\n", False),
    "child-process-writes-fd1": (
        "import subprocess, sys\ndef main():\n"
        "    subprocess.run([sys.executable, '-S', '-c', 'print(\"{}\")'], check=False)\n", False),
    # exits of every kind
    "sys-exit-0": ("import sys\ndef main():\n    sys.exit(0)\n", True),
    "sys-exit-at-import": ("import sys\nsys.exit(3)\n", True),
    "keyboard-interrupt": ("def main():\n    raise KeyboardInterrupt\n", True),
    "generator-exit": ("def main():\n    raise GeneratorExit\n", True),
}

ORDERS = ("bad-first", "sentinel-first")

# Rebinding sys.stdout/sys.stdin in main() rebinds it for every check running at that moment:
# a neighbour's output can go where the bad check pointed it (docs/reliability.md, Limits).
# For these the dispatcher's line must be valid and may only be the sentinel's context or empty.
NEIGHBOUR_MAY_BE_LOST = {"stdout-replaced-with-devnull", "stdout-set-to-none", "stdout-is-dunder-stdout"}
def _expect_sentinel(context, kind, order, stdout):
    if kind in NEIGHBOUR_MAY_BE_LOST:
        assert context in (None, SENTINEL), stdout
    else:
        assert context == SENTINEL, stdout


def _sandbox(tmp_path, kind: str, order: str, event: str = "PreToolUse"):
    root = tmp_path / "hooks"
    bad = write_script(root, f"bad_{kind.replace('-', '_')}/check.py", BAD_CHECKS[kind][0])
    good = emitter(root, "sentinel/check.py", SENTINEL)
    rows = [{"name": "bad", "script": bad, "timeout": 5}, {"name": "sentinel", "script": good, "timeout": 5}]
    if order == "sentinel-first":
        rows.reverse()
    return manifest_for(root, {event: rows})


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("kind", sorted(BAD_CHECKS))
def test_dispatcher_process_survives_a_bad_check(tmp_path, kind, order):
    with case(SUITE):
        path = write_json(tmp_path / "manifest.json", _sandbox(tmp_path, kind, order))
        result = run_hook(DISPATCH, ["--manifest", str(path), "--trace", "PreToolUse"],
                          json.dumps(CLAUDE_PRE_BASH), hermetic_env(tmp_path), timeout=30)
        assert result.returncode == 0, result
        context = assert_dispatcher_output(result.stdout, "PreToolUse")
        _expect_sentinel(context, kind, order, result.stdout)
        assert b"Traceback" not in result.stderr


@pytest.mark.parametrize("kind", sorted(BAD_CHECKS))
def test_copilot_dialect_survives_a_bad_check(tmp_path, kind):
    with case(SUITE):
        path = write_json(tmp_path / "manifest.json", _sandbox(tmp_path, kind, "bad-first"))
        result = run_hook(DISPATCH, ["--manifest", str(path), "preToolUse"],
                          json.dumps({"toolName": "bash", "toolArgs": {"command": "ls"}}),
                          hermetic_env(tmp_path), timeout=30)
        assert result.returncode == 0, result
        _expect_sentinel(assert_dispatcher_output(result.stdout, "preToolUse"), kind, "bad-first", result.stdout)


@pytest.fixture
def restored_process_state():
    """Undo what an in-process bad check changed in this test process."""
    cwd, environ, path = os.getcwd(), dict(os.environ), list(sys.path)
    streams = (sys.stdin, sys.stdout, sys.stderr)
    os_environ = os.environ
    yield
    os.environ = os_environ
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(environ)
    sys.path[:] = path
    sys.stdin, sys.stdout, sys.stderr = streams


IN_PROCESS = sorted(kind for kind, (_, meaningful) in BAD_CHECKS.items() if meaningful)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("kind", IN_PROCESS)
def test_run_api_survives_a_bad_check(tmp_path, restored_process_state, kind, order):
    with case(SUITE):
        streams = (sys.stdin, sys.stdout, sys.stderr)
        trace = []
        output = dispatch.run("PreToolUse", json.dumps(CLAUDE_PRE_BASH),
                              manifest=_sandbox(tmp_path, kind, order), trace=trace.append)
        _expect_sentinel(assert_dispatcher_output(output, "PreToolUse"), kind, order, output)
        assert (sys.stdin, sys.stdout, sys.stderr) == streams
        assert any("[0]" in line for line in trace) and any("[1]" in line for line in trace), trace


def test_a_check_thread_printing_after_run_returns_changes_nothing(tmp_path, restored_process_state):
    """run() returns its string; what a check's own thread prints afterwards goes elsewhere."""
    with case(SUITE):
        root = tmp_path / "hooks"
        script = write_script(root, "late/check.py", """
            import json, threading, time
            def main():
                def later():
                    time.sleep(0.3)
                    print(json.dumps({"additionalContext": "late thread"}))
                threading.Thread(target=later, name="rel-late-printer").start()
        """)
        rows = [{"script": script}, {"script": emitter(root, "s/c.py", SENTINEL)}]
        output = dispatch.run("PreToolUse", json.dumps(CLAUDE_PRE_BASH), manifest=manifest_for(root, {"PreToolUse": rows}))
        for thread in threading.enumerate():
            if thread.name == "rel-late-printer":
                thread.join(10)
        assert assert_dispatcher_output(output, "PreToolUse") == SENTINEL


# ------------------------------------------------------------------ documented limits

# Ending or stalling the process (os._exit, signals, holding the GIL) is no longer a limit: the
# checks run in a forked worker (tests/reliability/test_reliability_isolation.py).
LIMITS = {
    # what the check does -> (exit code the host sees, stdout the host sees)
    "patches-shared-json-dumps": (
        "import json\njson.dumps = lambda *a, **k: 'not json'\n"
        "def main():\n    print('{\"additionalContext\": \"patched\"}')\n", 0,
        # The dispatcher's own line does not go through the json package: it stays valid;
        # the neighbour that prints with json.dumps loses its advice.
        b'{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "patched"}}\n'),
}


@pytest.mark.parametrize("kind", sorted(LIMITS))
def test_documented_limit_behaves_as_documented(tmp_path, kind):
    """Not a survival case: pins the behaviour docs/reliability.md lists under Limits."""
    with case(LIMITS_SUITE):
        _limit_case(tmp_path, kind)


def _limit_case(tmp_path, kind):
    body, returncode, stdout = LIMITS[kind]
    root = tmp_path / "hooks"
    rows = [{"script": emitter(root, "sentinel/check.py", SENTINEL)}, {"script": write_script(root, "lim/check.py", body)}]
    path = write_json(tmp_path / "manifest.json", manifest_for(root, {"PreToolUse": rows}))
    result = run_hook(DISPATCH, ["--manifest", str(path), "PreToolUse"], json.dumps(CLAUDE_PRE_BASH),
                      hermetic_env(tmp_path), timeout=30)
    assert (result.returncode, result.stdout) == (returncode, stdout), result


def test_without_isolation_a_check_holding_the_gil_is_ended_by_the_watchdog(tmp_path):
    """F1, where checks run in the dispatcher's own threads (HOOKMUX_ISOLATION=0, or no fork):
    one long C call that never releases the GIL keeps join(timeout) from returning; the
    faulthandler watchdog ends the process at budget + WATCHDOG_GRACE, exit 1, silent."""
    with case(LIMITS_SUITE):
        root = tmp_path / "hooks"
        rows = [{"script": emitter(root, "sentinel/check.py", SENTINEL), "timeout": 0.5},
                {"script": write_script(root, "gil/check.py", "def main():\n    sum(range(10 ** 11))\n"),
                 "timeout": 0.5}]
        path = write_json(tmp_path / "manifest.json", manifest_for(root, {"PreToolUse": rows}))
        process = subprocess.Popen([PYTHON, "-S", str(DISPATCH), "--manifest", str(path), "PreToolUse"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=hermetic_env(tmp_path, HOOKMUX_ISOLATION="0"))
        try:
            stdout, stderr = process.communicate(json.dumps(CLAUDE_PRE_BASH).encode(), timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            pytest.fail("the dispatcher was not ended while a check held the GIL")
        assert (process.returncode, stdout, stderr) == (1, b"", b"")


# ------------------------------------------------------------------ fixed findings (see /work/reliability-findings.md)


def test_a_child_process_of_a_check_does_not_hold_the_hosts_pipes(tmp_path):
    """F2 (fixed): a child a check starts must not keep the host reading the hook's pipes."""
    with case(SUITE):
        root = tmp_path / "hooks"
        pid_file = tmp_path / "child.pid"
        body = ("import subprocess\ndef main():\n"
                "    child = subprocess.Popen(['sleep', '60'])\n"
                f"    open({str(pid_file)!r}, 'w').write(str(child.pid))\n")
        rows = [{"script": emitter(root, "sentinel/check.py", SENTINEL)},
                {"script": write_script(root, "child/check.py", body)}]
        path = write_json(tmp_path / "manifest.json", manifest_for(root, {"PreToolUse": rows}))
        process = subprocess.Popen([PYTHON, "-S", str(DISPATCH), "--manifest", str(path), "PreToolUse"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=hermetic_env(tmp_path))
        try:
            try:
                stdout, _ = process.communicate(json.dumps(CLAUDE_PRE_BASH).encode(), timeout=8)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                pytest.fail("F2: a check's child process holds the host's stderr pipe open")
        finally:
            if pid_file.exists():
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
        assert process.returncode == 0
        assert assert_dispatcher_output(stdout, "PreToolUse") == SENTINEL


# ------------------------------------------------------------------ open findings (see /work/reliability-findings.md)

IDIOMS = {
    "reconfigure": "import sys\ndef main():\n    sys.stdout.reconfigure(encoding='utf-8')\n"
                   "    print('{\"additionalContext\": \"idiom\"}')\n",
    "buffer-write": "import sys\ndef main():\n    sys.stdout.buffer.write(b'{\"additionalContext\": \"idiom\"}\\n')\n"
                    "    sys.stdout.flush()\n",
}


@pytest.mark.parametrize("idiom", sorted(IDIOMS))
def test_common_stdout_idioms_of_standalone_hooks_work(tmp_path, idiom):
    """F5 (fixed): a check that works standalone does not go silent under the dispatcher."""
    root = tmp_path / "hooks"
    rows = [{"script": write_script(root, "idiom/check.py", IDIOMS[idiom])}]
    path = write_json(tmp_path / "manifest.json", manifest_for(root, {"PreToolUse": rows}))
    result = run_hook(DISPATCH, ["--manifest", str(path), "PreToolUse"], json.dumps(CLAUDE_PRE_BASH),
                      hermetic_env(tmp_path), timeout=30)
    assert result.returncode == 0
    assert assert_dispatcher_output(result.stdout, "PreToolUse") == "idiom"
