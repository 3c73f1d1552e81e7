"""Driving the real Codex CLI: a sandbox with its own HOME and CODEX_HOME pointed at the
Responses-API stand-in, one ``codex exec`` run, and what the model was shown afterwards."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from e2e_codex_server import FunctionCall, ResponsesServer
from e2e_support import CLI_TIMEOUT, PROMPT, Cli, Sandbox

# The model name decides which tools Codex offers: with o3 / gpt-4.1 the multi_agent_v1 tools
# (spawn_agent) are sent directly, not deferred behind tool_search.
MODEL = "gpt-4.1"


def codex_config(server_url: str) -> str:
    """``config.toml`` for a run against the loopback server, nothing reaching outside hosts."""
    return f"""model = "{MODEL}"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "{server_url}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
"""


@dataclass
class AfterCall:
    """What the model was shown right after one of its function calls."""

    output: str  # the function_call_output
    developer: list[str]  # developer messages between the call and the next model turn


def _text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(part) for part in content)
    if isinstance(content, dict):
        return str(content.get("text", ""))
    return ""


def after_call(request: dict, call_id: str) -> AfterCall:
    items = request.get("input") or []
    start = next((i for i, item in enumerate(items)
                  if item.get("type") in ("function_call", "custom_tool_call") and item.get("call_id") == call_id), None)
    assert start is not None, f"function_call {call_id} is not in the request"
    output, developer = None, []
    for item in items[start + 1:]:
        kind = item.get("type")
        if kind in ("function_call_output", "custom_tool_call_output") and item.get("call_id") == call_id:
            output = _text(item.get("output"))
        elif kind == "message" and item.get("role") == "developer":
            developer.append(_text(item.get("content")))
        elif kind == "message" and item.get("role") == "assistant" or kind in ("function_call", "custom_tool_call"):
            break
    assert output is not None, f"no function_call_output for {call_id}"
    return AfterCall(output, developer)


@dataclass
class CodexRun:
    proc: subprocess.CompletedProcess
    elapsed: float
    requests: list[dict]  # conversation requests (the ones offering tools), in order
    call_ids: list[str]  # call_ids of the function calls the server scripted, in order

    def after(self, call: int = 0) -> AfterCall:
        """What the model saw after scripted call ``call``, from the last request that holds it
        (a sub-agent's requests come in between)."""
        call_id = self.call_ids[call]
        holding = [r for r in self.requests if any(item.get("call_id") == call_id and
                                                   item.get("type") in ("function_call_output",
                                                                        "custom_tool_call_output")
                                                   for item in r.get("input") or [])]
        assert holding, f"no request shows the output of {call_id}"
        return after_call(holding[-1], call_id)

    @property
    def events(self) -> list[dict]:
        """``codex exec --json`` events (JSON lines on stdout)."""
        return [json.loads(line) for line in self.proc.stdout.splitlines() if line.startswith("{")]

    def developer_messages(self) -> list[str]:
        """Every developer message in the last request after the user's prompt."""
        items = self.requests[-1].get("input") or []
        prompt = max((i for i, item in enumerate(items) if item.get("role") == "user"), default=0)
        return [_text(item.get("content")) for item in items[prompt + 1:]
                if item.get("type") == "message" and item.get("role") == "developer"]


class CodexSandbox(Sandbox):
    """A Sandbox whose HOME also holds a CODEX_HOME configured for the loopback Responses server."""

    def __init__(self, root: Path, server: ResponsesServer) -> None:
        super().__init__(root, server)  # type: ignore[arg-type]
        self.codex_home = self.home / ".codex"
        self.codex_home.mkdir()
        self.config = self.codex_home / "config.toml"
        self.config.write_text(codex_config(server.url))
        self.hooks_file = self.codex_home / "hooks.json"
        self.extra_env: dict[str, str] = {}

    @property
    def env(self) -> dict[str, str]:
        return super().env | {"CODEX_HOME": str(self.codex_home), "FAKE_API_KEY": "e2e-not-a-key"} | self.extra_env

    def use_model(self, model: str) -> None:
        """Another model for the next runs. gpt-5.5 is in Codex's built-in catalog, so Codex
        offers it the freeform apply_patch tool (and defers spawn_agent behind tool_search)."""
        self.config.write_text(self.config.read_text().replace(f'model = "{MODEL}"', f'model = "{model}"', 1))

    def hookmux_status_json(self, *args) -> dict:
        """``hookmux status --json`` (exit 1 when it reports problems, which is no failure here)."""
        cmd = [sys.executable, "-m", "hookmux.cli", "status", "--target", str(self.claude_target), "--json",
               *map(str, args)]
        proc = subprocess.run(cmd, cwd=self.project, env=self.env, capture_output=True, text=True, timeout=120)
        assert proc.returncode in (0, 1), proc.stderr
        return json.loads(proc.stdout)

    def add_codex_skill(self, name: str, root: Path | None = None) -> Path:
        folder = (root or self.codex_home / "skills") / name
        folder.mkdir(parents=True)
        path = folder / "SKILL.md"
        path.write_text(f"---\nname: {name}\ndescription: e2e test skill {name}\n---\nFollow the {name} steps.\n")
        return path

    def add_codex_agent(self, name: str) -> Path:
        folder = self.codex_home / "agents"
        folder.mkdir(exist_ok=True)
        path = folder / f"{name}.toml"
        path.write_text(f'name = "{name}"\ndescription = "e2e test agent {name}"\n'
                        f'developer_instructions = "You are {name}."\n')
        return path

    def codex(self, cli: Cli, turns: list[FunctionCall], *args: str, timeout: float = CLI_TIMEOUT) -> CodexRun:
        self.server.script(turns)
        cmd = [str(cli.path), "exec", "--skip-git-repo-check", "--json", "-C", str(self.project), *args, PROMPT]
        started = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=self.project, env=self.env, capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"codex did not exit within {timeout}s\nstdout:\n{exc.stdout}\nstderr:\n{exc.stderr}",
                        pytrace=False)
        elapsed = time.monotonic() - started
        requests = self.server.conversation()
        if not requests:
            pytest.fail(f"codex never called the model (exit {proc.returncode})\nstdout:\n{proc.stdout}\n"
                        f"stderr:\n{proc.stderr}", pytrace=False)
        return CodexRun(proc, elapsed, requests, list(self.server.issued))
