"""Spawn hook commands the way a host does and time them.

Every invocation is a fresh process (``os.posix_spawn``) with its stdin read
from a file and stdout/stderr sent to files or /dev/null. Wall time runs from
just before the first spawn to the last exit; CPU time is the children's
user+system time from ``os.wait4``, summed over the processes of one run, and,
where ``adopt_orphans()`` took, of the processes they left behind (the
dispatcher's forked worker ends after its parent and is never waited for there).
"""
from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence


@dataclass(frozen=True)
class Invocation:
    argv: tuple[str, ...]
    stdin_path: str


@dataclass
class Sample:
    wall_ns: int
    cpu_ns: int
    exit_codes: list[int] = field(default_factory=list)


def _executable(argv0: str) -> str:
    if os.path.isabs(argv0):
        return argv0
    found = shutil.which(argv0)
    if not found:
        raise FileNotFoundError(argv0)
    return found


def _spawn(inv: Invocation, env: dict[str, str], out_path: str, err_path: str) -> int:
    write = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, inv.stdin_path, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out_path, write, 0o600),
        (os.POSIX_SPAWN_OPEN, 2, err_path, write, 0o600),
    ]
    return os.posix_spawn(_executable(inv.argv[0]), list(inv.argv), env, file_actions=actions)


def measure(
    invocations: Sequence[Invocation],
    env: dict[str, str],
    outputs: Sequence[tuple[str, str]] | None = None,
) -> Sample:
    """Launch all invocations at once, wait for all, return one sample.

    ``outputs`` gives a (stdout, stderr) file per invocation; by default both
    go to /dev/null.
    """
    targets = outputs or [(os.devnull, os.devnull)] * len(invocations)
    before = _children() if _ADOPTING else set()
    start = time.perf_counter_ns()
    pids = [_spawn(inv, env, out, err) for inv, (out, err) in zip(invocations, targets)]
    cpu = 0.0
    codes: dict[int, int] = {}
    for pid in pids:
        _, status, usage = os.wait4(pid, 0)
        codes[pid] = os.waitstatus_to_exitcode(status)
        cpu += usage.ru_utime + usage.ru_stime
    wall = time.perf_counter_ns() - start
    if _ADOPTING:
        cpu += _reap_orphans(before)
    return Sample(wall_ns=wall, cpu_ns=round(cpu * 1e9), exit_codes=[codes[p] for p in pids])


PR_SET_CHILD_SUBREAPER = 36
ORPHAN_WAIT_SECONDS = 2.0
_ADOPTING = False


def adopt_orphans() -> bool:
    """Become the parent of the processes our children leave behind (Linux), so that their
    CPU is counted too. Returns whether it took."""
    global _ADOPTING
    if not _ADOPTING and sys.platform.startswith("linux"):
        try:
            import ctypes

            _ADOPTING = ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            pass
    return _ADOPTING


def _children() -> set[int]:
    """Our children in our session: a process that started a session of its own (the
    dispatcher's warm pool, which outlives every run) is not part of any run."""
    found = set()
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as handle:
                found.update(int(pid) for pid in handle.read().split())
    except OSError:
        pass
    session = os.getsid(0)
    return {pid for pid in found if _session(pid) == session}


def _session(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except OSError:
        return None


def _reap_orphans(before: set[int]) -> float:
    """Wait (a little) for the children that were not there before the run; their CPU seconds."""
    cpu = 0.0
    deadline = time.monotonic() + ORPHAN_WAIT_SECONDS
    waiting = _children() - before
    while waiting and time.monotonic() < deadline:
        for pid in list(waiting):
            try:
                done, _, usage = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:
                waiting.discard(pid)
                continue
            if done:
                cpu += usage.ru_utime + usage.ru_stime
                waiting.discard(pid)
        if waiting:
            time.sleep(0.0002)
            waiting |= _children() - before
    return cpu


def round_robin(
    names: Sequence[str],
    run_once: Callable[[str, int], Sample],
    runs: int,
    warmup: int,
    gap: float = 0.0,
) -> dict[str, list[Sample]]:
    """``warmup`` untimed rounds, then ``runs`` rounds over every case, ``gap`` seconds apart.

    Each round visits every case once, starting one case further along than
    the round before, so drift and position effects hit all cases alike.
    """
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    count = len(names)
    for round_index in range(warmup + runs):
        for offset in range(count):
            name = names[(round_index + offset) % count]
            sample = run_once(name, round_index)
            if round_index >= warmup:
                samples[name].append(sample)
            if gap:
                time.sleep(gap)
    return samples


def pool_usage(runtime_dir: Path, settle: float = 1.5) -> dict | None:
    """What the dispatcher's warm pools under ``runtime_dir`` served and spent: their CPU is in
    no case's figure (the pool is in a session of its own and outlives every run). Waits
    ``settle`` seconds first, so that the last standbys are reaped and counted."""
    if not runtime_dir.exists():
        return None
    time.sleep(settle)
    served, cpu_ms = 0, 0.0
    for report in runtime_dir.glob("*/manager"):
        try:
            _pid, calls, cpu = report.read_text().split()
        except (OSError, ValueError):
            continue
        served += int(calls)
        cpu_ms += float(cpu)
    if not served:
        return None
    return {"served": served, "cpu_ms": round(cpu_ms, 1), "cpu_ms_per_call": round(cpu_ms / served, 2)}

