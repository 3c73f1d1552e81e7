"""The worker's Page (hooks/_dispatch/dispatch_worker.py): what the arbiter reads of a worker's
state and deadline while the worker writes them on another core is always one whole write.

A read that saw half of two writes once had the arbiter kill a worker that had just begun a
request (its new state beside its old deadline 0.0), or one that was closing a reply: the two
flakes of tests/serve/test_serve_memory.py (docs/reliability.md). The writer here is a forked
process marking its page as a serving worker does, as fast as it can; the reader is the
arbiter's own question, asked as fast as it can."""
from __future__ import annotations

import json
import subprocess

from hookmux_testing import HOOKS, PYTHON

MARKS = 200_000
RACE = f'''
import json, os, sys, time
sys.path.insert(0, {str(HOOKS / "_dispatch")!r})
from dispatch_worker import BUSY, IDLE, REPLYING, Page
page = Page()
pid = os.fork()
if pid == 0:
    far = time.monotonic() + 3600.0
    for _ in range({MARKS} // 3):
        page.mark(BUSY, far)
        page.mark(REPLYING, far + 1.0)
        page.mark(IDLE, 0.0)
    os._exit(0)
reads = torn = none = 0
seen = set()
while os.waitpid(pid, os.WNOHANG) == (0, 0):
    fields = page.read()
    reads += 1
    if fields is None:
        none += 1
        continue
    state, deadline = fields[:2]
    seen.add(state)
    now = time.monotonic()
    if state not in (IDLE, BUSY, REPLYING) or (state != IDLE and deadline < now) or (state == IDLE and deadline != 0.0):
        torn += 1
print(json.dumps({{"reads": reads, "torn": torn, "none": none, "seen": sorted(seen)}}))
'''


def test_a_read_never_mixes_two_writes():
    done = subprocess.run([PYTHON, "-S", "-c", RACE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["seen"] == [0, 1, 2] and result["reads"] > 10_000, result  # the reads overlapped the writes
    assert result["torn"] == 0, result
