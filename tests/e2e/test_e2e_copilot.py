"""hookmux installed for GitHub Copilot CLI: ~/.copilot/hooks, and a project's .claude/settings.json."""
from __future__ import annotations

import pytest

from e2e_expect import COPILOT_DENIED, COPILOT_PRE_CONTEXT, gate_output, matching_rows, wired_gate
from e2e_fixtures import copilot_cli, hookmux_installer, sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import ToolUse

AGENT_ONLY = "prompt-writer"
AGENT_AND_SKILL = "gherkin-expert"
CONTRAINDICATED = "git push --force origin main"


def _copilot_hooks_file(sandbox):
    return sandbox.copilot_hooks_dir / "hookmux.json"


def test_agent_only_skill_is_denied_with_the_full_redirect(copilot_cli, sandbox):
    sandbox.install_copilot_user()
    sandbox.add_agent(AGENT_ONLY, ".copilot/agents")
    run = sandbox.copilot(copilot_cli, [ToolUse("skill", {"skill": AGENT_ONLY})])

    assert run.proc.returncode == 0, run.proc.stderr
    payload = {"sessionId": "e2e", "timestamp": 0, "cwd": str(sandbox.project), "toolName": "skill",
               "toolArgs": {"skill": AGENT_ONLY}}
    code, out, _ = gate_output(sandbox, wired_gate(_copilot_hooks_file(sandbox), "preToolUse", copilot=True), payload)
    assert code == 0 and out and out.get("permissionDecision") == "deny", out
    reason = out["permissionDecisionReason"]
    assert AGENT_ONLY in reason and "task" in reason and "agent_type" in reason
    assert run.after(0).result == COPILOT_DENIED + reason


# Both user-level folders Copilot 1.0.102 loads skills from (it does not load ~/.claude/skills).
@pytest.mark.parametrize("skills_root", [".copilot/skills", ".agents/skills"])
def test_installed_skill_is_not_denied(copilot_cli, sandbox, skills_root):
    sandbox.install_copilot_user()
    sandbox.add_agent(AGENT_AND_SKILL, ".copilot/agents")
    sandbox.add_skill(AGENT_AND_SKILL, skills_root)
    run = sandbox.copilot(copilot_cli, [ToolUse("skill", {"skill": AGENT_AND_SKILL})])

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    assert "Denied" not in seen.result
    assert seen.result.startswith(f'Skill "{AGENT_AND_SKILL}" loaded'), seen.result
    ends = [e for e in run.copilot_hook_events() if e["type"] == "hook.end" and e["data"].get("hookType") == "preToolUse"]
    assert ends and all(e["data"].get("success") is True for e in ends), ends


def test_contraindicated_bash_advisory_reaches_the_model(copilot_cli, sandbox):
    sandbox.install_copilot_user()
    call = {"command": CONTRAINDICATED}
    rows = matching_rows(sandbox, "Bash", call)
    assert rows, f"no installed contraindication row matches {CONTRAINDICATED!r}"
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", call)])

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    advisories = [text for text in seen.extra if text.startswith(COPILOT_PRE_CONTEXT)]
    assert len(advisories) == 1, seen.extra
    for row in rows:
        assert row["id"] in advisories[0]
        assert row["harm"][:60] in advisories[0]
    assert "origin" in seen.result, "the command itself should still have run"


def test_project_claude_settings_gate_denies_in_copilot(copilot_cli, sandbox):
    """Copilot reads a trusted project's Claude-format .claude/settings.json (--trust-folder)."""
    sandbox.install_claude_project()
    sandbox.add_agent(AGENT_ONLY, ".copilot/agents")
    assert not sandbox.copilot_hooks_dir.exists()
    run = sandbox.copilot(copilot_cli, [ToolUse("skill", {"skill": AGENT_ONLY})], "--trust-folder")

    assert run.proc.returncode == 0, run.proc.stderr
    payload = {"hook_event_name": "PreToolUse", "session_id": "e2e", "timestamp": "2026-01-01T00:00:00.000Z",
               "cwd": str(sandbox.project), "tool_name": "skill", "tool_input": {"skill": AGENT_ONLY}}
    code, out, _ = gate_output(sandbox, wired_gate(sandbox.project_settings, "PreToolUse"), payload)
    assert code == 0 and out, (code, out)
    reason = (out.get("hookSpecificOutput") or out)["permissionDecisionReason"]
    assert AGENT_ONLY in reason
    seen = run.after(0)
    assert seen.result == COPILOT_DENIED + reason, seen.result


def test_project_claude_settings_advisory_in_copilot(copilot_cli, sandbox):
    """The dispatcher's answer to Copilot's Claude-format payload (``tool_name`` "bash") reaches the model."""
    sandbox.install_claude_project()
    call = {"command": CONTRAINDICATED}
    rows = matching_rows(sandbox, "Bash", call)
    assert rows
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", call)], "--trust-folder")

    assert run.proc.returncode == 0, run.proc.stderr
    seen = run.after(0)
    advisories = [text for text in seen.extra if text.startswith(COPILOT_PRE_CONTEXT)]
    assert len(advisories) == 1 and rows[0]["id"] in advisories[0], seen.extra
