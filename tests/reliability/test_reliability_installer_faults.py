"""Installer faults: install and uninstall crash at each step of each atomic write.

The installer's writes go through ``hookmux.installer.atomic.write_atomic``, whose steps
``temp`` (create the temp file), ``fsync`` and ``replace`` each pass a fault point steered by
``HOOKMUX_FAULT=STEP:ACTION:N`` (docs/install.md). For the N-th occurrence of each step, with
ACTION ``kill`` (SIGKILL: no cleanup at all), ``exit`` (os._exit) or ``raise`` (OSError):
every file the installer writes is afterwards its old bytes or its new bytes (never partial,
never unparsable; the install record may also hold the installer's intent, whole), and a rerun
without the fault completes and gives exactly the bytes of a clean run. By default every write is killed at every step and the wired files (settings,
backup, Copilot file, record) also get ``exit`` and ``raise``; HOOKMUX_RELIABILITY_FULL=1
runs every action at every write.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from reliability_support import REPO, PYTHON, case, hermetic_env

SUITE = "Installer faults"
FULL = os.environ.get("HOOKMUX_RELIABILITY_FULL") == "1"
STEPS = ("temp", "fsync", "replace")
RECORD = ".claude/hooks/.hookmux-installed.json"
EXIT_CODES = {"kill": -9, "exit": 70, "raise": 1}

USER_SETTINGS = """{
  "permissions": {"allow": ["Bash(git status)"], "defaultMode": "acceptEdits"},
  "env": {"EDITOR": "vim", "GREETING": "h\\u00e9llo"},
  "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 ~/.claude/hooks/my_guard.py", "timeout": 5}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "someFutureKey": {"nested": [1, 2.5, null, true, "x"]}
}
"""

# Writes every atomic write's target path, in order, to HOOKMUX_RELIABILITY_WRITES; then runs the CLI.
SPY = """
import json, os, sys
from hookmux.installer import atomic
log, original = [], atomic.write_atomic
def spy(path, data, mode=None):
    log.append(str(path))
    return original(path, data, mode)
atomic.write_atomic = spy
for module in list(sys.modules.values()):
    if getattr(module, "__name__", "").startswith("hookmux") and getattr(module, "write_atomic", None) is original:
        module.write_atomic = spy
