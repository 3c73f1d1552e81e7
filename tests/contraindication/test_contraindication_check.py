"""The contraindication check as a host runs it: `python -S check.py < payload`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from hookmux_testing import HOOKS, PYTHON, REPO, hermetic_env, one_json_line, run_hook
from contraindication_cases import CHECK, claude_payload, copilot_payload

sys.path.insert(0, str(HOOKS))
import _common  # noqa: E402

FORCE_PUSH = "git push --force origin main"
RESET = "git reset --hard HEAD~1"


def run(payload, env, *args):
    result = run_hook(CHECK, ["PreToolUse", *args], payload, env)
    assert result.returncode == 0
    assert result.stderr == b""
    return result.stdout


def context_of(stdout):
    line = one_json_line(stdout)
    if "hookSpecificOutput" in line:
        assert line["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
        return line["hookSpecificOutput"]["additionalContext"]
    return line["additionalContext"]


def seen_file(env, session):
    old = os.environ.get("HOOKMUX_STATE_DIR")
    os.environ["HOOKMUX_STATE_DIR"] = env["HOOKMUX_STATE_DIR"]
    try:
        return _common.session_file("contraindication", session)
    finally:
        if old is None:
            del os.environ["HOOKMUX_STATE_DIR"]
        else:
            os.environ["HOOKMUX_STATE_DIR"] = old


def test_example_payload_emits_force_push_advisory(env):
    stdout = run((REPO / "examples" / "pretooluse-bash-force-push.json").read_bytes(), env)
    assert "GIT-FORCE-PUSH-MAIN" in context_of(stdout)


def test_same_event_twice_emits_once(env):
    payload = claude_payload(FORCE_PUSH)
    assert "GIT-FORCE-PUSH-MAIN" in context_of(run(payload, env))
    assert run(payload, env) == b""


def test_seen_row_id_dedupes_a_different_command(env):
    assert run(claude_payload(RESET), env)
    assert run(claude_payload("git reset --hard origin/main"), env) == b""


def test_new_row_id_bypasses_dedupe_and_lists_every_match(env):
    assert run(claude_payload(FORCE_PUSH), env)
    context = context_of(run(claude_payload(f"{RESET} && {FORCE_PUSH}"), env))
    assert "GIT-RESET-HARD" in context and "GIT-FORCE-PUSH-MAIN" in context
    assert run(claude_payload(FORCE_PUSH), env) == b""
    assert run(claude_payload(RESET), env) == b""


def test_sessions_are_independent(env):
    assert run(claude_payload(FORCE_PUSH, session="a"), env)
    assert run(claude_payload(FORCE_PUSH, session="b"), env)
    assert run(claude_payload(FORCE_PUSH, session="a"), env) == b""


def test_ttl_expiry_emits_again(env):
    payload = claude_payload(FORCE_PUSH)
    assert run(payload, env)
    path = seen_file(env, "session-1")
    data = json.loads(open(path).read())
    data["seen"]["GIT-FORCE-PUSH-MAIN"] -= 3601
    open(path, "w").write(json.dumps(data))
    assert run(payload, env)
    assert run(payload, env) == b""


def test_ttl_from_environment(tmp_path):
    env = hermetic_env(tmp_path, HOOKMUX_CONTRA_TTL="0")
    payload = claude_payload(FORCE_PUSH)
    assert run(payload, env) and run(payload, env)
    for bad in ("", "soon", "nan"):
        env["HOOKMUX_CONTRA_TTL"] = bad
        payload = claude_payload(FORCE_PUSH, session=f"ttl-{bad}")
        assert run(payload, env) and run(payload, env) == b"", bad  # falls back to one hour


def test_corrupt_state_counts_as_empty_and_is_repaired(env):
    path = seen_file(env, "session-1")
    os.makedirs(os.path.dirname(path))
    open(path, "wb").write(b'{"seen": {"GIT-FORCE-PUSH-MAIN": ')
    assert run(claude_payload(FORCE_PUSH), env)
    assert set(json.loads(open(path).read())["seen"]) == {"GIT-FORCE-PUSH-MAIN"}
    assert run(claude_payload(FORCE_PUSH), env) == b""


def test_unwritable_state_still_advises(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    env = hermetic_env(tmp_path, HOOKMUX_STATE_DIR=str(blocker))
    assert run(claude_payload(FORCE_PUSH), env)
    assert blocker.read_text() == "x"


def test_missing_session_id_advises_every_time_without_state(env):
    payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": FORCE_PUSH}})
    assert run(payload, env) and run(payload, env)
    assert not os.path.exists(env["HOOKMUX_STATE_DIR"])


@pytest.mark.parametrize("args_as_string", [False, True])
def test_copilot_payload_gets_flat_context_and_dedupes(env, args_as_string):
    payload = copilot_payload(FORCE_PUSH, session="copilot-1", args_as_string=args_as_string)
    line = one_json_line(run(payload, env))
    assert set(line) == {"additionalContext"}
    assert "GIT-FORCE-PUSH-MAIN" in line["additionalContext"]
    assert run(payload, env) == b""


def test_claude_format_payload_from_copilot_lower_case_tool(env):
    payload = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "timestamp": "2026-11-30T00:00:00Z",
                          "cwd": "/tmp", "tool_name": "bash", "tool_input": {"command": RESET}})
    assert "GIT-RESET-HARD" in context_of(run(payload, env))


@pytest.mark.parametrize(
    "payload",
    [
        claude_payload(FORCE_PUSH, event="PostToolUse"),
        claude_payload(FORCE_PUSH, tool="Write"),
        json.dumps({"sessionId": "s", "toolName": "bash", "toolArgs": {"command": FORCE_PUSH},
                    "toolResult": {"resultType": "success"}}),
        json.dumps({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls -la"}}),
    ],
    ids=["post-tool-use", "other-tool", "copilot-post-tool-use", "harmless"],
)
def test_silent_cases(env, payload):
    assert run(payload, env) == b""
    assert not os.path.exists(env["HOOKMUX_STATE_DIR"])


@pytest.mark.parametrize(
    "stdin",
    [b"", b"not json", b"[]", b"null", b'"text"', b"\xff\xfe\x00", b'{"tool_name": 5, "tool_input": []}',
     b'{"tool_name": "Bash", "tool_input": "git push --force origin main'],
)
def test_malformed_stdin_fails_open_silently(env, stdin):
    assert run(stdin, env) == b""


@pytest.mark.parametrize(
    "registry",
    [None, b"", b"{not json", b"[]", b'{"rows": {}}', b'{"version": 1, "rows": [1, null, "x"]}'],
    ids=["missing", "empty", "invalid", "list", "rows-not-list", "rows-not-objects"],
)
def test_corrupt_registry_fails_open_silently(env, tmp_path, registry):
    path = tmp_path / "registry.json"
    if registry is not None:
        path.write_bytes(registry)
    assert run(claude_payload(FORCE_PUSH), env, "--registry", str(path)) == b""


def test_malformed_rows_are_skipped_and_good_rows_still_match(env, tmp_path):
    good = {"id": "GOOD-1", "tool_pattern": "Bash", "input_pattern": r"\bdanger\b", "harm": "H.", "safe_alternative": "A."}
    rows = [
        dict(good, id="BAD-REGEX", input_pattern="(unclosed"),
        dict(good, id="BAD-TOOL-REGEX", tool_pattern="[Bash"),
        {k: v for k, v in good.items() if k != "harm"} | {"id": "NO-HARM"},
        dict(good, id="lower-case id"),
        dict(good, id="NEEDS-BG", require_bg_active=True),
        good,
        dict(good, harm="Duplicate id: only the first row counts."),
        dict(good, id="DUP-2", input_pattern="never-matches-this"),
        dict(good, id="DUP-2", harm="Second DUP-2 is ignored."),
    ]
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"version": 1, "rows": rows}))
    context = context_of(run(claude_payload("run danger now"), env, "--registry", str(path)))
    assert "GOOD-1" in context and "H. Safer: A." in context
    for skipped in ("BAD-REGEX", "BAD-TOOL-REGEX", "NO-HARM", "lower-case id", "NEEDS-BG", "Duplicate id", "DUP-2"):
        assert skipped not in context


def test_no_secret_or_raw_command_in_state_or_output(env):
    token = "ghp_" + "Z9" * 18
    session = "session-with-secret-sk-" + "q" * 24
    command = f"git push --force https://user:{token}@github.com/acme/app.git main && PASSWORD=hunter2 git reset --hard"
    stdout = run(claude_payload(command, session=session), env)
    assert stdout
    leaks = [token, "hunter2", command, session, "acme/app", "--force https"]
    for leak in leaks:
        assert leak not in stdout.decode()
    files = [os.path.join(d, f) for d, _, fs in os.walk(env["HOOKMUX_STATE_DIR"]) for f in fs]
    assert files
    for path in files:
        text = open(path, "rb").read().decode()
        for leak in leaks:
            assert leak not in path and leak not in text
        if path.endswith(".json") and os.path.basename(path).startswith("seen-"):
            assert set(json.loads(text)["seen"]) == {"GIT-FORCE-PUSH-MAIN", "GIT-RESET-HARD"}


def test_command_is_not_echoed(env):
    context = context_of(run(claude_payload("git push --force origin main # marker-7f3a9"), env))
    assert "marker-7f3a9" not in context and "origin main #" not in context


def test_registry_text_is_redacted_and_bounded(env, tmp_path):
    row = {"id": "R0", "tool_pattern": "Bash", "input_pattern": "danger",
           "harm": "Leaks sk-" + "a" * 30 + " from /home/alice/x. " + "h" * 800, "safe_alternative": "Use B."}
    rows = [dict(row, id=f"R{i}") for i in range(40)]
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"version": 1, "rows": rows}))
    context = context_of(run(claude_payload("danger"), env, "--registry", str(path)))
    assert len(context) <= 4000
    assert "sk-aaaa" not in context and "/home/alice" not in context
    assert context.startswith("hookmux contraindication advisory") and "R39" in context.splitlines()[0]


def test_thirty_two_standalone_processes_emit_exactly_once(env):
    payload = claude_payload(FORCE_PUSH, session="race").encode()
    procs = [
        subprocess.Popen([PYTHON, "-S", str(CHECK), "PreToolUse"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        for _ in range(32)
    ]
    outputs = [proc.communicate(payload, timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * 32
    assert [err for _, err in outputs] == [b""] * 32
    assert sum(1 for out, _ in outputs if out) == 1
    data = json.loads(open(seen_file(env, "race")).read())
    assert set(data["seen"]) == {"GIT-FORCE-PUSH-MAIN"}


HEREDOC = "cat > notes.md <<'EOF'\n" + "Use git push and git reset with rm -r and curl.\n" * 2000 + "EOF"


@pytest.mark.parametrize(
    "command",
    [HEREDOC, 'echo "' + "git commit " * 20000 + '"', "git " * 300000, "rm -r " * 50000],
    ids=["heredoc-100KB", "quoted-200KB", "one-line-1MB", "rm-300KB"],
)
def test_large_commands_finish_silently(env, command):
    # The patterns' scans are bounded and only the first 100,000 serialized characters
    # are searched; the subprocess timeout is a liveness bound, not a speed assertion.
    result = run_hook(CHECK, ["PreToolUse"], claude_payload(command), env, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_hazard_before_a_large_heredoc_is_found(env):
    assert "GIT-RESET-HARD" in context_of(run(claude_payload("git reset --hard && " + HEREDOC), env))


def test_copilot_example_payload(env):
    stdout = run((REPO / "examples" / "copilot-pretooluse-bash-reset-clean.json").read_bytes(), env)
    line = one_json_line(stdout)
    assert set(line) == {"additionalContext"}
    assert "GIT-RESET-HARD, GIT-CLEAN-IGNORED" in line["additionalContext"]
