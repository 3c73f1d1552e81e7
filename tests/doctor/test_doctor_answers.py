"""doctor/answers.py: what each host accepts as a hook's answer (host-contract.md, "What the
model receives"), Codex's strict schema included."""
from __future__ import annotations

import json

import pytest

from hookmux.doctor.answers import problems


def nested(event, **fields):
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, **fields}})


@pytest.mark.parametrize("fmt", ["claude", "copilot", "codex"])
def test_silence_at_exit_0_is_accepted_everywhere(fmt):
    assert problems(fmt, "PreToolUse", 0, "") == []


@pytest.mark.parametrize("fmt", ["claude", "copilot", "codex"])
def test_a_non_zero_exit_a_timeout_and_text_are_not(fmt):
    assert "exit status 2" in problems(fmt, "PreToolUse", 2, "")[0]
    assert "timeout" in problems(fmt, "PreToolUse", None, "")[0]
    assert "not JSON" in problems(fmt, "PreToolUse", 0, "hello\n")[0]
    assert "2 lines" in problems(fmt, "PreToolUse", 0, "{}\n{}\n")[0]


def test_claude_code_reads_the_nested_form_naming_its_event():
    assert problems("claude", "PreToolUse", 0, nested("PreToolUse", additionalContext="c")) == []
    assert problems("claude", "PreToolUse", 0, nested("PostToolUse", additionalContext="c"))


def test_copilot_reads_the_flat_keys_only():
    assert problems("copilot", "PreToolUse", 0, json.dumps({"additionalContext": "c"})) == []
    assert problems("copilot", "PreToolUse", 0, json.dumps(
        {"permissionDecision": "deny", "permissionDecisionReason": "r"})) == []
    assert "ignores keys hookSpecificOutput" in problems("copilot", "PreToolUse", 0, nested("PreToolUse"))[0]


def test_codex_is_strict():
    ok = [nested("PreToolUse", additionalContext="c"),
          nested("PreToolUse", permissionDecision="deny", permissionDecisionReason="r"),
          json.dumps({"decision": "block", "reason": "r"})]
    for answer in ok:
        assert problems("codex", "PreToolUse", 0, answer) == [], answer
    bad = {
        json.dumps({"additionalContext": "c"}): "keys additionalContext",
        json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "r"}): "keys permissionDecision",
        nested("PreToolUse", additionalContext="c", extra=1): "hookSpecificOutput has extra",
        nested("PreToolUse", permissionDecision="deny"): "deny with a reason",
        nested("PreToolUse", permissionDecision="allow", permissionDecisionReason="r"): "deny with a reason",
        nested("Stop", additionalContext="c"): "adds context on Stop",
        json.dumps({"decision": "block"}): "with a reason",
    }
    for answer, words in bad.items():
        found = problems("codex", "Stop" if '"Stop"' in answer else "PreToolUse", 0, answer)
        assert any(words in line for line in found), (answer, found)
