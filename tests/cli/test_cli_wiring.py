"""hookmux.wiring: the command lines hookmux writes and the interpreter it writes into them."""
from __future__ import annotations

import sys

from hookmux import wiring


def test_hook_command_quotes_paths_and_uses_no_site(tmp_path):
    target = tmp_path / "my hooks"
    command = wiring.dispatcher_command("/opt/py 3/bin/python3", target, "PreToolUse")
    assert command == f"'/opt/py 3/bin/python3' -S -E '{target}/_dispatch/dispatch.py' PreToolUse || true"
    assert wiring.gate_command("/usr/bin/python3", target, "preToolUse") == (
        f"/usr/bin/python3 -S -E '{target}/skill-redirect/skill_redirect.py' preToolUse || true")


def test_resolve_python_goes_past_a_shim(tmp_path):
    shim_dir = tmp_path / "shims"
    shim_dir.mkdir()
    shim = shim_dir / "python3"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    shim.chmod(0o755)
    real = wiring.resolve_python(str(shim))
    assert "shims" not in real
    assert real == sys.executable
