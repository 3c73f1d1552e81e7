"""Reactions hookmux records itself, through the dispatcher and the shipped manifest, as a host runs it."""
from __future__ import annotations

import json

import pytest
from hookmux_testing import DISPATCH, HOOKS, REPO, hermetic_env, run_hook
from silence_support import FOLDER, REACTIONS, bash_payload, load, prompt_payload, reactions

FORCE_PUSH = "git push --force origin main"
RESET = "git reset --hard HEAD~1"


@pytest.fixture
def host(tmp_path):
    env = hermetic_env(tmp_path)
    state = tmp_path / "state"

    def call(event, payload, **extra):
        result = run_hook(DISPATCH, ["--hooks-root", str(HOOKS), event], payload, {**env, **extra})
        assert result.returncode == 0 and result.stderr == b""
        return result.stdout.decode()

    call.state = state
    call.env = env
    return call


def test_repeating_the_hazard_after_the_advisory_is_ignored(host):
    assert "GIT-RESET-HARD" in host("PreToolUse", bash_payload(RESET))
    assert host("PreToolUse", bash_payload("git reset --hard origin/main")) == ""
    assert [(r["key"], r["r"]) for r in reactions(host.state)] == [("GIT-RESET-HARD", "ignored")]
    host("PreToolUse", bash_payload(RESET + " "))
    assert len(reactions(host.state)) == 1  # one reaction per advisory


def test_the_call_that_showed_the_advisory_and_its_replay_are_not_a_repeat(host):
    payload = bash_payload(RESET)
    assert host("PreToolUse", payload)
    assert host("PreToolUse", payload) == ""  # the very same event again
    assert reactions(host.state) == []


def test_three_distinct_calls_without_the_hazard_is_acted(host):
    assert host("PreToolUse", bash_payload(FORCE_PUSH))
    host("PreToolUse", bash_payload("git fetch origin"))
    host("PreToolUse", bash_payload("git fetch origin"))  # a replay is not a new call
    host("PreToolUse", bash_payload("git push --force-with-lease origin main"))
    assert reactions(host.state) == []  # ACTED_AFTER - 1
    host("PreToolUse", bash_payload("git log -1"))
    assert [(r["key"], r["r"]) for r in reactions(host.state)] == [("GIT-FORCE-PUSH-MAIN", "acted")]
    host("PreToolUse", bash_payload(FORCE_PUSH))
    assert len(reactions(host.state)) == 1  # decided: a later repeat changes nothing


def test_acted_after_is_tunable(host):
    assert host("PreToolUse", bash_payload(FORCE_PUSH), HOOKMUX_SILENCE_ACTED_AFTER="1")
    host("PreToolUse", bash_payload("ls"), HOOKMUX_SILENCE_ACTED_AFTER="1")
    assert [r["r"] for r in reactions(host.state)] == ["acted"]


def test_other_sessions_do_not_react(host):
    assert host("PreToolUse", bash_payload(RESET, session="a"))
    assert host("PreToolUse", bash_payload(RESET, session="b"))  # new session: cold start shows it
    for command in ("ls", "pwd", "id"):
        host("PreToolUse", bash_payload(command, session="c"))
    assert reactions(host.state) == []


def test_no_reaction_after_the_pending_time_is_unknown(host):
    assert host("PreToolUse", bash_payload(RESET))
    (pending,) = (host.state / "calibrated-silence").glob("pending-*.json")
    data = json.loads(pending.read_text())
    for entry in data["entries"].values():
        entry["t"] -= 3601
    pending.write_text(json.dumps(data))
    host("PreToolUse", bash_payload(RESET + " --quiet"))
    assert [r["r"] for r in reactions(host.state)] == ["unknown"]


def test_a_prompt_to_stop_the_warnings_after_an_advisory_is_annoyed(host):
    assert host("PreToolUse", bash_payload(RESET))
    assert host("UserPromptSubmit", prompt_payload("Please stop these warnings, I know what I am doing")) == ""
    host("UserPromptSubmit", prompt_payload("no more warnings!"))
    assert [(r["key"], r["r"]) for r in reactions(host.state)] == [("*", "annoyed")]


def test_a_prompt_without_an_advisory_in_the_session_is_nothing(host):
    assert host("PreToolUse", bash_payload(RESET, session="other"))
    host("UserPromptSubmit", prompt_payload("stop the warnings", session="quiet"))
    host("UserPromptSubmit", prompt_payload("stop the warnings", session="no-state-at-all"))
    assert reactions(host.state) == []


def test_copilot_payloads_react_too(host):
    def copilot(command, session="cp"):
        return json.dumps({"sessionId": session, "timestamp": 1, "cwd": "/tmp", "toolName": "bash",
                           "toolArgs": json.dumps({"command": command})})

    assert host("preToolUse", copilot(RESET))
    host("preToolUse", copilot("git reset --hard origin/main"))
    host("userPromptSubmitted", json.dumps({"sessionId": "cp", "prompt": "enough with the advisories"}))
    assert sorted(r["r"] for r in reactions(host.state)) == ["annoyed", "ignored"]


ANNOYED = [
    "stop the warnings", "Please stop warning me about git", "no more warnings please",
    "don't warn me about that again", "Shut up about the advisories", "turn off the hookmux advisory",
    "Enough with the nagging.", "disable these contraindication warnings", "STOP WARNING ME",
]
NOT_ANNOYED = [
    "fix the compiler warnings", "don't ignore the warnings", "stop the build warnings from showing",
    "what does this warning mean?", "warnings are fine; stop the server", "never miss a warning",
    "silence the eslint warnings in src/", "stop. Then read the warnings file", "add a warning to the docs",
    "do not skip the warnings", "the test warnings should stop",
]


@pytest.mark.parametrize("prompt", ANNOYED)
def test_annoyed_prompts(prompt):
    assert load(REACTIONS, "hookmux_test_reactions").is_annoyed(prompt)


@pytest.mark.parametrize("prompt", NOT_ANNOYED)
def test_prompts_that_are_not_annoyed(prompt):
    assert not load(REACTIONS, "hookmux_test_reactions").is_annoyed(prompt)


def test_the_script_alone_is_silent_and_fails_open(tmp_path):
    env = hermetic_env(tmp_path)
    for stdin in (b"", b"not json", b"[]", b'{"session_id": 5}', bash_payload(RESET).encode(), b"\xff\xfe"):
        for args in ([], ["PreToolUse"], ["UserPromptSubmit"]):
            result = run_hook(REACTIONS, args, stdin, env)
            assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert not (tmp_path / "state").exists()  # nothing pending: nothing written


def test_shipped_rows_are_reachable_and_emit_nothing():
    import subprocess
    import sys

    manifest = json.loads((HOOKS / "_dispatch" / "manifest.json").read_text())
    rows = [(event, row) for event, spec in manifest["events"].items() for row in spec["checks"]
            if row["script"] == "calibrated-silence/reactions.py"]
    assert [(event, row["args"], row.get("matcher")) for event, row in rows] == [
        ("PreToolUse", ["PreToolUse"], "^(Bash|PowerShell)$"), ("UserPromptSubmit", ["UserPromptSubmit"], None)]
    assert all(row["emits"] is False and row["side_effect"] == "reaction-ledger" for _, row in rows)
    assert (FOLDER / "reactions.py").is_file()
    result = subprocess.run([sys.executable, "-m", "hookmux.cli", "validate"], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0 and "0 warning" in result.stdout, result
