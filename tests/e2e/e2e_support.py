"""Helpers for the e2e suite: find the pinned CLIs, a per-test sandbox, and what the model saw."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from hookmux.standin import hosts
from hookmux.standin.anthropic import ModelServer, ToolUse
from hookmux.standin.hosts import INSTALL_COMMAND, PROMPT, codex_binary  # noqa: F401 (re-exported)
from hookmux_testing import RUNTIME_DIR, WARM_IDLE

E2E_DIR = Path(__file__).resolve().parent
REPO = E2E_DIR.parents[1]
CLI_TIMEOUT = 60


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def unavailable(reason: str):
    """Skip locally; under CI a test that cannot run is a failure, never a skip."""
    if under_ci():
        pytest.fail(f"{reason} (CI=true: e2e tests must run)", pytrace=False)
    pytest.skip(reason)


def pinned_versions() -> dict[str, str]:
    pins = {}
    for line in (E2E_DIR / "pinned-versions").read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep and key.startswith("HOOKMUX_E2E_"):
            pins[key] = os.environ.get(key, value.strip())
    return pins


@dataclass(frozen=True)
class Cli:
    name: str
    path: Path
    version: str


def find_cli(name: str, package: str, binary: str, pin_key: str, version_text: str) -> Cli:
    pin = pinned_versions()[pin_key]
    override = os.environ.get(f"HOOKMUX_E2E_{name.upper()}_BIN")
    path = Path(override) if override else hosts.cli_path(REPO / ".e2e", package, binary)
    if not (path.is_file() and os.access(path, os.X_OK)):
        unavailable(f"{name} {pin} is not installed at {path}; install it with: {INSTALL_COMMAND}")
    try:
        with tempfile.TemporaryDirectory() as home:
            out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=60,
                                 env={"PATH": os.environ.get("PATH", ""), "HOME": home}).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"{path} --version failed: {exc}", pytrace=False)
    if version_text.format(pin) not in out:
        pytest.fail(
            f"{path} reports {out.strip()!r}, expected {pin}; run {INSTALL_COMMAND} "
            f"(or set {pin_key} to the version you mean to test)",
            pytrace=False,
        )
    return Cli(name, path, pin)


# --- what the model saw --------------------------------------------------------------------


def block_text(block) -> str:
    """The text a content block (or a tool_result's content) carries."""
    if isinstance(block, str):
        return block
    if isinstance(block, list):
        return "\n".join(block_text(b) for b in block)
    if isinstance(block, dict):
        if block.get("type") == "tool_result":
            return block_text(block.get("content", ""))
        if "text" in block:
            return block["text"]
    return ""


@dataclass
class AfterTool:
    """What the model was shown right after one of its tool calls."""

    result: str            # the tool_result content
    is_error: bool
    extra: list[str]       # every other text block / system message up to the next assistant turn


def after_tool(request: dict, tool_use_id: str) -> AfterTool:
    messages = request.get("messages", [])
    start = None
    for i, message in enumerate(messages):
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") == tool_use_id for b in content
        ):
            start = i
    assert start is not None, f"tool_use {tool_use_id} is not in the request"
    result, is_error, extra = None, False, []
    for message in messages[start + 1:]:
        if message.get("role") == "assistant":
            break
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                if block.get("tool_use_id") == tool_use_id:
                    result, is_error = block_text(block), bool(block.get("is_error"))
                continue
            text = block_text(block)
            if text:
                extra.append(text)
    assert result is not None, f"no tool_result for {tool_use_id}"
    return AfterTool(result, is_error, extra)


# --- one CLI run ---------------------------------------------------------------------------


@dataclass
class CliRun:
    proc: subprocess.CompletedProcess
    elapsed: float
    requests: list[dict]           # conversation requests (the ones offering tools), in order
    tool_use_ids: list[str]        # ids of the tool calls the server scripted, in order
    debug_log: Path | None = None
    home: Path | None = None

    def after(self, call: int = 0) -> AfterTool:
        """What the model saw after scripted call number ``call`` (from the last request)."""
        return after_tool(self.requests[-1], self.tool_use_ids[call])

    def hook_runs(self) -> list[tuple[str, str, int, int]]:
        """Claude Code's debug log: (event[:tool], command, exit status, ms) per hook run."""
        if not self.debug_log or not self.debug_log.exists():
            return []
        pattern = re.compile(r"Hooks: (\S+) \[(.*)\] finished with status (-?\d+) \((\d+)ms\)")
        return [(m[1], m[2], int(m[3]), int(m[4])) for m in pattern.finditer(self.debug_log.read_text(errors="replace"))]

    def claude_hook_errors(self) -> list[dict]:
        """Hook error attachments Claude Code wrote into the session transcript."""
        found = []
        for transcript in (self.home / ".claude" / "projects").glob("*/*.jsonl"):
            for line in transcript.read_text(errors="replace").splitlines():
                attachment = (json.loads(line) if line.strip() else {}).get("attachment") or {}
                kind = str(attachment.get("type", ""))
                if kind.startswith("hook_") and ("error" in kind or "blocking" in kind or "cancel" in kind):
                    found.append(attachment)
        return found

    def copilot_hook_events(self) -> list[dict]:
        """hook.start / hook.end events from Copilot's session state."""
        events = []
        for log in (self.home / ".copilot" / "session-state").glob("*/events.jsonl"):
            for line in log.read_text(errors="replace").splitlines():
                if line.strip():
                    event = json.loads(line)
                    if str(event.get("type", "")).startswith("hook."):
                        events.append(event)
        return events


