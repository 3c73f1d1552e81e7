"""The dispatcher and the gate import only the standard library on their hot paths.

Two views of each run, both as real subprocesses with the installed command
shape (``python -S script EVENT < payload``):
- ``-X importtime``: every ``import`` statement executed, also failed attempts
  (so a ``try: import filelock`` shows up). The gate runs as its exact command;
  the dispatcher through ``run()`` with the same arguments, because its
  ``main()`` points fd 2 at /dev/null before it loads any check;
- a ``sys.modules`` dump taken by a small runner that executes the script as
  ``__main__`` (catches modules loaded through importlib as well).
Every module must be standard library or live in the hooks tree; jsonschema
and filelock must not appear at all.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from hookmux_testing import DISPATCH, GATE, HOOKS, PYTHON, hermetic_env
from hookmux.bench.importtime import importtime_argv

FORBIDDEN = ("jsonschema", "filelock")
# Standard library names of other Python versions that a hook may try first
# (3.12 renamed _sha256 to _sha2); -X importtime lists the failed attempt.
OTHER_VERSIONS_STDLIB = {"_sha2", "_sha256"}


def _stdlib_names() -> set[str]:
    """sys.stdlib_module_names (3.10+); on 3.9 the built-in modules plus what the interpreter's
    own library folders hold (site-packages excluded)."""
    if hasattr(sys, "stdlib_module_names"):
        return set(sys.stdlib_module_names)
    names = set(sys.builtin_module_names) | {"_frozen_importlib", "_frozen_importlib_external"}
    for key in ("stdlib", "platstdlib"):
        base = Path(sysconfig.get_paths()[key])
        for folder in (base, base / "lib-dynload"):
            for entry in folder.iterdir() if folder.is_dir() else ():
                if entry.name == "site-packages":
                    continue
                if entry.is_dir() and (entry / "__init__.py").exists():
                    names.add(entry.name)
                elif entry.suffix in (".py", ".so", ".pyd"):
                    names.add(entry.name.split(".")[0])
    return names


STDLIB = _stdlib_names()

# Runs a hook script as __main__ and writes sys.modules (name -> file) to
# $HOOKMUX_TEST_MODULES_OUT whenever the process ends, os._exit included.
DUMPER = r"""
import json, os, sys
out, script = os.environ["HOOKMUX_TEST_MODULES_OUT"], sys.argv[1]
def dump():
    mods = {n: getattr(m, "__file__", None) for n, m in list(sys.modules.items())}
    # Forked workers and standbys dump too: each writes whole files, renamed in, never a torn one.
    tmp = "%s.%d" % (out, os.getpid())
    with open(tmp, "w") as handle:
        json.dump(mods, handle)
    os.replace(tmp, out)
real_exit = os._exit
def _exit(code):
    dump()
    real_exit(code)
os._exit = _exit
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(os.path.abspath(script))
import runpy
try:
    runpy.run_path(script, run_name="__main__")
finally:
    dump()
