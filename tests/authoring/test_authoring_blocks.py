"""Blocks never vanish silently: a row that tries to block is traced, and try/validate warn."""
from __future__ import annotations

import json
import subprocess

import pytest

from hookmux import blocking, testing
from hookmux_testing import PYTHON, REPO, hermetic_env

BLOCKERS = {
    "exit2": "import sys\ndef main():\n    sys.stdin.read()\n    sys.stderr.write('no')\n    sys.exit(2)\n",
    "raise2": "def main():\n    raise SystemExit(2)\n",
    "deny": ("import json\ndef main():\n    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',"
             " 'permissionDecision': 'deny', 'permissionDecisionReason': 'no'}}))\n"),
    "flat_deny": "import json\ndef main():\n    print(json.dumps({'permissionDecision': 'deny', 'permissionDecisionReason': 'no'}))\n",
    "decision": "import json\ndef main():\n    print(json.dumps({'decision': 'block', 'reason': 'no'}))\n",
    "stop": "import json\ndef main():\n    print(json.dumps({'continue': False, 'stopReason': 'no'}))\n",
}
ADVISORS = {
    "silent": "def main():\n    pass\n",
    "advice": "import json\ndef main():\n    print(json.dumps({'additionalContext': 'decide with care'}))\n",
    "exit1": "import sys\ndef main():\n    sys.exit(1)\n",
}


def _write(root, name, body):
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "check.py").write_text(body)
    return root / name / "check.py"


@pytest.mark.parametrize("name", sorted(BLOCKERS))
def test_a_row_that_tries_to_block_is_traced_and_does_not_block(tmp_path, name):
    script = _write(tmp_path, name, BLOCKERS[name])
    result = testing.run_check(script, testing.pre_tool_use("Bash", {"command": "ls"}))
    assert result.tried_to_block and result.trace[0].endswith("tried to block: the dispatcher only advises")
    assert "permissionDecision" not in result.output and "block" not in result.output
    assert blocking.script_reasons(script)


@pytest.mark.parametrize("name", sorted(ADVISORS))
def test_advice_and_other_failures_are_not_blocks(tmp_path, name):
    script = _write(tmp_path, name, ADVISORS[name])
    result = testing.run_check(script, testing.pre_tool_use("Bash", {"command": "ls"}, host="copilot"))
    assert not result.tried_to_block, result.trace
    assert blocking.script_reasons(script) == []


def test_validate_and_try_warn(tmp_path):
    _write(tmp_path, "deny", BLOCKERS["deny"])
    _write(tmp_path, "exit2", BLOCKERS["exit2"])
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"version": 1, "hooks_root": str(tmp_path), "events": {"PreToolUse": {"checks": [
        {"name": "deny", "script": "deny/check.py"}, {"name": "exit2", "script": "exit2/check.py"}]}}}))
    env = hermetic_env(tmp_path)
    validate = subprocess.run([PYTHON, "-m", "hookmux.cli", "validate", str(manifest)], capture_output=True,
                              text=True, cwd=REPO, env=env)
    assert validate.returncode == 0, validate.stdout
    assert (f"warning: {manifest}: events.PreToolUse.checks[0](name='deny').script: deny/check.py tries to block "
            "(prints a permissionDecision); the dispatcher only advises") in validate.stdout
    assert "checks[1](name='exit2').script: exit2/check.py tries to block (exits 2)" in validate.stdout
    payload = tmp_path / "p.json"
    payload.write_text(testing.pre_tool_use("Bash", {"command": "ls"}).stdin)
    tried = subprocess.run([PYTHON, "-m", "hookmux.cli", "try", str(payload), "--manifest", str(manifest)],
                           capture_output=True, text=True, cwd=REPO, env=env)
    assert "warning: [0] deny tried to block; the dispatcher only advises" in tried.stdout
    assert "warning: [1] exit2 tried to block" in tried.stdout


def test_the_shipped_checks_do_not_try_to_block():
    validate = subprocess.run([PYTHON, "-m", "hookmux.cli", "validate"], capture_output=True, text=True, cwd=REPO)
    assert "tries to block" not in validate.stdout


def test_advice_that_mentions_a_deny_is_not_a_block(tmp_path):
    script = _write(tmp_path, "mentions", "import json\ndef main():\n    print(json.dumps("
                    "{'additionalContext': 'a hook answers {\"permissionDecision\": \"deny\"} to block'}))\n")
    result = testing.run_check(script, testing.pre_tool_use("Bash", {"command": "ls"}))
    assert "permissionDecision" in result.context and not result.tried_to_block, result.trace
