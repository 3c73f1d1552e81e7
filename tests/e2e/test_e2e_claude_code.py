"""hookmux installed in the user's ~/.claude/settings.json, driven through the real Claude Code."""
from __future__ import annotations

import json

import pytest

from e2e_expect import ADVISORY_PREFIX, POST_TOOL_BATCH_PREFIX, gate_output, matching_rows, wired_gate
from e2e_fixtures import claude_cli, hookmux_installer, sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import ToolUse

AGENT_ONLY = "prompt-writer"
AGENT_AND_SKILL = "gherkin-expert"
# Matches the force-push row; harmless here: the sandbox repo has no remote, so git fails at once.
CONTRAINDICATED = "git push --force origin main"


def _runs(run, event: str, needle: str) -> list[tuple[str, str, int, int]]:
    return [r for r in run.hook_runs() if r[0].split(":")[0] == event and needle in r[1]]


# Agent-only for Claude Code: no skill of that name anywhere, or one only Copilot loads (~/.copilot/skills).
@pytest.mark.parametrize("copilot_skill", [None, ".copilot/skills"])
def test_agent_only_skill_is_redirected_through_post_tool_batch(claude_cli, sandbox, copilot_skill):
    sandbox.install_claude_user()
    sandbox.add_agent(AGENT_ONLY, ".claude/agents")
    if copilot_skill:
        sandbox.add_skill(AGENT_ONLY, copilot_skill)
    run = sandbox.claude(claude_cli, [ToolUse("Skill", {"skill": AGENT_ONLY})])

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert seen.is_error and f"Unknown skill: {AGENT_ONLY}" in seen.result
    # What the installed gate says for the PostToolBatch payload Claude Code sends.
    payload = {
        "session_id": "e2e", "transcript_path": "", "cwd": str(sandbox.project), "hook_event_name": "PostToolBatch",
        "tool_calls": [{"tool_name": "Skill", "tool_input": {"skill": AGENT_ONLY}, "tool_use_id": run.tool_use_ids[0],
                        "tool_response": seen.result}],
    }
    code, out, _ = gate_output(sandbox, wired_gate(sandbox.user_settings, "PostToolBatch"), payload)
    assert code == 0 and out is not None, "the installed gate did not redirect the PostToolBatch payload"
    redirect = out["hookSpecificOutput"]["additionalContext"]
    assert AGENT_ONLY in redirect and "subagent_type" in redirect and "Agent" in redirect
    assert any(POST_TOOL_BATCH_PREFIX + redirect in text for text in seen.extra), seen.extra
    assert run.claude_hook_errors() == []


def test_name_that_is_also_an_installed_skill_passes(claude_cli, sandbox):
    sandbox.install_claude_user()
    sandbox.add_agent(AGENT_AND_SKILL, ".claude/agents")
    sandbox.add_skill(AGENT_AND_SKILL, ".claude/skills")
    run = sandbox.claude(claude_cli, [ToolUse("Skill", {"skill": AGENT_AND_SKILL})])

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert not seen.is_error and seen.result == f"Launching skill: {AGENT_AND_SKILL}"
    everything = json.dumps(run.requests[-1])
    assert "hook additional context" not in everything and "hook error" not in everything
    assert run.claude_hook_errors() == []
    # The gate ran on PostToolBatch and passed silently; Claude Code's own Skill call starts no
    # PreToolUse gate (that entry's matcher is for Copilot's loader of this file).
    assert [r[2] for r in _runs(run, "PreToolUse", "skill_redirect")] == []
    assert [r[2] for r in _runs(run, "PostToolBatch", "skill_redirect")] == [0]


def test_contraindicated_bash_advises_once_per_session(claude_cli, sandbox):
    sandbox.install_claude_user()
    call = {"command": CONTRAINDICATED}
    rows = matching_rows(sandbox, "Bash", call)
    assert rows, f"no installed contraindication row matches {CONTRAINDICATED!r}"
    run = sandbox.claude(claude_cli, [ToolUse("Bash", call), ToolUse("Bash", call)], "--allowedTools", "Bash")

    assert run.proc.returncode == 0, run.proc.stderr
    first, second = run.after(0), run.after(1)
    advisories = [text for text in first.extra if text.startswith(ADVISORY_PREFIX)]
    assert len(advisories) == 1, first.extra
    for row in rows:
        assert row["id"] in advisories[0]
        assert row["harm"][:60] in advisories[0]
    assert CONTRAINDICATED not in advisories[0], "the advisory must not echo the command"
    assert "origin" in first.result, "the command itself should still have run"
    assert not any(ADVISORY_PREFIX in text for text in second.extra), second.extra
    assert json.dumps(run.requests[-1]).count(ADVISORY_PREFIX) == 1
    assert run.claude_hook_errors() == []


def test_harmless_bash_shows_only_the_command_output(claude_cli, sandbox):
    sandbox.install_claude_user()
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": "echo e2e-harmless-output"})])

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert not seen.is_error and seen.result == "e2e-harmless-output"
    assert seen.extra == [], seen.extra
    assert run.claude_hook_errors() == []
    # The hooks were on the path and exited 0: the dispatcher on PreToolUse, the gate on PostToolBatch.
    assert [r[2] for r in _runs(run, "PreToolUse", "dispatch.py")] == [0]
    assert [r[2] for r in _runs(run, "PostToolBatch", "skill_redirect")] == [0]


HANG_TIMEOUT = 2
HANG_CHECK = '''"""e2e: a check that never returns."""
import time


def main():
    time.sleep(3600)
'''


def test_hanging_row_is_cut_at_its_timeout(claude_cli, sandbox):
    sandbox.install_claude_user()
    manifest_path = sandbox.claude_target / "_dispatch" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    (sandbox.claude_target / "e2e-hang").mkdir()
    (sandbox.claude_target / "e2e-hang" / "hang.py").write_text(HANG_CHECK)
    manifest["events"]["PreToolUse"]["checks"].append({
        "name": "e2e-hang/hang", "script": "e2e-hang/hang.py", "timeout": HANG_TIMEOUT,
        "matcher": "^Bash$", "side_effect": "none", "emits": True,
    })
    manifest_path.write_text(json.dumps(manifest, indent=2))
    settings_timeout = manifest["events"]["PreToolUse"]["settings_timeout"]
    call = {"command": CONTRAINDICATED}
    rows = matching_rows(sandbox, "Bash", call)
    assert rows

    run = sandbox.claude(claude_cli, [ToolUse("Bash", call)], "--allowedTools", "Bash")

    assert run.proc.returncode == 0, run.proc.stderr
    assert run.elapsed < HANG_TIMEOUT + 10, f"the CLI took {run.elapsed:.1f}s"
    seen = run.after(0)
    assert "origin" in seen.result, "the tool call did not complete"
    # The dispatcher finished on its own (the host did not kill it at settings_timeout), so the
    # other row's advisory from the same process still reached the model.
    assert any(text.startswith(ADVISORY_PREFIX) and rows[0]["id"] in text for text in seen.extra), seen.extra
    dispatches = _runs(run, "PreToolUse", "dispatch.py")
    assert [r[2] for r in dispatches] == [0]
    assert dispatches[0][3] < settings_timeout * 1000
    assert run.claude_hook_errors() == []

