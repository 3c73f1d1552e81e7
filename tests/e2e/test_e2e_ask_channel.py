"""Issue 38 item 4, measured: where Claude Code's PreToolUse ``permissionDecision: "ask"`` reaches a
person and keeps the command from running without them (docs/e2e.md, "Claude Code:
permissionDecision ask, by mode").

A hand-written PreToolUse hook (a Python script in the test's tmp folder, wired in the tmp HOME's
settings) dumps its stdin and answers ``ask``; the stand-in model asks for one Bash call of
``touch MARKER`` inside the test's tmp folder (harmless; nothing else is ever run). Per headless
mode the test records whether the marker was created, what the model got back as the tool result
and the payload's ``permission_mode``; a control run without the hook shows what the mode alone
does. Measurement only: nothing of hookmux is installed or changed here.
"""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from e2e_fixtures import claude_cli, hookmux_installer, sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import FINAL_TEXT, ToolUse
from e2e_support import after_tool

REASON = "e2e ask channel: a person must approve this"

HOOK = """\
import json, os, sys
payload = json.load(sys.stdin)
env = {{k: v for k, v in os.environ.items() if k.startswith(("CLAUDE", "IS_SANDBOX"))}}
with open({dump!r}, "a") as f:
    f.write(json.dumps({{"payload": payload, "env": env}}) + "\\n")
print(json.dumps({{"hookSpecificOutput": {{"hookEventName": "PreToolUse", "permissionDecision": "ask",
                   "permissionDecisionReason": {reason!r}}}}}))
"""

#: headless flags -> the payload's ``permission_mode`` measured (2.1.332). ``--allowedTools Bash``
#: leaves it ``default``: the payload cannot tell the user allowed the shell.
MODES = {
    "default": ((), "default"),
    "acceptEdits": (("--permission-mode", "acceptEdits"), "acceptEdits"),
    "bypassPermissions": (("--permission-mode", "bypassPermissions"), "bypassPermissions"),
    "skip-permissions": (("--dangerously-skip-permissions",), "bypassPermissions"),
    "allowedTools-Bash": (("--allowedTools", "Bash"), "default"),
    "plan": (("--permission-mode", "plan"), "plan"),
    "dontAsk": (("--permission-mode", "dontAsk"), "dontAsk"),
}

#: The same call without the hook: (marker created, exit code, start of the tool result).
CONTROL = {
    "default": (False, 0, "touch in '"),  # "... needs approval. The path is inside the working directories"
    "acceptEdits": (True, 0, "(Bash completed with no output)"),
    "bypassPermissions": (True, 0, "(Bash completed with no output)"),
    "skip-permissions": (True, 0, "(Bash completed with no output)"),
    "allowedTools-Bash": (True, 0, "(Bash completed with no output)"),
    "plan": (False, 1, "Auto mode is unavailable: its safety check does not run"),  # a loopback model has no classifier
    "dontAsk": (False, 0, "Permission to use Bash has been denied because Claude Code is running in don't ask mode"),
}


def _wire_ask_hook(sandbox) -> Path:
    """The ask hook in the tmp HOME's user settings; returns the file its payloads go to."""
    dump = sandbox.root / "payloads.jsonl"
    script = sandbox.root / "ask_hook.py"
    script.write_text(HOOK.format(dump=str(dump), reason=REASON))
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    sandbox.user_settings.parent.mkdir(parents=True, exist_ok=True)
    sandbox.user_settings.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}}))
    return dump


def _marker(sandbox) -> Path:
    """MARKER in the test's project folder (cwd of the run, under tmp_path), absent before."""
    marker = sandbox.project / "MARKER"
    assert sandbox.home.is_relative_to(sandbox.root) and marker.parent == sandbox.project and not marker.exists()
    return marker


def _env_for(args) -> dict[str, str]:
    """Claude Code refuses the bypass modes as root unless IS_SANDBOX=1 says it is a sandbox."""
    bypass = "bypassPermissions" in args or "--dangerously-skip-permissions" in args
    return {"IS_SANDBOX": "1"} if bypass and os.getuid() == 0 else {}


def _run_headless(claude_cli, sandbox, args, hooked=True):
    marker = _marker(sandbox)
    dump = _wire_ask_hook(sandbox) if hooked else None
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": "touch MARKER"})], *args, extra_env=_env_for(args))
    seen = run.after(0)
    return run, marker.exists(), seen, (_hooked(dump) if dump else [])


