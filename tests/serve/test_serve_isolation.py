"""A check that hangs or kills its process costs only its own request; changes need no restart."""
from __future__ import annotations

import http.client
import json
import subprocess
import textwrap
import time
from pathlib import Path

import pytest
from hookmux_testing import PYTHON, STANDBY_LINE, hermetic_env, warm_pool
from serve_support import Running, bash, install_tree, post_on

EMIT = '''
import json, sys
def main():
    sys.stdin.read()
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": %r}}))
'''


def _write_manifest(server, rows):
    manifest = server.target / "_dispatch" / "manifest.json"
    manifest.write_text(json.dumps({"version": 1, "hooks_root": str(server.target),
                                    "events": {"PreToolUse": {"checks": rows}}}))


def _check(server, name, body):
    path = server.target / "t" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(textwrap.dedent(body))
    return "t/" + name


def _tool(name, session="s"):
    return json.dumps({"session_id": session, "hook_event_name": "PreToolUse", "tool_name": name, "tool_input": {}})


def test_hanging_and_exiting_checks_affect_only_their_request(server):
    rows = [
        {"name": "hang", "script": _check(server, "hang.py", "import time\ndef main():\n    time.sleep(600)\n"),
         "timeout": 1, "matcher": "^Hang$"},
        {"name": "spin", "script": _check(server, "spin.py", "def main():\n    sum(range(10**12))\n"),
         "timeout": 1, "matcher": "^Spin$"},
        {"name": "exit", "script": _check(server, "exit.py", "import os\ndef main():\n    os._exit(3)\n"),
         "timeout": 1, "matcher": "^Exit$"},
        {"name": "kill", "script": _check(server, "kill.py", "import os, signal\ndef main():\n"
                                                                "    os.kill(os.getpid(), signal.SIGKILL)\n"),
         "timeout": 1, "matcher": "^Kill$"},
        {"name": "say", "script": _check(server, "say.py", EMIT % "still here"), "timeout": 5, "matcher": "^Say$"},
    ]
    _write_manifest(server, rows)
    for tool in ("Hang", "Spin", "Exit", "Kill"):
        assert server.post("PreToolUse", _tool(tool)) == (200, b""), tool
        status, body = server.post("PreToolUse", _tool("Say"))
        assert status == 200 and json.loads(body)["hookSpecificOutput"]["additionalContext"] == "still here"
    assert server.proc.poll() is None


