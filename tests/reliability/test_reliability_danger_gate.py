"""The danger gate under fuzz, hostile payloads and a hostile environment: it exits 0, writes
nothing to stderr, prints nothing or one deny of the host's shape, and denies only a well-formed
shell call whose command reaches something protected. Commands are data: nothing runs them.
"""
from __future__ import annotations

import json
import os
import tempfile

import pytest
from hypothesis import event as observe
from hypothesis import given
from hypothesis import strategies as st
from reliability_fuzzing import arbitrary_bytes, arbitrary_json, classify_gate_output, fuzz_settings, mutated_payload
from reliability_support import case, hermetic_env, run_hook

from hookmux_testing import HOOKS

GATE = HOOKS / "danger-gate" / "danger_gate.py"
SUITE = "Fuzz: danger gate process"
HOSTILE_SUITE = "Hostile: danger gate"
EXAMPLES = 60
EVENTS = st.sampled_from((["PreToolUse"], ["preToolUse"], ["--host", "codex", "PreToolUse"], []))
HAZARDS = ("rm -rf ~/Documents", "rm -rf ~", "rm -rf /", "dd if=/dev/zero of=/dev/sda", "git reset --hard")
WORDS = st.sampled_from(("rm", "-rf", "-r", "~", "~/Documents", "/", "/etc", "git", "reset", "--hard", "dd",
                         "of=/dev/sda", ";", "&&", "|", "'", '"', "$(", ")", "`", "\\", "\n", "$HOME", "*", "..",
                         "find", "-delete", "echo", "sudo", "sh -c", "\x00", "é", "$'\\x72m'"))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    base = tmp_path_factory.mktemp("danger-fuzz")
    env = hermetic_env(base, GIT_CONFIG_NOSYSTEM="1")
    assert env["HOME"].startswith(tempfile.gettempdir()) and env["HOME"] != os.path.expanduser("~")
    os.makedirs(os.path.join(env["HOME"], "Documents"), exist_ok=True)
    return {"env": env, "cwd": str(base)}


def _well_formed_shell_call(data: bytes) -> bool:
    """What a deny needs: a JSON object naming a shell tool, a command string, an absolute cwd."""
    try:
        payload = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False
    if not isinstance(payload, dict) or not isinstance(payload.get("cwd"), str) or not payload["cwd"].startswith("/"):
        return False
    tool = payload.get("tool_name", payload.get("toolName"))
    args = payload.get("tool_input", payload.get("toolArgs"))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return False
    return tool in ("Bash", "bash", "run_shell_command") and isinstance(args, dict) and isinstance(args.get("command"), str)


def _check(world, args, data: bytes):
    with case(SUITE):
        result = run_hook(GATE, args, data, world["env"], timeout=60)
        assert result.returncode == 0 and result.stderr == b"", result
        outcome, _ = classify_gate_output(result.returncode, result.stdout, result.stderr)
        observe(f"danger gate: {outcome}")
        assert outcome in ("pass", "deny")
        if outcome == "deny":
            assert _well_formed_shell_call(data), data[:300]


@fuzz_settings(EXAMPLES)
@given(args=EVENTS, case_=arbitrary_bytes)
def test_arbitrary_bytes(world, args, case_):
    _check(world, args, case_[1])


@fuzz_settings(EXAMPLES)
@given(args=EVENTS, case_=arbitrary_json)
def test_arbitrary_json(world, args, case_):
    _check(world, args, case_[1])


@fuzz_settings(EXAMPLES)
@given(args=EVENTS, case_=mutated_payload())
def test_mutated_host_payloads(world, args, case_):
    _check(world, args, case_[1])


@fuzz_settings(EXAMPLES)
@given(args=EVENTS, words=st.lists(WORDS, max_size=12), form=st.sampled_from(("claude", "copilot", "truncated")))
def test_shell_like_commands_in_real_payloads(world, args, words, form):
    command = " ".join(words)
    if form == "copilot":
        data = json.dumps({"sessionId": "s", "timestamp": 1, "cwd": world["cwd"], "toolName": "bash",
                           "toolArgs": {"command": command}}).encode()
    else:
        data = json.dumps({"session_id": "s", "cwd": world["cwd"], "hook_event_name": "PreToolUse",
                           "tool_name": "Bash", "tool_input": {"command": command}}).encode()
        if form == "truncated":
            data = data[:-1]
    _check(world, args, data)


# ------------------------------------------------------------------ a hostile environment

SCENARIOS = {
    "HOME unset": lambda env, tmp: env.pop("HOME"),
    "HOME is /": lambda env, tmp: env.update(HOME="/"),
    "PATH empty": lambda env, tmp: env.update(PATH=""),
    "state folder is a file": lambda env, tmp: (tmp / "statefile").write_text("x") or env.update(
        HOOKMUX_STATE_DIR=str(tmp / "statefile")),
    "XDG_CONFIG_HOME holds a broken registry": lambda env, tmp: (
        (tmp / "xdg" / "hookmux").mkdir(parents=True), (tmp / "xdg" / "hookmux" / "dangers.json").write_text("{["),
        env.update(XDG_CONFIG_HOME=str(tmp / "xdg"))),
    "a registry row with a judge that crashes on its input": lambda env, tmp: (
        (tmp / "xdg" / "hookmux").mkdir(parents=True),
        (tmp / "xdg" / "hookmux" / "dangers.json").write_text(json.dumps({"rows": [
            {"id": "X", "program": "rm", "flags": [[None]], "loses": "paths", "harm": "h", "safe_alternative": "s"}]})),
        env.update(XDG_CONFIG_HOME=str(tmp / "xdg"))),
    "PYTHONPATH with a json.py that writes": lambda env, tmp: (
        (tmp / "evil").mkdir(), (tmp / "evil" / "json.py").write_text("print('EVIL')\n"),
        env.update(PYTHONPATH=str(tmp / "evil"))),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("command", HAZARDS + ("ls -la",))
def test_a_hostile_environment_never_breaks_the_call(tmp_path, scenario, command):
    env = hermetic_env(tmp_path)
    SCENARIOS[scenario](env, tmp_path)
    data = json.dumps({"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": command}})
    with case(HOSTILE_SUITE):
        result = run_hook(GATE, ["PreToolUse"], data, env)
        assert result.returncode == 0 and result.stderr == b"", (scenario, result)
        assert b"EVIL" not in result.stdout
        outcome, _ = classify_gate_output(result.returncode, result.stdout, result.stderr)
        if command == "ls -la":
            assert outcome == "pass"
