"""Memory stays flat over 100,000 requests (issue 15): the server's RSS with its workers.

The checks' own state is bounded, not constant, and a worker's peak memory follows it:
calibrated silence re-reads its history ledger (up to ``HOOKMUX_SILENCE_MAX_BYTES``, default
512 KiB) for each advisory, and each new session adds seen-map and watch files that the
checks list while they prune (kept for an hour). So the state is held small here — a few
sessions that are advised again and again (``HOOKMUX_CONTRA_TTL=0``; calibrated silence kept
in its cold start), a 16 KiB history — and is full before the warm-up ends: what is measured
after it is the server's and the workers' own growth. The warm-up is 30,000 requests: the
total RSS, read every 10,000 requests, rose 7.4 MiB up to 20,000 (each worker settles in its
own time) and 1.1 MiB from 30,000 to 100,000; after 5,000 the growth to 100,000 was +5.1 to
+9.2 MiB from run to run, around the bound. The bound still catches a leak of 120 bytes a request.

Long (one to two and a half minutes on 2 cores): left out of the per-version runs of .ci/run,
like the reliability long-runs; the README's ``python -m pytest`` runs it.
"""
from __future__ import annotations

import http.client
import json
import os
import threading

import pytest

from serve_support import Running, bash, install_tree, post_on

REQUESTS = 100_000
WARM_UP = 30_000
CLIENTS = 4
# The growth allowed between the warm-up and the last request, over all processes together.
BOUND_KIB = 8 * 1024


def _rss_kib(pid: int) -> int:
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def _total_rss(pid: int) -> tuple[int, int]:
    """(KiB of the server and its workers, number of processes)."""
    pids = [pid] + _children(pid)
    return sum(_rss_kib(p) for p in pids), len(pids)


def _payload(n: int) -> str:
    """Ordinary shell commands (silent) and prompts; every 50th a hazard, advised every time
    (the fixture's TTL is 0)."""
    if n % 50 == 0:
        return bash("git push --force origin main", session="advised-%d" % (n % 7), cwd="/tmp")
    if n % 4 == 1:
        return json.dumps({"session_id": "p-%d" % (n % 7), "hook_event_name": "UserPromptSubmit",
                           "prompt": "run the tests please", "cwd": "/tmp"})
    return bash("ls -la src/%d" % (n % 100), session="plain-%d" % (n % 7), cwd="/tmp")


@pytest.fixture
def server(tmp_path):
    running = Running(tmp_path, install_tree(tmp_path), HOOKMUX_SILENCE_MAX_BYTES="16384", HOOKMUX_CONTRA_TTL="0",
                      HOOKMUX_SILENCE_MIN_SAMPLES="1000000")
    yield running
    running.stop()


def test_memory_stays_flat_over_100000_requests(server):
    marks = {}
    counter = iter(range(REQUESTS))
    lock = threading.Lock()
    done = [0]
    failures = []

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        try:
            while True:
                with lock:
                    n = next(counter, None)
                if n is None:
                    return
                body = _payload(n)
                event = "UserPromptSubmit" if "UserPromptSubmit" in body else "PreToolUse"
                status, reply = post_on(conn, "/%s/%s" % (server.secret, event), body)
                if status != 200 or (n % 50 == 0 and b"GIT-FORCE-PUSH-MAIN" not in reply):
                    failures.append((n, status, reply[:200]))
                with lock:
                    done[0] += 1
                    if done[0] in (WARM_UP, REQUESTS):
                        marks[done[0]] = _total_rss(server.proc.pid)
        finally:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not failures, failures[:5]
    (warm, warm_procs), (last, last_procs) = marks[WARM_UP], marks[REQUESTS]
    print("RSS after %d requests: %d KiB in %d processes; after %d: %d KiB in %d processes (%+d KiB)"
          % (WARM_UP, warm, warm_procs, REQUESTS, last, last_procs, last - warm))
    assert last - warm <= BOUND_KIB, (warm, last)
    assert server.proc.poll() is None