def _base_env(home: Path) -> dict[str, str]:
    """A clean environment (hosts.base_env) whose warm pools live in the session's private folder,
    gone soon after the test (tests/conftest.py)."""
    return hosts.base_env(home, {"HOOKMUX_RUNTIME_DIR": RUNTIME_DIR, "HOOKMUX_WARM_IDLE": WARM_IDLE})


class Sandbox:
    """A fresh HOME and project for one test, plus the model server the CLIs talk to."""

    def __init__(self, root: Path, server: ModelServer) -> None:
        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        self.server = server
        self.home.mkdir()
        self.project.mkdir()
        env = _base_env(self.home)
        for args in (["init", "-q", "-b", "main"], ["config", "user.email", "e2e@example.invalid"],
                     ["config", "user.name", "e2e"], ["commit", "-q", "--allow-empty", "-m", "init"]):
            subprocess.run(["git", *args], cwd=self.project, env=env, check=True, capture_output=True)

    @property
    def env(self) -> dict[str, str]:
        return _base_env(self.home)

    # hookmux, the way a user runs it

    def hookmux(self, *args: str | os.PathLike) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "hookmux.cli", *map(str, args)]
        proc = subprocess.run(cmd, cwd=self.project, env=self.env, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            pytest.fail(f"{shlex.join(cmd)} exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}",
                        pytrace=False)
        return proc

    def hookmux_at_terminal(self, typed: str, *args: str | os.PathLike) -> str:
        """``hookmux ARGS`` run by a person at a terminal (a pty) who types ``typed``: its stdout."""
        from hookmux_testing import run_at_terminal

        cmd = [sys.executable, "-m", "hookmux.cli", *map(str, args)]
        code, out, err, shown = run_at_terminal(cmd, typed, self.env, cwd=self.project, timeout=120)
        if code != 0:
            pytest.fail(f"{shlex.join(cmd)} exited {code}\nstdout:\n{out}\nstderr:\n{err}\nterminal:\n{shown}",
                        pytrace=False)
        return out

    @property
    def claude_target(self) -> Path:
        return self.home / ".claude" / "hooks"

    @property
    def user_settings(self) -> Path:
        return self.home / ".claude" / "settings.json"

    @property
    def project_settings(self) -> Path:
        return self.project / ".claude" / "settings.json"

    @property
    def copilot_hooks_dir(self) -> Path:
        return self.home / ".copilot" / "hooks"

    def install_claude_user(self) -> None:
        self.hookmux("install", "--target", self.claude_target, "--settings", self.user_settings)

    def install_copilot_user(self) -> None:
        self.hookmux("install", "--target", self.claude_target, "--settings", self.user_settings,
                     "--copilot-hooks-dir", self.copilot_hooks_dir)

    def install_claude_project(self) -> None:
        self.hookmux("install", "--target", self.claude_target, "--settings", self.project_settings)

    def add_skill(self, name: str, root: str = ".claude/skills") -> Path:
        folder = self.home / root / name
        folder.mkdir(parents=True)
        path = folder / "SKILL.md"
        path.write_text(f"---\nname: {name}\ndescription: e2e test skill {name}\n---\nFollow the {name} steps.\n")
        return path

    def add_agent(self, name: str, root: str = ".claude/agents") -> Path:
        """An agent file under HOME/root that both hosts list (frontmatter name: and description:)."""
        suffix = ".agent.md" if root.startswith(".copilot") else ".md"
        path = self.home / root / f"{name}{suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nname: {name}\ndescription: e2e test agent {name}\n---\nYou are {name}.\n")
        return path

    # the CLIs

    def _run(self, cmd: list[str], env: dict[str, str], turns: list[ToolUse], timeout: float) -> CliRun:
        self.server.script(turns)
        started = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=self.project, env=env, capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"{cmd[0]} did not exit within {timeout}s\nstdout:\n{exc.stdout}\nstderr:\n{exc.stderr}",
                        pytrace=False)
        elapsed = time.monotonic() - started
        requests = self.server.conversation()
        if not requests:
            pytest.fail(f"{cmd[0]} never called the model (exit {proc.returncode})\nstdout:\n{proc.stdout}\n"
                        f"stderr:\n{proc.stderr}", pytrace=False)
        return CliRun(proc, elapsed, requests, list(self.server.issued), home=self.home)

    def claude(self, cli: Cli, turns: list[ToolUse], *args: str, timeout: float = CLI_TIMEOUT,
               extra_env: dict[str, str] | None = None) -> CliRun:
        debug_log = self.root / "claude-debug.log"
        cmd = hosts.claude_command(cli.path, *args, debug_log=debug_log)
        run = self._run(cmd, hosts.claude_env(self.env | (extra_env or {}), self.server.url), turns, timeout)
        run.debug_log = debug_log
        return run

    def copilot(self, cli: Cli, turns: list[ToolUse], *args: str, timeout: float = CLI_TIMEOUT,
                inside: tuple[str, ...] = ()) -> CliRun:
        """``inside``: words the CLI's command is appended to (a namespace that shows another /etc)."""
        env = self.env | {
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_TYPE": "anthropic",
            "COPILOT_PROVIDER_BASE_URL": self.server.url,
            "COPILOT_PROVIDER_API_KEY": "e2e-not-a-key",
            "COPILOT_MODEL": "claude-sonnet-4.5",
            "COPILOT_AUTO_UPDATE": "false",
        }
        cmd = [*inside, str(cli.path), "-p", PROMPT, "--allow-all-tools", *args]
        return self._run(cmd, env, turns, timeout)

    # running an installed hook command directly, with the payload a host would send

    def run_wired(self, command: str, payload: dict) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                              cwd=self.project, env=self.env, timeout=60)