def test_a_worker_that_dies_mid_request_still_answers_with_the_finished_checks_advice(server):
    """As a standby of the warm pool does: the checks that finished before a neighbour ended the
    worker (os._exit, SIGKILL, or the server's kill of a check that took the alarm away) keep
    their advice; only the dying check's is lost."""
    stubborn = ("import signal\ndef main():\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                "    sum(range(10**12))\n")
    enders = {"Exit": "import os\ndef main():\n    os._exit(3)\n",
              "Kill": "import os, signal\ndef main():\n    os.kill(os.getpid(), signal.SIGKILL)\n",
              "Stubborn": stubborn}
    rows = [{"name": "first", "script": _check(server, "first.py", EMIT % "first advice"), "timeout": 5},
            {"name": "quiet", "script": _check(server, "quiet.py", "def main():\n    pass\n"), "timeout": 5},
            {"name": "second", "script": _check(server, "second.py", EMIT % "second advice"), "timeout": 5}]
    for tool, body in enders.items():
        ender = {"name": "end", "script": _check(server, tool.lower() + ".py", body), "timeout": 1}
        _write_manifest(server, [dict(row, matcher="^%s$" % tool) for row in rows + [ender]])
        status, reply = server.post("PreToolUse", _tool(tool))
        assert status == 200, tool
        assert json.loads(reply)["hookSpecificOutput"]["additionalContext"] == "first advice\n\nsecond advice", tool
    assert server.proc.poll() is None


def test_the_circuit_breaker_skips_a_row_that_hung_three_requests_in_a_row(server):
    """As for the command hook (hooks/_common/breaker.py): the dispatcher's per-call rule, now in
    serve's workers too, whether the row timed out in the main thread (the watcher answers late)
    or in a thread of its own."""
    hang = {"name": "hang", "script": _check(server, "hang.py", "import time\ndef main():\n    time.sleep(600)\n"),
            "timeout": 1, "matcher": "^Hang$"}
    say = {"name": "say", "script": _check(server, "say.py", EMIT % "still here"), "timeout": 5, "matcher": "^Hang$"}
    _write_manifest(server, [hang, say])
    for _ in range(3):
        started = time.monotonic()
        status, body = server.post("PreToolUse", _tool("Hang"))
        assert status == 200 and json.loads(body)["hookSpecificOutput"]["additionalContext"] == "still here"
        assert time.monotonic() - started >= 1.0  # it ran, and cost its timeout
    table = server.state / "breaker"
    deadline = time.monotonic() + 10  # a worker that answered late counts it just after its reply
    while not any("\thang\t3\t" in path.read_text() for path in table.glob("*.tsv")):
        assert time.monotonic() < deadline, [path.read_text() for path in table.glob("*.tsv")]
        time.sleep(0.05)
    started = time.monotonic()
    status, body = server.post("PreToolUse", _tool("Hang"))
    assert status == 200 and json.loads(body)["hookSpecificOutput"]["additionalContext"] == "still here"
    assert time.monotonic() - started < 1.0  # skipped: the breaker is open


def test_manifest_and_check_changes_apply_without_a_restart(server):
    script = _check(server, "say.py", EMIT % "first")
    _write_manifest(server, [{"name": "say", "script": script, "timeout": 5, "matcher": "^Say$"}])
    assert b"first" in server.post("PreToolUse", _tool("Say"))[1]
    _check(server, "say.py", EMIT % "second")
    assert b"second" in server.post("PreToolUse", _tool("Say"))[1]
    _write_manifest(server, [{"name": "say", "script": script, "timeout": 5, "matcher": "^Other$"}])
    assert server.post("PreToolUse", _tool("Say")) == (200, b"")


CWD = '''
import json, os, sys
def main():
    sys.stdin.read()
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": os.getcwd()}}))
'''


def test_checks_run_in_the_payloads_cwd(server, tmp_path):
    _write_manifest(server, [{"name": "cwd", "script": _check(server, "cwd.py", CWD), "timeout": 5, "matcher": "^Say$"}])
    project = tmp_path / "project"
    project.mkdir()

    def context(**extra):
        payload = dict(json.loads(_tool("Say")), **extra)
        return json.loads(server.post("PreToolUse", json.dumps(payload))[1])["hookSpecificOutput"]["additionalContext"]

    assert context(cwd=str(project)) == str(project)
    assert context() == "/"
    assert context(cwd=str(tmp_path / "gone")) == "/"
    assert context(cwd=str(project)) == str(project)


STATEFUL = '''
import json, sys
CALLS = []
def main():
    sys.stdin.read()
    CALLS.append(1)
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": str(len(CALLS))}}))
'''


def test_a_check_stays_imported_between_requests_until_its_file_changes(server):
    """The documented change from the command hook: module-level state lives on in a worker."""
    script = _check(server, "count.py", STATEFUL)
    _write_manifest(server, [{"name": "count", "script": script, "timeout": 5, "matcher": "^Say$"}])
    # one keep-alive connection, as Claude Code keeps one: the worker that holds it answers each
    # request (on separate connections, which worker answers is the server's choice: up to
    # Serve.most workers, so six requests may all land on fresh ones on a loaded machine)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        counts = [int(json.loads(post_on(conn, "/%s/PreToolUse" % server.secret, _tool("Say"))[1])
                      ["hookSpecificOutput"]["additionalContext"]) for _ in range(6)]
    finally:
        conn.close()
    assert counts == [1, 2, 3, 4, 5, 6], counts
    _check(server, "count.py", STATEFUL + "\n# edited\n")
    assert json.loads(server.post("PreToolUse", _tool("Say"))[1])["hookSpecificOutput"]["additionalContext"] == "1"


