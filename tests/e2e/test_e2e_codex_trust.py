"""Codex CLI runs a hook only once its definition is trusted; hookmux trusts through the app-server.

A bare ``hooks.json`` (no hookmux install) pins down the host's behaviour the installer relies on.
"""
from __future__ import annotations

import json
import shlex

import pytest

from e2e_codex_server import shell
from e2e_fixtures import codex_cli, codex_sandbox, hookmux_installer  # noqa: F401 (pytest fixtures)
from hookmux.installer import codex_trust

MARK = "bare-hook-context-4711"


def _bare_hook(sandbox) -> str:
    """A PreToolUse hook on Bash that records its payload and adds context; returns the command."""
    record = sandbox.root / "payload.json"
    output = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": MARK}})
    command = f"cat > {shlex.quote(str(record))}; printf '%s' {shlex.quote(output)}"
    sandbox.hooks_file.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command, "timeout": 10}]}]}}))
    return command


def _ran(sandbox) -> dict | None:
    record = sandbox.root / "payload.json"
    return json.loads(record.read_text()) if record.exists() else None


def test_an_untrusted_hook_is_skipped_silently(codex_cli, codex_sandbox):
    _bare_hook(codex_sandbox)
    run = codex_sandbox.codex(codex_cli, [shell("echo hi")])

    assert run.proc.returncode == 0, run.proc.stderr
    assert _ran(codex_sandbox) is None
    assert MARK not in json.dumps(run.requests[-1])
    assert "hi" in run.after(0).output


def test_bypass_flag_runs_it_and_the_payload_is_claude_shaped(codex_cli, codex_sandbox):
    _bare_hook(codex_sandbox)
    run = codex_sandbox.codex(codex_cli, [shell("echo hi")], "--dangerously-bypass-hook-trust")

    payload = _ran(codex_sandbox)
    assert payload is not None, run.proc.stdout
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_name"] == "Bash" and payload["tool_input"] == {"command": "echo hi"}
    assert payload["tool_use_id"] == run.call_ids[0]
    assert run.after(0).developer == [MARK]


def test_trusted_through_the_app_server_it_runs_without_the_flag(codex_cli, codex_sandbox):
    command = _bare_hook(codex_sandbox)
    report = codex_trust.trust_own(str(codex_cli.path), codex_sandbox.codex_home, codex_sandbox.hooks_file,
                                   lambda c: c == command)
    assert report.trusted == [f"{codex_sandbox.hooks_file}:pre_tool_use:0:0"]
    assert 'trusted_hash = "sha256:' in codex_sandbox.config.read_text()

    run = codex_sandbox.codex(codex_cli, [shell("echo hi")])
    assert _ran(codex_sandbox) is not None
    assert run.after(0).developer == [MARK]

    again = codex_trust.trust_own(str(codex_cli.path), codex_sandbox.codex_home, codex_sandbox.hooks_file,
                                  lambda c: c == command)
    assert again.trusted == [] and again.kept == report.trusted


def test_a_changed_command_line_loses_trust_and_a_forgotten_record_is_gone(codex_cli, codex_sandbox):
    command = _bare_hook(codex_sandbox)
    binary = str(codex_cli.path)
    codex_trust.trust_own(binary, codex_sandbox.codex_home, codex_sandbox.hooks_file, lambda c: True)
    data = json.loads(codex_sandbox.hooks_file.read_text())
    data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = command + " "
    codex_sandbox.hooks_file.write_text(json.dumps(data))

    state = codex_trust.trust_state(binary, codex_sandbox.codex_home, codex_sandbox.hooks_file)
    assert [(h.command, h.trust_status) for h in state] == [(command + " ", "modified")]

    codex_sandbox.hooks_file.write_text(json.dumps({"hooks": {}}))
    report = codex_trust.forget_own(binary, codex_sandbox.codex_home, codex_sandbox.hooks_file)
    assert report.forgotten == [f"{codex_sandbox.hooks_file}:pre_tool_use:0:0"]
    assert "trusted_hash" not in codex_sandbox.config.read_text()


def test_a_missing_codex_binary_is_a_clean_error(tmp_path):
    with pytest.raises(codex_trust.CodexTrustError, match="not an executable file"):
        codex_trust.find_codex(tmp_path / "no-codex")