from hookmux import cli
code = cli.main(sys.argv[1:])
open(os.environ["HOOKMUX_RELIABILITY_WRITES"], "w").write(json.dumps(log))
sys.exit(code)
"""


class Sandbox:
    """One HOME at a fixed path, reset to a known state before every case."""

    def __init__(self, base: Path):
        self.base = base
        self.env = hermetic_env(base)
        self.home = Path(self.env["HOME"])
        self.settings = self.home / ".claude" / "settings.json"
        self.target = self.home / ".claude" / "hooks"
        self.copilot = self.home / ".copilot" / "hooks"
        self.flags = ["--target", str(self.target), "--settings", str(self.settings)]

    def reset(self):
        for folder in (self.home, Path(self.env["HOOKMUX_STATE_DIR"]), Path(self.env["XDG_STATE_HOME"])):
            shutil.rmtree(folder, ignore_errors=True)
        self.home.mkdir(parents=True)
        self.settings.parent.mkdir(parents=True)
        self.settings.write_text(USER_SETTINGS, encoding="utf-8")

    def hookmux(self, *args: str, fault: str | None = None, spy: bool = False):
        env = dict(self.env)
        if fault:
            env["HOOKMUX_FAULT"] = fault
        command = [PYTHON, "-c", SPY] if spy else [PYTHON, "-m", "hookmux.cli"]
        if spy:
            env["HOOKMUX_RELIABILITY_WRITES"] = str(self.base / "writes.json")
        return subprocess.run([*command, *args], capture_output=True, text=True, env=env, cwd=str(REPO), timeout=120)

    def state(self) -> dict[str, bytes]:
        """Every file under HOME but the backups (their names carry the time) and the bytecode
        install compiles (it embeds the sources' mtimes; see bytecode())."""
        out = {}
        for path in self.home.rglob("*"):
            if path.is_file() and ".hookmux-backup-" not in path.name and "__pycache__" not in path.parts:
                out[str(path.relative_to(self.home))] = path.read_bytes()
        return out

    def bytecode(self) -> set[str]:
        return {str(path.relative_to(self.home)) for path in self.home.rglob("__pycache__/*")}


def _is_temp(name: str) -> bool:
    return name.endswith(".hookmux-tmp")


# operation -> (setup before the operation, its arguments given the sandbox)
OPERATIONS = {
    "install": (lambda box: None, lambda box: ["install", *box.flags, "--copilot-hooks-dir", str(box.copilot)]),
    "uninstall": (lambda box: _ok(box.hookmux("install", *box.flags, "--copilot-hooks-dir", str(box.copilot))),
                  lambda box: ["uninstall", *box.flags]),
}


def _ok(result):
    assert result.returncode == 0, result.stderr + result.stdout
    return result


def _reference(box: Sandbox, operation: str):
    """(state before, state after a clean run, the target of every write in order)."""
    setup, arguments = OPERATIONS[operation]
    box.reset()
    setup(box)
    before = box.state()
    _ok(box.hookmux(*arguments(box), spy=True))
    writes = json.loads((box.base / "writes.json").read_text())
    return before, box.state(), writes


def _cases(writes: list[str], target: Path):
    """(N, path, step, action); the wired files are those outside the hooks tree, and the record."""
    wired = {index for index, path in enumerate(writes)
             if not path.startswith(f"{target}{os.sep}") or path.endswith(".hookmux-installed.json")}
    for index, path in enumerate(writes):
        for step in STEPS:
            for action in ("kill", "exit", "raise"):
                if action == "kill" or FULL or index in wired:
                    yield index + 1, path, step, action


#: The cases of one operation are split into this many tests, the N-th write into shard N % SHARDS[op],
#: so that pytest-xdist spreads them over its workers (one test held one worker 6 min alone in the
#: .ci/run of a12f81c). Together the shards are every case, as before.
SHARDS = {"install": 4, "uninstall": 1}


@pytest.mark.parametrize(("operation", "shard"), [(op, n) for op in sorted(OPERATIONS) for n in range(SHARDS[op])])
def test_a_crash_at_any_step_of_any_write_leaves_old_or_new_and_a_rerun_completes(tmp_path, operation, shard):
    box = Sandbox(tmp_path)
    before, after, writes = _reference(box, operation)
    after_bytecode = box.bytecode()
    assert len(writes) >= (10 if operation == "install" else 1), writes
    assert before != after
    setup, arguments = OPERATIONS[operation]
    box.reset()
    original = box.state()
    failures = []
    missing_bytecode = {}
    mine = [one for one in _cases(writes, box.target) if one[0] % SHARDS[operation] == shard]
    assert mine, (operation, shard, writes)
    for nth, path, step, action in mine:
        label = f"{operation} {step}:{action}:{nth} ({os.path.basename(path)})"
        try:
            with case(SUITE):
                box.reset()
                setup(box)
                assert box.state() == before, label
                result = box.hookmux(*arguments(box), fault=f"{step}:{action}:{nth}")
                assert result.returncode == EXIT_CODES[action], (label, result.returncode, result.stderr)
                now = box.state()
                for name in set(before) | set(after) | set(now):
                    if _is_temp(name) or name == RECORD:  # the record may hold an intent between the two
                        continue
                    assert now.get(name) in (before.get(name), after.get(name)), (label, name)
                for name in (n for n in now if n.endswith(".json") and not _is_temp(n)):
                    json.loads(now[name])
                if action == "raise":
                    assert {n: b for n, b in now.items() if not _is_temp(n)} == before, label
                    assert "nothing was changed" in result.stderr, (label, result.stderr)
                rerun = box.hookmux(*arguments(box))
                assert rerun.returncode == 0, (label, rerun.stderr)
                assert box.state() == after, label
                if box.bytecode() != after_bytecode:
                    missing_bytecode[label] = sorted(after_bytecode - box.bytecode())
                assert not [p for p in box.home.rglob("*") if _is_temp(p.name)], label
                if operation == "install":
                    _ok(box.hookmux("uninstall", *box.flags))
                    assert box.state() == original and not box.bytecode(), label
        except AssertionError as error:
            failures.append(f"{label}: {str(error)[:300]}")
    assert not failures, "\n".join(failures)
    assert not missing_bytecode, f"F6: installed modules lack bytecode after a crash and a rerun: {missing_bytecode}"
    print(f"installer faults: {operation} shard {shard}: {len(mine)} cases over {len(writes)} writes")


def test_after_a_crash_and_a_rerun_uninstall_leaves_no_folders_behind(tmp_path):
    """F4 (fixed): folders a killed install created are still removed by uninstall after a rerun."""
    box = Sandbox(tmp_path)
    _, _, writes = _reference(box, "install")
    install = OPERATIONS["install"][1](box)
    for nth in (1, 2, len(writes)):
        with case(SUITE):
            box.reset()
            assert box.hookmux(*install, fault=f"temp:kill:{nth}").returncode == -9
            _ok(box.hookmux(*install))
            _ok(box.hookmux("uninstall", *box.flags))
            left = sorted(str(p.relative_to(box.home)) for p in box.home.rglob("*") if p.is_dir())
            assert left == [".claude"], f"F4: folders left behind after temp:kill:{nth}, rerun, uninstall: {left}"