PID = '''
import json, os, sys
def main():
    sys.stdin.read()
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": str(os.getpid())}}))
'''
LEAVES_A_THREAD = PID + '''
import threading, time
_main = main
def main():
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
    _main()
'''


def test_a_worker_left_with_a_checks_thread_is_replaced(server):
    """The check returns but leaves a thread running: its worker is not used again."""
    _write_manifest(server, [
        {"name": "pid", "script": _check(server, "pid.py", PID), "timeout": 5, "matcher": "^Say$"},
        {"name": "leak", "script": _check(server, "leak.py", LEAVES_A_THREAD), "timeout": 5, "matcher": "^Leak$"},
    ])

    def pid(tool):
        status, body = server.post("PreToolUse", _tool(tool))
        assert status == 200
        return int(json.loads(body)["hookSpecificOutput"]["additionalContext"])

    before = {pid("Say") for _ in range(3)}
    leaked = pid("Leak")
    after = {pid("Say") for _ in range(6)}
    assert leaked not in after, (leaked, before, after)


PATCHES_JSON = PID + '''
_main = main
def main():
    _main()
    json.dumps = lambda *a, **k: "patched"
'''


def test_a_worker_whose_check_patched_a_shared_module_is_replaced(server):
    """The check rebinds json.dumps after answering: a later request in that worker would inherit
    it, so the worker is not used again (dispatch_worker.Intact, as in the pool)."""
    _write_manifest(server, [
        {"name": "pid", "script": _check(server, "pid.py", PID), "timeout": 5, "matcher": "^Say$"},
        {"name": "patch", "script": _check(server, "patch.py", PATCHES_JSON), "timeout": 5, "matcher": "^Patch$"},
    ])

    def pid(tool):
        status, body = server.post("PreToolUse", _tool(tool))
        assert status == 200
        return int(json.loads(body)["hookSpecificOutput"]["additionalContext"])

    patched = {pid("Patch") for _ in range(3)}
    after = {pid("Say") for _ in range(6)}
    assert not patched & after, (patched, after)


def test_a_hanging_check_keeps_its_neighbours_advice_and_its_own_timeout(server):
    hang = {"name": "hang", "script": _check(server, "hang.py", "import time\ndef main():\n    time.sleep(600)\n"),
            "timeout": 1, "matcher": "^Both$"}
    say = {"name": "say", "script": _check(server, "say.py", EMIT % "from the neighbour"), "timeout": 8,
           "matcher": "^Both$"}
    for rows in ([hang, say], [say, hang]):  # runs after the hanging one / before it
        _write_manifest(server, rows)
        started = time.monotonic()
        status, body = server.post("PreToolUse", _tool("Both"))
        took = time.monotonic() - started
        assert status == 200 and json.loads(body)["hookSpecificOutput"]["additionalContext"] == "from the neighbour"
        assert took < 6, took  # the hanging row's 1 s (+ margin), not the neighbour's 8 s


