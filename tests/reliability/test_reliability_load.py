"""Load: 200 dispatcher processes at once on the same session, with the shipped contraindication check.

All 200 are started, left blocked on stdin, then given their payloads together. Every
process must exit 0 with valid output, the session's state file must be valid, and each row
id new to the session must be announced by exactly one process. A second wave on the same
session brings one new row beside seen ones: exactly one process announces it, the seen
rows stay silent. Bounded: LOAD_PROCESSES processes per wave, each wave within WAVE_BUDGET.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections import Counter

from reliability_support import DISPATCH, HOOKS, PYTHON, assert_dispatcher_output, case, hermetic_env

SUITE = "Load"
LOAD_PROCESSES = 200
WAVE_BUDGET = 120.0  # seconds for a whole wave on 2 cores; a hang guard, not a speed figure
LOAD_TIMEOUT = 90  # each row's timeout in the waves' manifest (_manifest)
SESSION = "load-session-7f3a"

# command -> the row ids the shipped registry matches (checked against the registry first)
FIRST_WAVE = {
    "git push --force origin main": {"GIT-FORCE-PUSH-MAIN"},
    "git reset --hard HEAD~1": {"GIT-RESET-HARD"},
    "terraform destroy": {"TERRAFORM-DESTROY"},
    "docker system prune -a": {"DOCKER-SYSTEM-PRUNE-ALL"},
    "ls -la": set(),
}
SECOND_WAVE = {
    "git reset --hard && git clean -fdx": {"GIT-RESET-HARD", "GIT-CLEAN-IGNORED"},
    "git push --force origin main": {"GIT-FORCE-PUSH-MAIN"},
    "terraform destroy": {"TERRAFORM-DESTROY"},
    "ls -la": set(),
}
ADVISORY_IDS = re.compile(r"matches known hazards? ([A-Z0-9._, -]+)\.")


def _payload(command: str, index: int) -> tuple[str, bytes]:
    """Alternate Claude Code and Copilot payloads of the same session."""
    if index % 2:
        return "preToolUse", json.dumps({"sessionId": SESSION, "timestamp": 1764470000000 + index, "cwd": "/tmp",
                                         "toolName": "bash", "toolArgs": {"command": command}}).encode()
    return "PreToolUse", json.dumps({"session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
                                     "hook_event_name": "PreToolUse", "tool_name": "Bash",
                                     "tool_input": {"command": command}, "tool_use_id": f"toolu_{index}"}).encode()


def _manifest(tmp_path) -> str:
    """The shipped manifest with a timeout no wave reaches: 200 processes on a loaded 2-core
    machine take seconds of CPU each, and a row that times out three times opens its breaker
    (tests/dispatch/test_dispatch_breaker.py) — a wave after it would hear nothing. What this
    test proves is the seen map under concurrency, not a speed."""
    data = json.loads((HOOKS / "_dispatch" / "manifest.json").read_text())
    for entry in data["events"].values():
        for row in entry["checks"]:
            row["timeout"] = LOAD_TIMEOUT
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data))
    return str(path)


def _wave(tmp_path, env, commands: dict[str, set[str]], name: str):
    """Start LOAD_PROCESSES dispatchers, release them together; [(event, command, returncode, stdout)]."""
    outdir = tmp_path / name
    outdir.mkdir()
    plan = [list(commands)[index % len(commands)] for index in range(LOAD_PROCESSES)]
    processes = []
    manifest = _manifest(tmp_path)
    started = time.monotonic()
    for index, command in enumerate(plan):
        event, data = _payload(command, index)
        out = open(outdir / f"{index}.out", "wb")
        err = open(outdir / f"{index}.err", "wb")
        process = subprocess.Popen([PYTHON, "-S", str(DISPATCH), "--manifest", manifest,
                                    "--hooks-root", str(HOOKS), event],
                                   stdin=subprocess.PIPE, stdout=out, stderr=err, env=env)
        out.close()
        err.close()
        processes.append((process, event, command, data))
    for process, _, _, data in processes:  # release them all at once
        process.stdin.write(data)
        process.stdin.close()
    results = []
    for process, event, command, _ in processes:
        try:
            process.wait(max(1.0, started + WAVE_BUDGET - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    elapsed = time.monotonic() - started
    for index, (process, event, command, _) in enumerate(processes):
        results.append((event, command, process.returncode, (outdir / f"{index}.out").read_bytes()))
    return results, elapsed


def _announced(stdout: bytes, event: str) -> set[str]:
    context = assert_dispatcher_output(stdout, event)
    if context is None:
        return set()
    match = ADVISORY_IDS.search(context)
    assert match, context
    return {part.strip() for part in match.group(1).split(",")}


def _state_files(env) -> list:
    root = os.path.join(env["HOOKMUX_STATE_DIR"], "contraindication")
    return sorted(os.path.join(root, name) for name in os.listdir(root))


def _registry_matches(command: str) -> set[str]:
    import sys

    sys.path.insert(0, str(HOOKS / "contraindication"))
    sys.path.insert(0, str(HOOKS))
    try:
        import importlib.util

        spec = importlib.util.spec_from_file_location("rel_contra_check", HOOKS / "contraindication" / "check.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(HOOKS / "contraindication"))
        sys.path.remove(str(HOOKS))
    return {row["id"] for row in module.matching_call_rows(module.load_rows(), "Bash", {"command": command})}


def _check_wave(results, commands, already_seen: set[str]):
    emitted_by_row = Counter()
    for event, command, returncode, stdout in results:
        with case(SUITE):
            assert returncode == 0, (event, command, returncode, stdout)
            announced = _announced(stdout, event)
            if announced:
                assert announced == commands[command], (command, announced)
                assert commands[command] - already_seen, (command, "re-announced a seen row")
            for row in announced:
                emitted_by_row[row] += 1
    new_rows = set().union(*commands.values()) - already_seen
    processes_that_announced = sum(1 for event, command, _, stdout in results if assert_dispatcher_output(stdout, event))
    with case(SUITE):
        # one process per command with a new row announces it (and the command's other rows with it)
        assert processes_that_announced == sum(1 for rows in commands.values() if rows - already_seen)
        for row in new_rows:
            assert emitted_by_row[row] == 1, (row, emitted_by_row)
    return new_rows


def test_two_hundred_dispatchers_on_one_session(tmp_path):
    for commands in (FIRST_WAVE, SECOND_WAVE):
        for command, rows in commands.items():
            assert _registry_matches(command) == rows, command
    env = hermetic_env(tmp_path)
    seen: set[str] = set()
    for name, commands in (("first", FIRST_WAVE), ("second", SECOND_WAVE)):
        results, elapsed = _wave(tmp_path, env, commands, name)
        with case(SUITE):
            assert elapsed < WAVE_BUDGET, elapsed
        print(f"load wave {name}: {LOAD_PROCESSES} processes in {elapsed:.1f}s")
        seen |= _check_wave(results, commands, seen)
        with case(SUITE):
            files = _state_files(env)
            sessions = [path for path in files if os.path.basename(path).startswith("seen-")]
            assert len(sessions) == 1, files
            assert not [path for path in files if path.endswith(".tmp")], files
            with open(sessions[0], encoding="utf-8") as handle:
                state = json.load(handle)
            assert set(state["seen"]) == seen, state
            assert SESSION not in json.dumps(state) and SESSION not in sessions[0]
    assert seen == set().union(*FIRST_WAVE.values(), *SECOND_WAVE.values())
