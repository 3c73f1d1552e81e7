"""The hooks keep their own copies of the host name maps; they must agree with hookmux.wiring."""
from __future__ import annotations

import importlib.util
import sys

from hookmux import wiring
from hookmux_testing import HOOKS


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dispatcher_maps_agree_with_wiring():
    sys.path.insert(0, str(HOOKS / "_dispatch"))
    try:
        core = load(HOOKS / "_dispatch" / "dispatch_core.py", "hookmux_wiring_test_core")
    finally:
        sys.path.remove(str(HOOKS / "_dispatch"))
    assert core.COPILOT_EVENTS == wiring.COPILOT_EVENTS
    assert core.COPILOT_TOOLS == wiring.COPILOT_TOOLS


def test_contraindication_check_tool_map_agrees_with_wiring():
    sys.path[:0] = [str(HOOKS / "contraindication"), str(HOOKS)]
    try:
        check = load(HOOKS / "contraindication" / "check.py", "hookmux_wiring_test_check")
    finally:
        del sys.path[:2]
    assert check.COPILOT_TOOLS == wiring.COPILOT_TOOLS


def test_hook_command_quotes_paths_and_uses_no_site(tmp_path):
    target = tmp_path / "my hooks"
    command = wiring.dispatcher_command("/opt/py 3/bin/python3", target, "PreToolUse")
    assert command == f"'/opt/py 3/bin/python3' -S '{target}/_dispatch/dispatch.py' PreToolUse"
    assert wiring.gate_command("/usr/bin/python3", target, "preToolUse") == (
        f"/usr/bin/python3 -S '{target}/skill-redirect/skill_redirect.py' preToolUse")


def test_resolve_python_goes_past_a_shim(tmp_path):
    shim_dir = tmp_path / "shims"
    shim_dir.mkdir()
    shim = shim_dir / "python3"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    shim.chmod(0o755)
    real = wiring.resolve_python(str(shim))
    assert "shims" not in real
    assert real == sys.executable