def test_a_check_that_takes_the_alarm_away_and_holds_the_gil_is_killed_by_the_server(server):
    """The worker's own alarm cannot end it (the check ignores SIGALRM): the server kills it
    past the deadline it published, and answers the request empty."""
    stubborn = ("import signal\ndef main():\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                "    sum(range(10**12))\n")
    _write_manifest(server, [
        {"name": "stubborn", "script": _check(server, "stubborn.py", stubborn), "timeout": 1, "matcher": "^Stubborn$"},
        {"name": "say", "script": _check(server, "say.py", EMIT % "still here"), "timeout": 5, "matcher": "^Say$"},
    ])
    started = time.monotonic()
    assert server.post("PreToolUse", _tool("Stubborn")) == (200, b"")
    assert time.monotonic() - started < 8
    status, body = server.post("PreToolUse", _tool("Say"))
    assert status == 200 and json.loads(body)["hookSpecificOutput"]["additionalContext"] == "still here"


FORKS = '''
import json, os, sys
def main():
    sys.stdin.read()
    who = "child" if os.fork() == 0 else "worker"  # and no exec: the check returns in both processes
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": who}}))
'''


def test_a_check_that_forks_without_exec_gets_one_reply_per_request(server):
    _write_manifest(server, [{"name": "fork", "script": _check(server, "fork.py", FORKS), "timeout": 5,
                              "matcher": "^Fork$"}])
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:  # one keep-alive connection, one worker: a reply from a forked child would answer the next request
        replies = [post_on(conn, "/%s/PreToolUse" % server.secret, _tool("Fork")) for _ in range(4)]
    finally:
        conn.close()
    assert all(status == 200 for status, _ in replies)
    assert [json.loads(body)["hookSpecificOutput"]["additionalContext"] for _, body in replies] == ["worker"] * 4


def _switches(pid):
    """Context switches of all of ``pid``'s threads so far."""
    total = 0
    for task in (Path("/proc") / str(pid) / "task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
    return total


def test_an_idle_server_sleeps(server):
    """Between requests no thread of the server or its workers wakes up (a resident process
    lives up to an hour idle): the rescuer waits for a request instead of polling."""
    _write_manifest(server, [{"name": "say", "script": _check(server, "say.py", EMIT % "x"), "timeout": 5,
                              "matcher": "^Say$"}])
    assert server.post("PreToolUse", _tool("Say"))[0] == 200
    time.sleep(1.0)
    pids = [server.proc.pid] + [int(line) for line in
                                (Path("/proc") / str(server.proc.pid) / "task" / str(server.proc.pid) / "children")
                                .read_text().split()]
    before = {pid: _switches(pid) for pid in pids}
    time.sleep(2.0)
    woke = {pid: _switches(pid) - count for pid, count in before.items()}
    assert all(count <= 2 for pid, count in woke.items() if pid != server.proc.pid), woke
    assert woke[server.proc.pid] <= 2 * 2 / 0.25 + 2  # the server's own tick: 4 a second


@pytest.mark.parametrize("mode", ["pool", "serve"])
def test_a_dying_worker_keeps_the_finished_advice_and_counts_once_in_the_breaker(tmp_path, mode):
    """The same calls through the command hook's warm pool and through hookmux serve: a check
    that ends its process loses only its own advice, counts as a failure in the breaker (three
    in a row open it), and the row after it is not counted, so it runs again once the breaker
    skips the row that killed its worker."""
    target = install_tree(tmp_path)
    holder = type("Tree", (), {"target": target})
    rows = [{"name": "first", "script": _check(holder, "first.py", EMIT % "first advice"), "timeout": 5},
            {"name": "ender", "script": _check(holder, "ender.py", "import os\ndef main():\n    os._exit(3)\n"),
             "timeout": 5},
            {"name": "after", "script": _check(holder, "after.py", EMIT % "after advice"), "timeout": 5}]
    _write_manifest(holder, [dict(row, matcher="^Die$") for row in rows])
    running = None
    if mode == "serve":
        running = Running(tmp_path, target)
        env = running.env

        def call():
            status, body = running.post("PreToolUse", _tool("Die"))
            assert status == 200
            return json.loads(body)["hookSpecificOutput"]["additionalContext"] if body else ""
    else:
        env = hermetic_env(tmp_path)
        dispatch = target / "_dispatch" / "dispatch.py"
        warm_pool(env, tmp_path, dispatch=dispatch)

        def call():
            done = subprocess.run([PYTHON, "-S", "-E", str(dispatch), "--trace", "PreToolUse"], input=_tool("Die").encode(),
                                  capture_output=True, env=env, timeout=60)
            assert STANDBY_LINE in done.stderr.decode(), done.stderr.decode()
            return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout else ""
    try:
        table = Path(env["HOOKMUX_STATE_DIR"]) / "breaker"
        for count in (1, 2, 3):
            assert call() == "first advice", (mode, count)
            deadline = time.monotonic() + 10  # serve's arbiter counts it just after its reply
            while not any("\tender\t%d\t" % count in path.read_text() for path in table.glob("*.tsv")):
                assert time.monotonic() < deadline, (mode, count, [path.read_text() for path in table.glob("*.tsv")])
                time.sleep(0.05)
        assert not any("\tafter\t" in path.read_text() for path in table.glob("*.tsv")), mode
        assert call() == "first advice\n\nafter advice", mode  # the breaker skips the ender
    finally:
        if running is not None:
            running.stop()


HANGS = '''
import os, signal, time
def main():
    try:
        signal.signal(signal.SIGALRM, signal.SIG_IGN)  # no alarm of the worker's own could end it
    except ValueError:
        pass  # not the main thread: the second runs in a thread once the first is slow
    with open(%r, "a") as out:
        out.write("%%d\\n" %% os.getpid())
    time.sleep(600)
'''


@pytest.mark.parametrize("mode", ["pool", "serve"])
def test_a_stuck_check_ends_by_the_arbiters_kill_at_its_deadline_in_both_modes(tmp_path, mode):
    """Two checks stuck past their 1 s between two that advise, through the command hook's warm
    pool and through hookmux serve: the one answer comes at the stuck checks' deadline (not the
    advising rows' 5 s) with both advices, each stuck row counts once as a timeout in the
    breaker and the advising rows not at all, and the worker that ran them is gone: its arbiter,
    the only one that ends a warm worker's check, killed it (the caller of the pool does not)."""
    target = install_tree(tmp_path)
    holder = type("Tree", (), {"target": target})
    pids = tmp_path / "stuck-pids"
    rows = [{"name": "first", "script": _check(holder, "first.py", EMIT % "first advice"), "timeout": 5},
            {"name": "stuck1", "script": _check(holder, "stuck1.py", HANGS % str(pids)), "timeout": 1},
            {"name": "stuck2", "script": _check(holder, "stuck2.py", HANGS % str(pids)), "timeout": 1},
            {"name": "after", "script": _check(holder, "after.py", EMIT % "after advice"), "timeout": 5}]
    _write_manifest(holder, [dict(row, matcher="^Stuck$") for row in rows])
    running = None
    if mode == "serve":
        running = Running(tmp_path, target)
        env = running.env

        def call():
            status, body = running.post("PreToolUse", _tool("Stuck"))
            assert status == 200
            return json.loads(body)["hookSpecificOutput"]["additionalContext"] if body else ""
    else:
        env = hermetic_env(tmp_path)
        dispatch = target / "_dispatch" / "dispatch.py"
        warm_pool(env, tmp_path, dispatch=dispatch)

        def call():
            done = subprocess.run([PYTHON, "-S", "-E", str(dispatch), "--trace", "PreToolUse"], input=_tool("Stuck").encode(),
                                  capture_output=True, env=env, timeout=60)
            assert STANDBY_LINE in done.stderr.decode(), done.stderr.decode()
            return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout else ""
    try:
        started = time.monotonic()
        assert call() == "first advice\n\nafter advice", mode
        took = time.monotonic() - started
        assert took < 4.0, (mode, took)  # the stuck rows' 1 s and the kill; the others' 5 s is not waited
        stuck = [int(line) for line in pids.read_text().split()]
        assert len(stuck) == 2 and len(set(stuck)) == 1, stuck  # one worker ran both
        deadline = time.monotonic() + 10
        while Path("/proc/%d" % stuck[0]).exists() and "zombie" not in _state_of(stuck[0]):
            assert time.monotonic() < deadline, (mode, "the worker still runs the stuck checks")
            time.sleep(0.05)
        table = Path(env["HOOKMUX_STATE_DIR"]) / "breaker"
        deadline = time.monotonic() + 10  # serve's arbiter counts them just after its reply
        while True:
            text = "".join(path.read_text() for path in table.glob("*.tsv"))
            if "\tstuck1\t1\t" in text and "\tstuck2\t1\t" in text:
                break
            assert time.monotonic() < deadline, (mode, text)
            time.sleep(0.05)
        assert "\tfirst\t" not in text and "\tafter\t" not in text, (mode, text)
    finally:
        if running is not None:
            running.stop()


def _state_of(pid):
    try:
        return Path("/proc/%d/status" % pid).read_text().lower()
    except OSError:
        return "zombie"
