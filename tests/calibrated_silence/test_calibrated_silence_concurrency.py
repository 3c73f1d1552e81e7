"""50 processes appending to the calibrated-silence history at once lose nothing."""
from __future__ import annotations

import json
import subprocess
import sys
import time

from hookmux_testing import hermetic_env
from silence_support import MODULE, TYPE, history

PROCESSES = 50
EACH = 20

WORKER = r"""
import os, sys, time
from importlib._bootstrap_external import spec_from_file_location
from importlib._bootstrap import module_from_spec
spec = spec_from_file_location("cs", sys.argv[1]); cs = module_from_spec(spec); spec.loader.exec_module(cs)
worker, each, go = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
while not os.path.exists(go):
    time.sleep(0.001)
for index in range(each):
    session = "w%d-%d" % (worker, index)
    if index % 2:
        cs.record_reaction(%r, "K%d" % (index % 3), session, "ignored")
    else:
        assert cs.record_interjection(%r, "K%d" % (index % 3), session)
    cs.should_interject(%r, {"finding": "K0", "session_id": session, "event": session})
""".replace("%r", repr(TYPE))


def test_fifty_processes_appending_lose_nothing(tmp_path):
    env = hermetic_env(tmp_path)
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-S", "-c", WORKER, str(MODULE), str(n), str(EACH), str(go)],
                              env=env, stderr=subprocess.PIPE) for n in range(PROCESSES)]
    time.sleep(0.5)
    go.write_text("")
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    records = history(tmp_path / "state")
    raw = (tmp_path / "state" / "calibrated-silence" / "history.jsonl").read_text().splitlines()
    assert len(raw) == len(records) == PROCESSES * EACH * 2  # every line whole and parseable
    kinds = [r["k"] for r in records]
    assert kinds.count("occurrence") == PROCESSES * EACH
    assert kinds.count("reaction") == kinds.count("interjection") == PROCESSES * EACH // 2
    sessions = {(r["k"], r["s"]) for r in records}
    assert len(sessions) == PROCESSES * EACH + PROCESSES * EACH  # no record lost or doubled
    assert all(json.loads(line) for line in raw)