def _hooked(dump: Path) -> list[dict]:
    return [json.loads(line) for line in dump.read_text().splitlines()] if dump.exists() else []


@pytest.mark.parametrize("mode", list(MODES))
def test_headless_ask_is_a_deny_in_every_mode(claude_cli, sandbox, mode):
    """``-p``: no person is asked; the ask is a deny, its reason the model's tool result, even
    where the same call runs without the hook. Hooks see CLAUDE_CODE_SESSION_ATTENDED=0."""
    args, payload_mode = MODES[mode]
    run, ran, seen, hooked = _run_headless(claude_cli, sandbox, args)
    assert run.proc.returncode == 0, run.proc.stderr
    assert not ran
    assert (seen.is_error, seen.result, seen.extra) == (True, REASON, [])
    assert [h["payload"]["permission_mode"] for h in hooked] == [payload_mode]
    assert [h["env"].get("CLAUDE_CODE_SESSION_ATTENDED") for h in hooked] == ["0"]
    assert [d["tool_input"] for d in json.loads(run.proc.stdout)["permission_denials"]] == [{"command": "touch MARKER"}]


@pytest.mark.parametrize("mode", list(MODES))
def test_headless_control_without_hook(claude_cli, sandbox, mode):
    """What the mode alone does with the same call: where it runs, an ask is what stops it."""
    run, ran, seen, _ = _run_headless(claude_cli, sandbox, MODES[mode][0], hooked=False)
    expected_ran, code, result = CONTROL[mode]
    assert (ran, run.proc.returncode, seen.is_error) == (expected_ran, code, not expected_ran), run.proc.stderr
    assert seen.result.startswith(result), seen.result


# --- interactive, in tmux: a person at the terminal ------------------------------------------

KEY = "e2e-not-a-key-0123456789abcdef"
PROMPT_SHOWN = "Hook PreToolUse:Bash requires confirmation"


class Terminal:
    """Claude Code started interactively (``claude go``) in a detached tmux pane, 200x50."""

    def __init__(self, sandbox, claude: Path, args) -> None:
        self.sandbox = sandbox
        self.name = f"hookmux-ask-{os.getpid()}-{sandbox.root.name}"[:60]
        # What a person has already answered once: onboarding, this key, this folder's trust, bypass mode.
        (sandbox.home / ".claude.json").write_text(json.dumps({
            "hasCompletedOnboarding": True, "theme": "dark", "bypassPermissionsModeAccepted": True,
            "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
            "projects": {str(sandbox.project): {"hasTrustDialogAccepted": True,
                                                "hasCompletedProjectOnboarding": True}}}))
        env = sandbox.env | _env_for(args) | {
            "ANTHROPIC_BASE_URL": sandbox.server.url, "ANTHROPIC_API_KEY": KEY, "TERM": "xterm-256color",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1"}
        # The prompt before the flags: --allowedTools is variadic and would take it as a tool.
        line = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in env.items()), str(claude), "go", *args])
        subprocess.run(["tmux", "new-session", "-d", "-x", "200", "-y", "50", "-s", self.name,
                        "-c", str(sandbox.project), line], check=True, timeout=30)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True,
                              timeout=30).stdout

    def wait_for(self, text: str, timeout: float = 45) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.5)
        pytest.fail(f"{text!r} never appeared; the screen:\n{self.screen()}", pytrace=False)

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True, timeout=30)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True, timeout=30)


@pytest.fixture
def terminal(claude_cli, sandbox):
    if subprocess.run(["which", "tmux"], capture_output=True).returncode != 0:
        pytest.skip("tmux is not installed")
    opened = []

    def open_(args):
        opened.append(Terminal(sandbox, claude_cli.path, args))
        return opened[-1]
    yield open_
    for term in opened:
        term.close()


#: interactive flags -> the payload's ``permission_mode``. No flag is ``auto`` in 2.1.332 (its
#: classifier runs on Anthropic's server, which the loopback stand-in does not pass through).
INTERACTIVE = {
    "no flag": ((), "auto"),
    "default": (("--permission-mode", "default"), "default"),
    "acceptEdits": (("--permission-mode", "acceptEdits"), "acceptEdits"),
    "bypassPermissions": (("--permission-mode", "bypassPermissions"), "bypassPermissions"),
    "allowedTools-Bash": (("--allowedTools", "Bash"), "auto"),
}


