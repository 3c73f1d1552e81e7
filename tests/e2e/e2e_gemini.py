"""Driving the real Gemini CLI: a sandbox whose HOME holds a ``~/.gemini`` pointed at the loopback
Gemini API stand-in (``e2e_gemini_server``), one ``gemini -p go --yolo`` run, and what the model
was shown afterwards.

Gemini CLI is a Node program (one bundled script); it runs under the ``node`` on PATH (>= 20).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from e2e_gemini_server import GeminiServer
from hookmux.standin.anthropic import ToolUse
from e2e_support import CLI_TIMEOUT, INSTALL_COMMAND, PROMPT, REPO, Cli, Sandbox, pinned_versions, unavailable

PACKAGE_SCRIPT = Path("@google/gemini-cli") / "bundle" / "gemini.js"
# What the user has in ~/.gemini/settings.json before hookmux comes: API-key auth and nothing
# that reaches outside hosts (the contract's "Driving it").
USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "telemetry": {"enabled": False},
}


def find_gemini() -> Cli:
    pin = pinned_versions()["HOOKMUX_E2E_GEMINI_VERSION"]
    override = os.environ.get("HOOKMUX_E2E_GEMINI_BIN")
    path = Path(override) if override else REPO / ".e2e" / "node_modules" / PACKAGE_SCRIPT
    node = shutil.which("node")
    if node is None or not path.is_file():
        unavailable(f"gemini {pin} is not installed at {path} (or no node on PATH); install it with: {INSTALL_COMMAND}")
    try:
        with tempfile.TemporaryDirectory() as home:
            out = subprocess.run([node, str(path), "--version"], capture_output=True, text=True, timeout=60,
                                 env={"PATH": os.environ.get("PATH", ""), "HOME": home}).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"{path} --version failed: {exc}", pytrace=False)
    if out.strip() != pin:
        pytest.fail(f"{path} reports {out.strip()!r}, expected {pin}; run {INSTALL_COMMAND} "
                    f"(or set HOOKMUX_E2E_GEMINI_VERSION to the version you mean to test)", pytrace=False)
    return Cli("gemini", path, pin)


def shell(command: str) -> ToolUse:
    """The model asks Gemini to run ``command`` (data: the stand-in sends it as a functionCall)."""
    return ToolUse("run_shell_command", {"command": command, "description": "e2e scripted command"})


@dataclass
class AfterCall:
    """What the model was shown after one of its function calls: the functionResponse's response."""

    response: dict

    @property
    def text(self) -> str:
        return "\n".join(str(value) for value in self.response.values())


def function_response(request: dict, call_id: str) -> dict | None:
    for content in request.get("contents") or []:
        for part in content.get("parts") or []:
            answer = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(answer, dict) and answer.get("id") == call_id:
                return answer.get("response") or {}
    return None


@dataclass
class GeminiRun:
    proc: subprocess.CompletedProcess
    elapsed: float
    requests: list[dict]  # streaming requests that offered tools, in order
    call_ids: list[str]  # ids of the functionCall parts the stand-in scripted, in order

    def after(self, call: int = 0) -> AfterCall:
        """The response to scripted call ``call`` the model was sent, from the last request holding it."""
        call_id = self.call_ids[call]
        for request in reversed(self.requests):
            found = function_response(request, call_id)
            if found is not None:
                return AfterCall(found)
        raise AssertionError(f"no request shows the response to {call_id}")


class GeminiSandbox(Sandbox):
    """A Sandbox whose HOME holds ``~/.gemini`` (settings, trusted project) for the stand-in."""

    def __init__(self, root: Path, server: GeminiServer) -> None:
        super().__init__(root, server)  # type: ignore[arg-type]
        self.gemini_home = self.home / ".gemini"
        self.gemini_home.mkdir()
        self.gemini_settings = self.gemini_home / "settings.json"
        self.gemini_settings.write_text(json.dumps(USER_SETTINGS, indent=2) + "\n")
        (self.gemini_home / "trustedFolders.json").write_text(json.dumps({str(self.project): "TRUST_FOLDER"}))
        self.extra_env: dict[str, str] = {}

    @property
    def env(self) -> dict[str, str]:
        return super().env | {"GEMINI_API_KEY": "e2e-not-a-key", "GOOGLE_GEMINI_BASE_URL": self.server.url} \
            | self.extra_env

    def install_gemini_user(self, *extra) -> None:
        self.hookmux("install", "--target", self.claude_target, "--settings", self.user_settings,
                     "--gemini-home", self.gemini_home, *extra)

    def hookmux_commands(self) -> dict[str, list[str]]:
        """Gemini event -> the commands of hookmux's entries in ~/.gemini/settings.json."""
        data = json.loads(self.gemini_settings.read_text())
        return {event: [hook["command"] for group in groups for hook in group.get("hooks", [])
                        if str(self.claude_target) in hook.get("command", "")]
                for event, groups in (data.get("hooks") or {}).items()}

    def gemini(self, cli: Cli, turns: list[ToolUse], *args: str, timeout: float = CLI_TIMEOUT) -> GeminiRun:
        assert str(self.home).startswith(str(self.root)) and self.env["HOME"] == str(self.home)
        self.server.script(turns)
        cmd = [shutil.which("node") or "node", str(cli.path), "-p", PROMPT, "--yolo", *args]
        started = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=self.project, env=self.env, capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"gemini did not exit within {timeout}s\nstdout:\n{exc.stdout}\nstderr:\n{exc.stderr}",
                        pytrace=False)
        elapsed = time.monotonic() - started
        requests = self.server.conversation()
        if not requests:
            pytest.fail(f"gemini never called the model (exit {proc.returncode})\nstdout:\n{proc.stdout}\n"
                        f"stderr:\n{proc.stderr}", pytrace=False)
        return GeminiRun(proc, elapsed, requests, list(self.server.issued))


@pytest.fixture(scope="session")
def gemini_cli() -> Cli:
    return find_gemini()


@pytest.fixture
def gemini_sandbox(tmp_path, hookmux_installer):  # hookmux_installer: e2e_fixtures', imported by the test module
    with GeminiServer() as server:
        yield GeminiSandbox(tmp_path, server)
