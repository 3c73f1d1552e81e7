"""Issue 38 item 4: the hatch only a person can open. Where Claude Code has a person at its
prompt (the session says ``CLAUDE_CODE_SESSION_ATTENDED=1`` to its hooks), the gate answers
``ask`` instead of a deny; everywhere else (``-p``, the SDK, the other hosts) it denies. The
host's side is measured in tests/e2e/test_e2e_ask_channel.py and test_e2e_danger_gate.py."""
from __future__ import annotations

import json

import pytest

from gate_support import World, denial, payload
from hookmux_testing import HOOKS, run_hook

from test_danger_gate_one_message import advise

DANGER_GATE = HOOKS / "danger-gate" / "danger_gate.py"
COMMAND = "rm -rf ~/Documents"
ATTENDED = {"CLAUDE_CODE_SESSION_ATTENDED": "1"}


def _answer(result) -> dict:
    assert result.returncode == 0 and result.stderr == b"", result
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def _ask(result) -> str:
    inner = _answer(result)["hookSpecificOutput"]
    assert set(inner) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    assert (inner["hookEventName"], inner["permissionDecision"]) == ("PreToolUse", "ask"), inner
    return inner["permissionDecisionReason"]


def _documents(world: World) -> None:
    (world.home / "Documents" / "thesis.tex").write_text("the only copy")


def test_an_attended_claude_session_is_asked_and_the_person_reads_what_would_go(tmp_path):
    world = World(tmp_path, **ATTENDED)
    _documents(world)
    reason = _ask(world.gate(COMMAND))
    assert "Documents" in reason and "Allow it only if you mean to lose this." in reason
    assert "hookmux allow" not in reason  # the person answers at the prompt itself
    # an ask is the person's to answer: nothing is kept for `hookmux allow --last`
    assert not (world.root / "state" / "danger-gate" / "recent-denials.json").exists()


@pytest.mark.parametrize("attended", [None, "0", "", "yes", "true"])
def test_without_a_person_it_is_a_deny(tmp_path, attended):
    """``-p`` and the SDK say 0; an unset or odd value is no person either."""
    world = World(tmp_path, **({} if attended is None else {"CLAUDE_CODE_SESSION_ATTENDED": attended}))
    _documents(world)
    assert "NOT run" in denial(world.gate(COMMAND))


@pytest.mark.parametrize("host", ["copilot", "copilot-claude", "codex"])
def test_other_hosts_are_denied_even_with_the_claude_variable_inherited(tmp_path, host):
    """A Copilot or Codex started from a Claude Code terminal inherits the variable: their ask
    is not Claude Code's prompt (Gemini's hangs headless), so they get the deny."""
    world = World(tmp_path, **ATTENDED)
    _documents(world)
    result = world.gate(COMMAND, host=host)
    assert b'"deny"' in result.stdout and b'"ask"' not in result.stdout, result.stdout


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions"])
def test_the_modes_where_a_person_answers_are_asked(tmp_path, mode):
    world = World(tmp_path, **ATTENDED)
    _documents(world)
    data = json.loads(payload("claude", COMMAND, world.repo()))
    data["permission_mode"] = mode
    assert "Documents" in _ask(run_hook(DANGER_GATE, ["PreToolUse"], json.dumps(data), world.env))


@pytest.mark.parametrize("mode", [None, "auto", "plan", "dontAsk", "", 3])
def test_a_mode_whose_ask_may_not_reach_the_person_is_denied(tmp_path, mode):
    """``auto``'s classifier may settle an ask alone (anthropics/claude-code#89561); no mode, or
    one not measured, is no person either."""
    world = World(tmp_path, **ATTENDED)
    _documents(world)
    data = json.loads(payload("claude", COMMAND, world.repo()))
    if mode is None:
        del data["permission_mode"]
    else:
        data["permission_mode"] = mode
    result = run_hook(DANGER_GATE, ["PreToolUse"], json.dumps(data), world.env)
    assert _answer(result)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_guards_own_ground_is_never_asked(tmp_path):
    """A change to the guard itself is the user's to make by hand, not one keypress away."""
    world = World(tmp_path, **ATTENDED)
    result = world.gate("hookmux allow 'rm -rf ~/Documents' --once")
    assert "would change the guard itself" in denial(result)


def test_the_advisory_stays_silent_where_the_gate_asks(tmp_path):
    world = World(tmp_path, **ATTENDED)
    _documents(world)
    assert advise(world, COMMAND, world.repo()) == b""


def test_a_harmless_call_is_neither_asked_nor_denied(tmp_path):
    world = World(tmp_path, **ATTENDED)
    assert world.gate("rm -rf build").stdout == b""