"""


def _claude(event, **fields):
    return {"session_id": "imports-test", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
            "hook_event_name": event, **fields}


CONTRA = _claude("PreToolUse", tool_name="Bash", tool_input={"command": "git push --force origin main"})
HOT_PATHS = {
    "dispatch-contra-new": (DISPATCH, ["--hooks-root", str(HOOKS), "PreToolUse"], CONTRA, "additionalContext"),
    "dispatch-read": (DISPATCH, ["--hooks-root", str(HOOKS), "PreToolUse"],
                      _claude("PreToolUse", tool_name="Read", tool_input={"file_path": "/tmp/x"}), ""),
    "dispatch-copilot-contra": (DISPATCH, ["--hooks-root", str(HOOKS), "preToolUse"],
                                {"sessionId": "imports-test-2", "timestamp": 1, "cwd": "/tmp", "toolName": "bash",
                                 "toolArgs": {"command": "git push --force origin main"}}, "additionalContext"),
    "gate-pre-bash": (GATE, ["PreToolUse"], _claude("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}), ""),
    "gate-batch-no-skill": (GATE, ["PostToolBatch"], _claude("PostToolBatch", tool_calls=[
        {"tool_name": "Read", "tool_input": {"file_path": "/tmp/x"}, "tool_response": "text"}]), ""),
    "gate-batch-agent-hit": (GATE, ["PostToolBatch"], _claude("PostToolBatch", tool_calls=[
        {"tool_name": "Skill", "tool_input": {"skill": "prompt-writer"},
         "tool_response": "<tool_use_error>Unknown skill: prompt-writer</tool_use_error>"}]), "additionalContext"),
    "gate-copilot-agent-hit": (GATE, ["preToolUse"], {"sessionId": "s", "timestamp": 1, "cwd": "/tmp",
                                                       "toolName": "skill", "toolArgs": {"skill": "prompt-writer"}},
                               "deny"),
    "gate-pre-real-skill": (GATE, ["PreToolUse"], _claude("PreToolUse", tool_name="Skill",
                                                           tool_input={"skill": "bench-skill-001"}), ""),
}


def _local_names() -> set[str]:
    """Module names a hook may import from the hooks tree itself."""
    names = set()
    for path in HOOKS.rglob("*"):
        if "__pycache__" in path.parts:
            continue
        if path.suffix == ".py":
            names.add(path.stem)
        elif path.is_dir():
            names.add(path.name)
    return names


def _env(tmp_path: Path) -> dict[str, str]:
    skill = tmp_path / "skills" / "bench-skill-001"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: bench-skill-001\n---\nA skill.\n")
    env = hermetic_env(tmp_path, HOOKMUX_SKILLS_PATH=str(tmp_path / "skills"))
    for agent in (Path(env["HOME"]) / ".claude" / "agents" / "prompt-writer.md",
                  Path(env["HOME"]) / ".copilot" / "agents" / "prompt-writer.agent.md"):
        agent.parent.mkdir(parents=True, exist_ok=True)
        agent.write_text("---\nname: prompt-writer\ndescription: An agent.\n---\nWrite prompts.\n")
    return env


def _check_behaviour(result, expected: str) -> None:
    assert result.returncode in (0, 2), result.stderr.decode(errors="replace")[-2000:]
    assert b"Traceback" not in result.stdout
    if expected:
        assert expected.encode() in result.stdout, (result.stdout, result.stderr[-2000:])
    else:
        assert result.stdout == b"", result.stdout


def _importtime_names(stderr: str) -> list[str]:
    names = []
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name and name != "imported package":
                names.append(name)
    return names


@pytest.mark.parametrize("case", sorted(HOT_PATHS))
def test_importtime_shows_only_stdlib_and_hook_modules(tmp_path, case):
    script, args, payload, expected = HOT_PATHS[case]
    result = subprocess.run(
        importtime_argv([PYTHON, "-S", str(script), *args]),
        input=json.dumps(payload).encode(), capture_output=True, env=_env(tmp_path), timeout=60,
    )
    _check_behaviour(result, expected)
    names = _importtime_names(result.stderr.decode(errors="replace"))
    assert names, "no -X importtime output"
    tops = {name.split(".")[0] for name in names}
    forbidden = [n for n in names if n.split(".")[0] in FORBIDDEN]
    assert forbidden == [], f"imported or tried to import: {forbidden}"
    outside = sorted(tops - STDLIB - OTHER_VERSIONS_STDLIB - _local_names())
    assert outside == [], f"imported outside the standard library: {outside}"


@pytest.mark.parametrize("case", sorted(HOT_PATHS))
def test_sys_modules_hold_only_stdlib_and_hook_modules(tmp_path, case):
    script, args, payload, expected = HOT_PATHS[case]
    dump = tmp_path / "modules.json"
    env = _env(tmp_path)
    env["HOOKMUX_TEST_MODULES_OUT"] = str(dump)
    result = subprocess.run(
        [PYTHON, "-S", "-c", DUMPER, str(script), *args],
        input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60,
    )
    _check_behaviour(result, expected)
    modules = json.loads(dump.read_text())
    assert "json" in modules or "_json" in modules
    hooks = str(HOOKS.resolve()) + os.sep
    bad = {}
    for name, file in modules.items():
        top = name.split(".")[0]
        if top in FORBIDDEN:
            bad[name] = file
        elif file and "site-packages" in file:
            bad[name] = file
        elif top in STDLIB or top == "__main__":
            continue
        elif not file or not os.path.realpath(file).startswith(hooks):
            bad[name] = file
    assert bad == {}, f"modules from outside the standard library and the hooks tree: {bad}"
