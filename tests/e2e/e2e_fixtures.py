"""Fixtures for the e2e suite (helpers live in e2e_support.py).

Test modules import these names. They are not in a tests/e2e/conftest.py because a
second module named ``conftest`` would shadow tests/conftest.py for every test file
that does ``from hookmux_testing import ...``.

Each test gets a fresh HOME and a project folder (a git repo), installs hookmux the
way a user does, runs one real CLI in ``-p`` mode against a loopback model server
and reads back what the model was sent. Missing binaries skip locally and fail
under ``CI=true``; ``bash tests/e2e/install-clis.sh`` installs them.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from e2e_codex import CodexSandbox
from e2e_codex_server import ResponsesServer
from hookmux.standin.anthropic import ModelServer
from e2e_support import Cli, Sandbox, codex_binary, find_cli, unavailable


@pytest.fixture(scope="session")
def claude_cli() -> Cli:
    return find_cli("claude", "@anthropic-ai/claude-code", "claude", "HOOKMUX_E2E_CLAUDE_VERSION", "{} (Claude Code)")


@pytest.fixture(scope="session")
def copilot_cli() -> Cli:
    return find_cli("copilot", "@github/copilot", "copilot", "HOOKMUX_E2E_COPILOT_VERSION", "Copilot CLI {}.")


@pytest.fixture(scope="session")
def codex_cli() -> Cli:
    return find_cli("codex", "@openai/codex", codex_binary(), "HOOKMUX_E2E_CODEX_VERSION", "codex-cli {}")


@pytest.fixture(scope="session")
def hookmux_installer(tmp_path_factory) -> None:
    """``hookmux install`` must work in a scratch HOME before any host is driven."""
    home = tmp_path_factory.mktemp("install-probe")
    proc = subprocess.run(
        [sys.executable, "-m", "hookmux.cli", "install", "--target", str(home / ".claude" / "hooks"),
         "--settings", str(home / ".claude" / "settings.json")],
        capture_output=True, text=True, timeout=120, env={"PATH": os.environ.get("PATH", ""), "HOME": str(home)},
    )
    if proc.returncode != 0:
        unavailable(f"`hookmux install` fails in a scratch HOME: {(proc.stderr or proc.stdout).strip()[-400:]}")


@pytest.fixture
def sandbox(tmp_path, hookmux_installer):
    with ModelServer() as server:
        yield Sandbox(tmp_path, server)



@pytest.fixture
def codex_sandbox(tmp_path, hookmux_installer):
    with ResponsesServer() as server:
        yield CodexSandbox(tmp_path, server)
