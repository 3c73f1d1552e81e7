"""Fail open: a bad payload, an unreadable registry or a broken tree lets the call run, silently."""
from __future__ import annotations

import json
import shutil

import pytest

from gate_support import DANGER_GATE, World, payload
from hookmux_testing import HOOKS, run_hook

BROKEN_INPUTS = [
    b"", b"rm -rf ~", b"[]", b"null", b'"Bash"', b"\x00\xff\xfe Bash rm \x1b[31m",
    b'{"tool_name":"Bash","tool_input":{"command":"rm -rf ~"}',
    b'{"tool_name":"Bash","tool_input":{"command":"rm -rf ~"}} {"x": 1}',
    b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~\xff"}}',
    b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["rm","-rf","~"]}}',
    b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm -rf ~"}',
    b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":7}}',
    b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"},"cwd":["x"]}',
    b'{"toolName":"bash","toolArgs":"{not json: rm -rf ~"}',
    b'{"toolName":"bash","toolArgs":null}',
    b"[" * 200000 + b'"Bash rm"' + b"]" * 200000,
    b'{"a":' * 100000 + b'"Bash rm"' + b"}" * 100000,
]


@pytest.mark.parametrize("data", BROKEN_INPUTS, ids=lambda data: repr(data[:50]))
@pytest.mark.parametrize("args", [["PreToolUse"], ["preToolUse"], ["--host", "codex", "PreToolUse"]])
def test_broken_input_is_silent(tmp_path, data, args):
    world = World(tmp_path)
    result = run_hook(DANGER_GATE, args, data, world.env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def copied_tree(tmp_path):
    target = tmp_path / "tree"
    for name in ("danger-gate", "_common"):
        shutil.copytree(HOOKS / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    return target / "danger-gate" / "danger_gate.py"


@pytest.mark.parametrize("damage", ["missing", "not-json", "a-folder", "rows-not-a-list"])
def test_an_unusable_registry_passes_the_call(tmp_path, damage):
    world = World(tmp_path)
    gate = copied_tree(tmp_path)
    registry = gate.parent / "dangers.json"
    if damage == "missing":
        registry.unlink()
    elif damage == "not-json":
        registry.write_text("{")
    elif damage == "a-folder":  # unreadable as a file, whoever runs the test
        registry.unlink()
        registry.mkdir()
    else:
        registry.write_text(json.dumps({"version": 1, "rows": {"a": 1}}))
    result = run_hook(gate, ["PreToolUse"], payload("claude", "rm -rf ~/Documents", world.repo()), world.env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize("module", ["gate_entry.py", "gate_core.py", "judges.py", "rules.py", "../_common/shell.py", "../_common/shell_rules.py"])
def test_a_broken_module_passes_the_call(tmp_path, module):
    world = World(tmp_path)
    gate = copied_tree(tmp_path)
    (gate.parent / module).write_text("raise RuntimeError('broken')\n")
    result = run_hook(gate, ["PreToolUse"], payload("claude", "rm -rf ~/Documents", world.repo()), world.env)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
