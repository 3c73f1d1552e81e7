"""opencode and Pi for the e2e suite: where install-clis.sh puts them, and one run of each against
the loopback Anthropic Messages stand-in (``hookmux.standin.anthropic``), with hookmux's plugin
(opencode) or extension (Pi) written by ``hookmux install --opencode`` / ``--pi``.

- opencode 1.18.33 (a Bun binary): a provider in ``~/.config/opencode/opencode.json`` with
  ``"npm": "@ai-sdk/anthropic"`` (bundled in the binary) and ``options.baseURL`` at the stand-in;
  ``opencode run go`` is one non-interactive turn. At start it installs ``@opencode-ai/plugin``
  into each config folder with npm, in the background: ``npm_config_offline=true`` makes that
  fail at once, without the network (the local plugin needs nothing of it).
- Pi 1.6.0 (Node >= 22.19, run by the Node 22 install-clis.sh puts in ``.e2e/node22``): a provider
  in ``~/.pi/agent/models.json`` with ``"api": "anthropic-messages"`` and ``baseUrl`` at the
  stand-in; ``pi -p --provider e2e --model stub --no-session go``; ``PI_OFFLINE=1``.

Every command the scripted model asks for is data in its reply; HOME is the sandbox's fresh
temporary folder, asserted before each run.
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from e2e_support import REPO, CliRun, Sandbox, pinned_versions, unavailable
from hookmux.standin import hosts
from hookmux.standin.anthropic import ModelServer, ToolUse

E2E_PREFIX = REPO / ".e2e"
OPENCODE_TIMEOUT = 120
PI_TIMEOUT = 60
MODEL = "stub"


def node22() -> Path:
    """The Node 22 of ``install-clis.sh`` (the npm registry's platform package), or a skip."""
    override = os.environ.get("HOOKMUX_E2E_NODE22_BIN")
    path = Path(override) if override else (
        E2E_PREFIX / "node22" / "node_modules" / f"node-{hosts.platform_name()}" / "bin" / "node")
    if not (path.is_file() and os.access(path, os.X_OK)):
        unavailable(f"Node 22 is not installed at {path}; install it with: {hosts.INSTALL_COMMAND}")
    return path


def _version(cmd: list[str]) -> str:
    with tempfile.TemporaryDirectory() as home:
        try:
            return subprocess.run(cmd + ["--version"], capture_output=True, text=True, timeout=60,
                                  env={"PATH": os.environ.get("PATH", ""), "HOME": home}).stdout.strip()
        except (OSError, subprocess.TimeoutExpired) as exc:
            pytest.fail(f"{cmd} --version failed: {exc}", pytrace=False)


def _checked(cmd: list[str], key: str) -> list[str]:
    pin = pinned_versions()[key]
    found = _version(cmd)
    if found != pin:
        pytest.fail(f"{cmd} reports {found!r}, expected {pin}; run {hosts.INSTALL_COMMAND} "
                    f"(or set {key} to the version you mean to test)", pytrace=False)
    return cmd


@pytest.fixture(scope="session")
def opencode_cli() -> list[str]:
    path = hosts.cli_path(E2E_PREFIX, "opencode", "bin/opencode")
    if not (path.is_file() and os.access(path, os.X_OK)):
        unavailable(f"opencode is not installed at {path}; install it with: {hosts.INSTALL_COMMAND}")
    return _checked([str(path)], "HOOKMUX_E2E_OPENCODE_VERSION")


@pytest.fixture(scope="session")
def pi_cli() -> list[str]:
    script = E2E_PREFIX / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
    if not script.is_file():
        unavailable(f"Pi is not installed at {script}; install it with: {hosts.INSTALL_COMMAND}")
    return _checked([str(node22()), str(script)], "HOOKMUX_E2E_PI_VERSION")


class PluginSandbox(Sandbox):
    """A Sandbox whose runs are opencode's or Pi's."""

    @property
    def opencode_dir(self) -> Path:
        return self.home / ".config" / "opencode"

    @property
    def opencode_plugin(self) -> Path:
        return self.opencode_dir / "plugin" / "hookmux.js"

    @property
    def pi_dir(self) -> Path:
        return self.home / ".pi" / "agent"

    @property
    def pi_extension(self) -> Path:
        return self.pi_dir / "extensions" / "hookmux.js"

    def install(self, *flags: str) -> None:
        self.hookmux("install", "--target", self.claude_target, "--settings", self.user_settings, *flags)

    def uninstall(self, *flags: str) -> None:
        self.hookmux("uninstall", "--target", self.claude_target, "--settings", self.user_settings, *flags)

    def _assert_home(self) -> None:
        assert self.home.is_relative_to(self.root) and self.env["HOME"] == str(self.home)
        assert self.home.is_dir() and str(self.home).startswith(tempfile.gettempdir())

    # opencode

    def write_opencode_config(self) -> Path:
        """The user's opencode.json: the stand-in as a provider, tools allowed without asking."""
        self.opencode_dir.mkdir(parents=True, exist_ok=True)
        path = self.opencode_dir / "opencode.json"
        path.write_text(json.dumps({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"e2e": {"npm": "@ai-sdk/anthropic", "name": "e2e",
                                 "options": {"baseURL": self.server.url + "/v1", "apiKey": "e2e-not-a-key"},
                                 "models": {MODEL: {"name": MODEL, "tool_call": True}}}},
            "model": f"e2e/{MODEL}", "small_model": f"e2e/{MODEL}", "autoupdate": False, "share": "disabled",
            "permission": {"bash": "allow", "edit": "allow", "external_directory": "allow"},
        }, indent=2) + "\n")
        return path

    def opencode(self, cli: list[str], turns: list[ToolUse]) -> CliRun:
        self._assert_home()
        env = self.env | {
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            "npm_config_offline": "true",  # the start's background `npm install @opencode-ai/plugin`
        }
        return self._run([*cli, "run", "go"], env, turns, OPENCODE_TIMEOUT)

    # Pi

    def write_pi_models(self) -> Path:
        self.pi_dir.mkdir(parents=True, exist_ok=True)
        path = self.pi_dir / "models.json"
        path.write_text(json.dumps({"providers": {"e2e": {
            "baseUrl": self.server.url, "api": "anthropic-messages", "apiKey": "e2e-not-a-key",
            "models": [{"id": MODEL}]}}}, indent=2) + "\n")
        return path

    def pi(self, cli: list[str], turns: list[ToolUse]) -> CliRun:
        self._assert_home()
        env = self.env | {"PI_OFFLINE": "1", "PI_TELEMETRY": "0"}
        env["PATH"] = str(Path(cli[0]).parent) + os.pathsep + env["PATH"]  # its shell tool's node, too
        return self._run([*cli, "-p", "--provider", "e2e", "--model", MODEL, "--no-session", "go"], env, turns,
                         PI_TIMEOUT)


@pytest.fixture
def plugin_sandbox(tmp_path, hookmux_installer):
    with ModelServer() as server:
        yield PluginSandbox(tmp_path, server)
