"""Driving the real Qwen Code: a sandbox whose HOME holds a ``~/.qwen/settings.json`` pointed at
the loopback Chat Completions stand-in (``hookmux.standin.openai_chat``), one
``qwen -p go --approval-mode yolo`` run, and what the model was shown afterwards.

Qwen Code 0.24.4 needs Node >= 22: tests/e2e/install-clis.sh installs the pinned Node's platform
package into ``.e2e/node22`` beside it, and only Qwen's runs get that Node first on PATH.
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from hookmux.standin.hosts import platform_name
from hookmux.standin.openai_chat import AfterCall, ChatServer, ToolUse, after_call
from e2e_support import CLI_TIMEOUT, INSTALL_COMMAND, PROMPT, REPO, Cli, Sandbox, pinned_versions, unavailable

NODE22 = REPO / ".e2e" / "node22"
SCRIPT = NODE22 / "node_modules" / "@qwen-code" / "qwen-code" / "cli-entry.js"
# What the user has in ~/.qwen/settings.json before hookmux comes: an OpenAI-compatible provider
# (OPENAI_BASE_URL, the stand-in) and nothing that reaches outside hosts.
USER_SETTINGS = {
    "security": {"auth": {"selectedType": "openai"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False},
}


def node22_bin() -> Path:
    return NODE22 / "node_modules" / f"node-{platform_name()}" / "bin"


def find_qwen() -> Cli:
    pin = pinned_versions()["HOOKMUX_E2E_QWEN_VERSION"]
    node = node22_bin() / "node"
    if not (SCRIPT.is_file() and node.is_file()):
        unavailable(f"qwen {pin} (and its Node 22) is not installed at {SCRIPT}; install it with: {INSTALL_COMMAND}")
    try:
        with tempfile.TemporaryDirectory() as home:
            out = subprocess.run([str(node), str(SCRIPT), "--version"], capture_output=True, text=True, timeout=60,
                                 env={"PATH": f"{node.parent}:{os.environ.get('PATH', '')}", "HOME": home}).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"{SCRIPT} --version failed: {exc}", pytrace=False)
    if out.strip() != pin:
        pytest.fail(f"{SCRIPT} reports {out.strip()!r}, expected {pin}; run {INSTALL_COMMAND} "
                    f"(or set HOOKMUX_E2E_QWEN_VERSION to the version you mean to test)", pytrace=False)
    return Cli("qwen", SCRIPT, pin)


def shell(command: str) -> ToolUse:
    """The model asks Qwen to run ``command`` (data: the stand-in sends it as a tool call)."""
    return ToolUse("run_shell_command", {"command": command, "is_background": False,
                                         "description": "e2e scripted command"})


@dataclass
class QwenRun:
    proc: subprocess.CompletedProcess
    elapsed: float
    requests: list[dict]  # requests that offered tools, in order
    call_ids: list[str]   # ids of the tool calls the stand-in scripted, in order

    def after(self, call: int = 0) -> AfterCall:
        """What the model was shown after scripted call ``call``, from the last request holding it."""
        return after_call(self.requests[-1], self.call_ids[call])


class QwenSandbox(Sandbox):
    """A Sandbox whose HOME holds ``~/.qwen/settings.json`` for the stand-in."""

    def __init__(self, root: Path, server: ChatServer) -> None:
        super().__init__(root, server)  # type: ignore[arg-type]
        self.qwen_home = self.home / ".qwen"
        self.qwen_home.mkdir()
        self.qwen_settings = self.qwen_home / "settings.json"
        self.qwen_settings.write_text(json.dumps(USER_SETTINGS, indent=2) + "\n")

    @property
    def qwen_env(self) -> dict[str, str]:
        env = self.env
        return env | {"PATH": f"{node22_bin()}:{env['PATH']}", "OPENAI_BASE_URL": self.server.url + "/v1",
                      "OPENAI_API_KEY": "e2e-not-a-key", "OPENAI_MODEL": "e2e-stub",
                      "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}

    def install_qwen(self, *extra) -> None:
        self.hookmux("install", "--target", self.claude_target, "--settings", self.user_settings, "--qwen", *extra)

    def hookmux_commands(self) -> dict[str, list[str]]:
        """Qwen event -> the commands of hookmux's entries in ~/.qwen/settings.json."""
        data = json.loads(self.qwen_settings.read_text())
        return {event: [hook["command"] for group in groups for hook in group.get("hooks", [])
                        if str(self.claude_target) in hook.get("command", "")]
                for event, groups in (data.get("hooks") or {}).items()}

    def qwen(self, cli: Cli, turns: list[ToolUse], timeout: float = CLI_TIMEOUT) -> QwenRun:
        env = self.qwen_env
        assert str(self.home).startswith(str(self.root)) and env["HOME"] == str(self.home)
        self.server.script(turns)
        cmd = [str(node22_bin() / "node"), str(cli.path), "-p", PROMPT, "--approval-mode", "yolo"]
        started = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=self.project, env=env, capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"qwen did not exit within {timeout}s\nstdout:\n{exc.stdout}\nstderr:\n{exc.stderr}",
                        pytrace=False)
        elapsed = time.monotonic() - started
        requests = self.server.conversation()
        if not requests:
            pytest.fail(f"qwen never called the model (exit {proc.returncode})\nstdout:\n{proc.stdout}\n"
                        f"stderr:\n{proc.stderr}", pytrace=False)
        return QwenRun(proc, elapsed, requests, list(self.server.issued))


@pytest.fixture(scope="session")
def qwen_cli() -> Cli:
    return find_qwen()


@pytest.fixture
def qwen_sandbox(tmp_path, hookmux_installer):  # hookmux_installer: e2e_fixtures', imported by the test module
    with ChatServer() as server:
        yield QwenSandbox(tmp_path, server)
