"""Fuzz: arbitrary bytes, arbitrary JSON and mutated real payloads of both hosts, through
``dispatch.run()``, the dispatcher process and the gate process.

Holds for every example: no traceback, exit 0 (the gate: 2 only for its deliberate block),
stdout empty or exactly one JSON object of the documented shape, and the gate blocks nothing
but a Skill call naming an agent-only name. HOOKMUX_FUZZ_EXAMPLES=N sets every test's count.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import event as observe
from hypothesis import example, given
from hypothesis import strategies as st
from reliability_fuzzing import (
    agent_only, any_event, arbitrary_bytes, arbitrary_json, build_sandbox, classify_gate_output, dispatcher_event,
    fuzz_settings, gate_targets, must_emit, mutated_payload, skill_call, GATE_EVENTS,
)
from reliability_support import DISPATCH, GATE, assert_dispatcher_output, case, dispatch, hermetic_env, run_hook, write_json

RUN_SUITE = "Fuzz: dispatch.run()"
PROCESS_SUITE = "Fuzz: dispatcher process"
GATE_SUITE = "Fuzz: gate process"
IN_PROCESS_EXAMPLES = 300
PROCESS_EXAMPLES = 80


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    base = tmp_path_factory.mktemp("fuzz")
    root, manifest, skills = build_sandbox(base)
    # The pool off: these tests are about what the hooks do with any input. A call that met a pool
    # ended by the leak guard after the previous test once lost its advice ("worker ended",
    # .ci/run of 21784d5): the pool's own ground, issue 43, tested in tests/dispatch and tests/serve.
    env = hermetic_env(base, HOOKMUX_SKILLS_PATH=str(skills), HOOKMUX_WARM="0")
    saved = {key: os.environ.get(key) for key in ("HOME", "HOOKMUX_STATE_DIR", "XDG_STATE_HOME", "HOOKMUX_TRACE")}
    os.environ.update(HOME=env["HOME"], HOOKMUX_STATE_DIR=env["HOOKMUX_STATE_DIR"],
                      XDG_STATE_HOME=env["XDG_STATE_HOME"])
    os.environ.pop("HOOKMUX_TRACE", None)
    yield {"manifest": manifest, "manifest_path": write_json(base / "manifest.json", manifest), "env": env,
           "skills": skills}
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


# ------------------------------------------------------------------ dispatch.run()


def _check_run(sandbox, event, stdin_text):
    with case(RUN_SUITE):
        trace = []
        output = dispatch.run(event, stdin_text, manifest=sandbox["manifest"], trace=trace.append)
        expected, payload = dispatcher_event(event, stdin_text)
        context = assert_dispatcher_output(output, expected, payload)
        observe("emitted" if context else "silent")
        if must_emit(expected, payload):
            assert context is not None and "echo:" in context, (output, trace)
        assert not any("dispatcher error" in line for line in trace), trace


@fuzz_settings(IN_PROCESS_EXAMPLES)
@given(event=st.none() | any_event, stdin_text=st.text(max_size=3000))
# a Cursor-only event in argv with a payload of no host's keys was answered as Claude Code's
# PreToolUse (.ci/run of a12f81c): the event name alone says Cursor
@example(event="beforeShellExecution", stdin_text="{}")
def test_run_arbitrary_text(sandbox, event, stdin_text):
    _check_run(sandbox, event, stdin_text)


# A nested payload with turn_id reads as Codex's, which takes no context on PostToolBatch (CI, session 6).
CODEX_BATCH = ("PostToolBatch", b'{"turn_id": null}')


@fuzz_settings(IN_PROCESS_EXAMPLES)
@given(case_=arbitrary_json)
@example(case_=CODEX_BATCH)
def test_run_arbitrary_json(sandbox, case_):
    event, data = case_
    _check_run(sandbox, event, data.decode())


@fuzz_settings(IN_PROCESS_EXAMPLES)
@given(case_=mutated_payload())
def test_run_mutated_host_payloads(sandbox, case_):
    event, data = case_
    _check_run(sandbox, event, data.decode("utf-8", errors="replace"))


# ------------------------------------------------------------------ the dispatcher process


def _check_process(sandbox, event, data: bytes):
    with case(PROCESS_SUITE):
        args = ["--manifest", str(sandbox["manifest_path"]), "--trace"] + ([event] if event else [])
        result = run_hook(DISPATCH, args, data, sandbox["env"], timeout=60)
        assert result.returncode == 0, result
        assert b"Traceback" not in result.stderr
        expected, payload = dispatcher_event(event, data)
        context = assert_dispatcher_output(result.stdout, expected, payload)
        observe("emitted" if context else "silent")
        observe("contraindication advisory" if context and "contraindication advisory" in context else "no advisory")
        if must_emit(expected, payload):
            assert context is not None and "echo:" in context, result


@fuzz_settings(PROCESS_EXAMPLES)
@given(case_=arbitrary_bytes)
def test_process_arbitrary_bytes(sandbox, case_):
    _check_process(sandbox, *case_)


@fuzz_settings(PROCESS_EXAMPLES)
@given(case_=arbitrary_json)
@example(case_=CODEX_BATCH)
def test_process_arbitrary_json(sandbox, case_):
    _check_process(sandbox, *case_)


@fuzz_settings(PROCESS_EXAMPLES)
@given(case_=mutated_payload())
def test_process_mutated_host_payloads(sandbox, case_):
    _check_process(sandbox, *case_)


# ------------------------------------------------------------------ the gate process


def _run_gate(sandbox, event, data: bytes):
    result = run_hook(GATE, [event] if event else [], data, sandbox["env"], timeout=60)
    return classify_gate_output(result.returncode, result.stdout, result.stderr)


def _check_gate(sandbox, event, data: bytes):
    with case(GATE_SUITE):
        outcome, text = _run_gate(sandbox, event, data)
        observe(f"gate: {outcome}")
        if outcome != "pass":
            targets = gate_targets(data)
            assert targets, (outcome, text, data[:500])
            assert any(f'"{name}" is an agent, not a skill' in text or f'"{name}" is a skill, not an agent' in text
                       for name in targets), text


@fuzz_settings(PROCESS_EXAMPLES)
@given(event=st.sampled_from(GATE_EVENTS), data=st.binary(max_size=3000))
def test_gate_arbitrary_bytes(sandbox, event, data):
    _check_gate(sandbox, event, data)


@fuzz_settings(PROCESS_EXAMPLES)
@given(event=st.sampled_from(GATE_EVENTS), case_=arbitrary_json)
def test_gate_arbitrary_json(sandbox, event, case_):
    _check_gate(sandbox, event, case_[1])


@fuzz_settings(PROCESS_EXAMPLES)
@given(case_=mutated_payload())
def test_gate_mutated_host_payloads(sandbox, case_):
    _check_gate(sandbox, *case_)


@fuzz_settings(PROCESS_EXAMPLES)
@given(case_=skill_call())
def test_gate_blocks_exactly_the_agent_only_skill_calls(sandbox, case_):
    """The other direction: a well-formed Skill call is blocked if and only if it names an agent-only name."""
    event, data, name, host = case_
    with case(GATE_SUITE):
        outcome, text = _run_gate(sandbox, event, data)
        observe(f"gate: {outcome}")
        if host and agent_only(name, host):
            assert outcome == ("context" if event == "PostToolBatch" else "deny"), (outcome, data)
            assert f'"{name}" is an agent, not a skill' in text
        else:
            assert outcome == "pass", (outcome, text, data)


# ------------------------------------------------------------------ the shell reader (issue 26)

SHELL_SUITE = "Fuzz: shell reader and advisory"
SHELL_EXAMPLES = 300
SHELL_PIECES = st.lists(st.sampled_from(
    list(" \t\n;&|()<>{}'\"\\$`#~*") + ["$(", "$((", "${", "<<EOF\n", "\nEOF\n", "<<<", "<(", "sh -c ", "eval ",
                                       "sudo ", "xargs ", "find . -exec ", "python3 -c ", "rm -rf /", "git push -f",
                                       "git reset --hard", "\\\n", "$'\\x41'", "\0", "ü", "echo "]),
    max_size=120).map("".join)


def _reader():
    import sys as _sys

    from hookmux_testing import HOOKS as _hooks

    if str(_hooks) not in _sys.path:
        _sys.path.insert(0, str(_hooks))
    from _common import shell as reader

    return reader


def _advisory_check():
    from contraindication_support import load_check_for_fuzz

    return load_check_for_fuzz()


@fuzz_settings(SHELL_EXAMPLES)
@given(text=st.one_of(st.text(max_size=2000), SHELL_PIECES))
def test_shell_reader_is_total(text):
    """The reader returns Commands for anything, and the advisory's matcher then never raises."""
    with case(SHELL_SUITE):
        reader = _reader()
        commands = reader.read(text)
        assert isinstance(commands, list) and all(isinstance(c, reader.Command) for c in commands)
        check = _advisory_check()
        matched = check.matching_call_rows(check.load_rows(), "Bash", {"command": text}, "/home/user/project")
        assert all(isinstance(row["id"], str) for row in matched)
        observe("advised" if matched else "quiet")
