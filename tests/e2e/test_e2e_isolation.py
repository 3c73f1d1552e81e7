"""Issue 17: no check can make a hook fail. A row that ends its process or holds the GIL runs in
the dispatcher's forked worker, so real Copilot CLI (which denies the call of a preToolUse hook
that exits non-zero) still runs the shell call, and the advice of the well-behaved row arrives."""
from __future__ import annotations

import json

import pytest

from e2e_expect import COPILOT_PRE_CONTEXT
from e2e_fixtures import copilot_cli, hookmux_installer, sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import ToolUse

CONTRAINDICATED = "git push --force origin main"
BAD_ROWS = {
    # Sleeps first, so that the contraindication row has finished and been reported.
    "os-exit-3": ("import os, time\ndef main():\n    time.sleep(0.5)\n    os._exit(3)\n", 5),
    "holds-the-gil": ("import time\ndef main():\n    time.sleep(0.5)\n    sum(range(10 ** 12))\n", 2),
}


def _add_bad_row(sandbox, kind: str) -> None:
    body, timeout = BAD_ROWS[kind]
    target = sandbox.claude_target
    (target / "bad-row").mkdir()
    (target / "bad-row" / "check.py").write_text(body)
    manifest_path = target / "_dispatch" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["events"]["PreToolUse"]["checks"].append(
        {"name": "bad-row/check", "script": "bad-row/check.py", "matcher": "^Bash$", "timeout": timeout})
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


@pytest.mark.parametrize("kind", sorted(BAD_ROWS))
def test_a_row_that_ends_or_stalls_its_process_does_not_deny_the_shell_call(copilot_cli, sandbox, kind):
    sandbox.install_copilot_user()
    _add_bad_row(sandbox, kind)
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": CONTRAINDICATED})])

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert "Denied" not in seen.result and "origin" in seen.result, seen.result
    advisories = [text for text in seen.extra if text.startswith(COPILOT_PRE_CONTEXT)]
    assert len(advisories) == 1 and "GIT-FORCE-PUSH-MAIN" in advisories[0], seen.extra
    ends = [e for e in run.copilot_hook_events() if e["type"] == "hook.end" and e["data"].get("hookType") == "preToolUse"]
    assert ends and all(e["data"].get("success") is True for e in ends), ends
