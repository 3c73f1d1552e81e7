"""The contraindication check uses calibrated silence for repeats only, through the dispatcher."""
from __future__ import annotations

import json

import pytest
from hookmux_testing import DISPATCH, HOOKS, hermetic_env, run_hook
from silence_support import bash_payload, history, load, reactions

RESET = "git reset --hard HEAD~1"
FORCE_PUSH = "git push --force origin main"


@pytest.fixture
def host(tmp_path):
    env = hermetic_env(tmp_path)

    def call(payload, **extra):
        result = run_hook(DISPATCH, ["--hooks-root", str(HOOKS), "PreToolUse"], payload, {**env, **extra})
        assert result.returncode == 0 and result.stderr == b""
        return result.stdout.decode()

    call.state = tmp_path / "state"
    return call


def ignore_in_sessions(host, count, command=RESET):
    for index in range(count):
        session = "past-%d" % index
        assert "GIT-RESET-HARD" in host(bash_payload(command, session=session))
        assert host(bash_payload(command + " # again", session=session)) == ""


def test_ignored_across_sessions_goes_quiet_while_a_new_hazard_surfaces(host):
    ignore_in_sessions(host, 2)
    assert "GIT-RESET-HARD" in host(bash_payload(RESET, session="third"))  # MIN_SAMPLES - 1: cold start
    host(bash_payload(RESET + " # again", session="third"))
    assert [r["r"] for r in reactions(host.state)] == ["ignored"] * 3
    assert host(bash_payload(RESET, session="now")) == ""  # fatigued repeat
    assert "GIT-FORCE-PUSH-MAIN" in host(bash_payload(FORCE_PUSH, session="now"))  # novel: surfaces
    both = host(bash_payload(RESET + " && " + FORCE_PUSH, session="later"))
    assert "GIT-RESET-HARD" in both and "GIT-FORCE-PUSH-MAIN" in both  # one allowed id shows the whole finding


def test_the_seen_map_still_silences_repeats_within_a_session(host):
    assert host(bash_payload(RESET))
    assert host(bash_payload(RESET + " --quiet")) == ""
    occurrences = [r for r in history(host.state) if r["k"] == "occurrence"]
    assert len(occurrences) == 1  # the in-session repeat never reaches the gate


def test_suppressed_repeats_are_counted_and_the_kill_switch_shows_them(host, monkeypatch):
    ignore_in_sessions(host, 3)
    assert host(bash_payload(RESET, session="q1")) == ""
    assert host(bash_payload(RESET, session="q2")) == ""
    monkeypatch.setenv("HOOKMUX_STATE_DIR", str(host.state))
    counts = load().counters("contraindication", "GIT-RESET-HARD")
    assert (counts["suppressed"], counts["occurrences"], counts["interjections"]) == (2, 5, 3)
    assert "GIT-RESET-HARD" in host(bash_payload(RESET, session="q3"), HOOKMUX_SILENCE="off")


def test_acting_on_the_advice_keeps_it(host):
    for index in range(4):
        session = "good-%d" % index
        assert "GIT-RESET-HARD" in host(bash_payload(RESET, session=session))
        for command in ("git stash push --include-untracked", "git status", "git log -1"):
            host(bash_payload(command, session=session))
    assert [r["r"] for r in reactions(host.state)] == ["acted"] * 4


def test_no_session_id_means_no_silence_and_no_state(host):
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": RESET}})
    assert host(payload) and host(payload)
    assert not (host.state / "calibrated-silence").exists()


def test_a_broken_silence_ledger_still_advises(host):
    ignore_in_sessions(host, 3)
    path = host.state / "calibrated-silence" / "history.jsonl"
    path.unlink()
    path.mkdir()
    assert "GIT-RESET-HARD" in host(bash_payload(RESET, session="after"))