@pytest.mark.parametrize("mode", list(INTERACTIVE))
@pytest.mark.parametrize("answer", ["yes", "no"])
def test_interactive_ask_waits_for_the_person(sandbox, terminal, mode, answer):
    """At a terminal the ask is the host's own prompt, naming the hook's reason; the command
    has not run while it waits, runs on Enter ("1. Yes") and never on Escape."""
    args, payload_mode = INTERACTIVE[mode]
    marker = _marker(sandbox)
    dump = _wire_ask_hook(sandbox)
    sandbox.server.script([ToolUse("Bash", {"command": "touch MARKER"})])
    term = terminal(args)
    shown = term.wait_for("Do you want to proceed?")
    assert PROMPT_SHOWN in shown and REASON in shown, shown
    time.sleep(2)  # the prompt stays up: nothing runs the command meanwhile
    assert not marker.exists()
    hooked = _hooked(dump)
    assert [h["payload"]["permission_mode"] for h in hooked] == [payload_mode]
    assert [h["env"].get("CLAUDE_CODE_SESSION_ATTENDED") for h in hooked] == ["1"]
    if answer == "yes":
        term.keys("Enter")
        term.wait_for(FINAL_TEXT, timeout=30)
        assert marker.exists()
        seen = after_tool(sandbox.server.conversation()[-1], sandbox.server.issued[0])
        assert (seen.is_error, seen.result) == (False, "(Bash completed with no output)")
    else:
        term.keys("Escape")
        term.wait_for("Interrupted", timeout=30)
        time.sleep(2)
        assert not marker.exists()
        assert len(sandbox.server.conversation()) == 1  # the turn ends: the model is not called again


# --- headless through the SDK's permission callback: an app, not a person, answers ---------------


