"""Issue 20.1 / issue 17 (the wiring fails open): when the hooks folder or the interpreter a wired
command names is gone, the real hosts run the tool call and the turn goes on."""
from __future__ import annotations

import shutil
import subprocess
import sys

from e2e_fixtures import claude_cli, copilot_cli, hookmux_installer, sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import ToolUse

AGENT_AND_SKILL = "gherkin-expert"


def _runs(run, event: str, needle: str) -> list[tuple[str, str, int, int]]:
    return [r for r in run.hook_runs() if r[0].split(":")[0] == event and needle in r[1]]


def test_claude_code_runs_bash_and_goes_on_when_the_hooks_folder_is_deleted(claude_cli, sandbox):
    sandbox.install_claude_user()
    shutil.rmtree(sandbox.claude_target)
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": "echo e2e-first"}),
                                      ToolUse("Read", {"file_path": str(sandbox.user_settings)}),
                                      ToolUse("Bash", {"command": "echo e2e-second"})],
                         "--allowedTools", "Bash", "Read")

    assert run.proc.returncode == 0, run.proc.stderr
    first, read, second = run.after(0), run.after(1), run.after(2)
    assert not first.is_error and first.result == "e2e-first", first
    assert not read.is_error and "dispatch.py" in read.result
    assert not second.is_error and second.result == "e2e-second", second  # the turn was not ended
    # Every wired command ran and exited 0; before the fail-open suffix they exited 2 (blocking).
    dispatches, gates = _runs(run, "PreToolUse", "dispatch.py"), _runs(run, "PostToolBatch", "skill_redirect")
    assert [r[2] for r in dispatches] == [0, 0] and [r[2] for r in gates] == [0, 0, 0]
    assert run.claude_hook_errors() == []


def test_copilot_runs_shell_and_skill_calls_when_the_hooks_folder_is_deleted(copilot_cli, sandbox):
    sandbox.install_copilot_user()
    sandbox.add_skill(AGENT_AND_SKILL, ".copilot/skills")
    shutil.rmtree(sandbox.claude_target)
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": "echo e2e-after-delete"}),
                                        ToolUse("skill", {"skill": AGENT_AND_SKILL})])

    assert run.proc.returncode == 0, run.proc.stderr
    shell, skill = run.after(0), run.after(1)
    assert "Denied" not in shell.result and "e2e-after-delete" in shell.result, shell.result
    assert skill.result.startswith(f'Skill "{AGENT_AND_SKILL}" loaded'), skill.result
    ends = [e for e in run.copilot_hook_events() if e["type"] == "hook.end" and e["data"].get("hookType") == "preToolUse"]
    assert ends and all(e["data"].get("success") is True for e in ends), ends


def test_copilot_runs_the_shell_call_when_the_interpreter_was_removed(copilot_cli, sandbox):
    venv = sandbox.root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    sandbox.hookmux("install", "--target", sandbox.claude_target, "--settings", sandbox.user_settings,
                    "--copilot-hooks-dir", sandbox.copilot_hooks_dir, "--python", venv / "bin" / "python")
    assert str(venv) in (sandbox.copilot_hooks_dir / "hookmux.json").read_text()
    shutil.rmtree(venv)
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": "echo e2e-no-interpreter"})])

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert "Denied" not in seen.result and "e2e-no-interpreter" in seen.result, seen.result
    ends = [e for e in run.copilot_hook_events() if e["type"] == "hook.end" and e["data"].get("hookType") == "preToolUse"]
    assert ends and all(e["data"].get("success") is True for e in ends), ends