def test_sdk_ask_goes_to_the_apps_callback(claude_cli, sandbox):
    """``-p --permission-prompt-tool stdio`` (the Agent SDK's ``canUseTool``): the ask becomes a
    ``can_use_tool`` control request to the driving program, and its ``allow`` runs the command.
    Nobody need see it; hooks see CLAUDE_CODE_SESSION_ATTENDED=0 here too."""
    marker = _marker(sandbox)
    dump = _wire_ask_hook(sandbox)
    sandbox.server.script([ToolUse("Bash", {"command": "touch MARKER"})])
    env = sandbox.env | {"ANTHROPIC_BASE_URL": sandbox.server.url, "ANTHROPIC_API_KEY": KEY,
                         "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
                         "DISABLE_AUTOUPDATER": "1"}
    cmd = [str(claude_cli.path), "-p", "--input-format", "stream-json", "--output-format", "stream-json",
           "--verbose", "--permission-prompt-tool", "stdio"]
    proc = subprocess.Popen(cmd, cwd=sandbox.project, env=env, text=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    asked, result = [], None
    try:
        proc.stdin.write(json.dumps({"type": "control_request", "request_id": "init",
                                     "request": {"subtype": "initialize"}}) + "\n")
        proc.stdin.write(json.dumps({"type": "user", "message": {"role": "user", "content": "go"}}) + "\n")
        proc.stdin.flush()
        for line in proc.stdout:  # Claude Code ends the stream with the result; a hang is cut by pytest's timeout
            message = json.loads(line)
            request = message.get("request") or {}
            if message.get("type") == "control_request" and request.get("subtype") == "can_use_tool":
                asked.append((request, marker.exists()))
                proc.stdin.write(json.dumps({"type": "control_response", "response": {
                    "subtype": "success", "request_id": message["request_id"],
                    "response": {"behavior": "allow", "updatedInput": request["input"]}}}) + "\n")
                proc.stdin.flush()
            if message.get("type") == "result":
                result = message
                break
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert result is not None and not result.get("is_error"), result
    assert [(r["input"], r["decision_reason"], r["decision_reason_type"], before) for r, before in asked] == [
        ({"command": "touch MARKER"}, REASON, "hook", False)]
    assert marker.exists()  # the app said allow: the command ran with no person
    seen = after_tool(sandbox.server.conversation()[-1], sandbox.server.issued[0])
    assert (seen.is_error, seen.result) == (False, "(Bash completed with no output)")
    hooked = _hooked(dump)
    assert [(h["payload"]["permission_mode"], h["env"].get("CLAUDE_CODE_SESSION_ATTENDED"),
             h["env"].get("CLAUDE_CODE_ENTRYPOINT")) for h in hooked] == [("default", "0", "sdk-cli")]


# --- hookmux's own gate: ask where a person answers, deny elsewhere (issue 38 item 4) -----------

GATE_ASKS = "hookmux danger gate: this command would destroy what nothing can bring back"


def _documents(sandbox) -> Path:
    """HOME/Documents with one file: HOME is the test's own temporary folder (asserted)."""
    home = Path(sandbox.env["HOME"])
    assert home == sandbox.home and home.is_relative_to(sandbox.root) and str(home).startswith("/tmp")
    assert home.resolve() != Path(os.path.expanduser("~")).resolve()
    documents = home / "Documents"
    documents.mkdir(exist_ok=True)
    (documents / "thesis.txt").write_text("five years of work\n")
    return documents


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize("answer", ["yes", "no"])
def test_the_installed_gate_asks_the_person_at_the_terminal(sandbox, terminal, mode, answer):
    """``hookmux install``'s gate in an interactive Claude Code: the deny becomes the host's own
    prompt with the gate's reason, even in bypassPermissions; Escape keeps the folder, Enter is
    the person's own yes (the delete reaches only the test's temporary HOME)."""
    documents = _documents(sandbox)
    sandbox.install_claude_user()
    sandbox.server.script([ToolUse("Bash", {"command": "rm -rf ~/Documents"})])
    term = terminal(INTERACTIVE[mode][0])
    shown = term.wait_for("Do you want to proceed?")
    assert PROMPT_SHOWN in shown and GATE_ASKS in shown, shown
    time.sleep(2)
    assert (documents / "thesis.txt").is_file()
    if answer == "no":
        term.keys("Escape")
        term.wait_for("Interrupted", timeout=30)
        time.sleep(2)
        assert (documents / "thesis.txt").is_file()
    else:
        term.keys("Enter")
        term.wait_for(FINAL_TEXT, timeout=30)
        assert not documents.exists()


@pytest.mark.parametrize("channel", ["headless", "sdk"])
def test_an_inherited_attended_variable_is_not_what_the_hooks_see(claude_cli, sandbox, channel):
    """An agent that starts its own Claude Code with CLAUDE_CODE_SESSION_ATTENDED=1 in the
    environment does not make that session look attended to its hooks."""
    dump = _wire_ask_hook(sandbox)
    forged = {"CLAUDE_CODE_SESSION_ATTENDED": "1"}
    if channel == "headless":
        sandbox.claude(claude_cli, [ToolUse("Bash", {"command": "touch MARKER"})], extra_env=forged)
    else:
        sandbox.server.script([ToolUse("Bash", {"command": "touch MARKER"})])
        env = sandbox.env | forged | {"ANTHROPIC_BASE_URL": sandbox.server.url, "ANTHROPIC_API_KEY": KEY,
                                      "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        cmd = [str(claude_cli.path), "-p", "--input-format", "stream-json", "--output-format", "stream-json",
               "--verbose", "--permission-prompt-tool", "stdio"]
        proc = subprocess.Popen(cmd, cwd=sandbox.project, env=env, text=True, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            proc.stdin.write(json.dumps({"type": "control_request", "request_id": "init",
                                         "request": {"subtype": "initialize"}}) + "\n")
            proc.stdin.write(json.dumps({"type": "user", "message": {"role": "user", "content": "go"}}) + "\n")
            proc.stdin.flush()
            for line in proc.stdout:
                message = json.loads(line)
                if message.get("type") == "control_request":
                    proc.stdin.write(json.dumps({"type": "control_response", "response": {
                        "subtype": "success", "request_id": message["request_id"],
                        "response": {"behavior": "deny", "message": "e2e"}}}) + "\n")
                    proc.stdin.flush()
                if message.get("type") == "result":
                    break
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
    assert [h["env"].get("CLAUDE_CODE_SESSION_ATTENDED") for h in _hooked(dump)] == ["0"]


@pytest.mark.parametrize("mode", ["no flag", "allowedTools-Bash"])
def test_the_installed_gate_denies_at_the_terminal_in_auto_mode(sandbox, terminal, mode):
    """No flag (and ``--allowedTools``) is ``auto`` in 2.1.332, whose classifier may settle an
    ask without the person (anthropics/claude-code#89561): the gate denies there, as headless."""
    documents = _documents(sandbox)
    sandbox.install_claude_user()
    sandbox.server.script([ToolUse("Bash", {"command": "rm -rf ~/Documents"})])
    term = terminal(INTERACTIVE[mode][0])
    term.wait_for(FINAL_TEXT, timeout=60)
    assert (documents / "thesis.txt").is_file()
    seen = after_tool(sandbox.server.conversation()[-1], sandbox.server.issued[0])
    assert seen.is_error and "this command was NOT run" in seen.result, seen.result
