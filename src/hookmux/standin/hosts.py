"""Where ``tests/e2e/install-clis.sh`` puts the host binaries, and how a run of one is set up.

    binary = cli_path(e2e_dir, "@anthropic-ai/claude-code", "claude")
    cmd = claude_command(binary, "--allowedTools", "Bash")
    env = claude_env(base_env(home), server.url)

The e2e suite (tests/e2e/e2e_support.py) and ``hookmux bench --turn`` both build their runs
from these, so the bench times what the suite proves.
"""
from __future__ import annotations

import os
import platform
from pathlib import Path

PROMPT = "go"
INSTALL_COMMAND = "bash tests/e2e/install-clis.sh"
CLAUDE_PACKAGE = "@anthropic-ai/claude-code"

_RUST_TRIPLES = {"linux-x64": "x86_64-unknown-linux-musl", "linux-arm64": "aarch64-unknown-linux-musl",
                 "darwin-x64": "x86_64-apple-darwin", "darwin-arm64": "aarch64-apple-darwin"}


def platform_name() -> str:
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), platform.system().lower())
    machine = {"x86_64": "x64", "AMD64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    return f"{system}-{machine}"


def codex_binary() -> str:
    """Where the Codex platform package keeps its binary, relative to the package folder."""
    return f"vendor/{_RUST_TRIPLES.get(platform_name(), 'unknown')}/bin/codex"


def cli_path(e2e_dir: Path, package: str, binary: str) -> Path:
    """The platform package's binary under ``e2e_dir`` (``<repo>/.e2e``)."""
    return Path(e2e_dir) / "node_modules" / f"{package}-{platform_name()}" / binary


def base_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A clean environment: nothing of the developer's HOME, proxies or API keys leaks in."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
    }
    return env | (extra or {})


def claude_env(env: dict[str, str], url: str) -> dict[str, str]:
    """``env`` plus what points Claude Code at the stand-in and keeps it off the network."""
    return env | {
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "e2e-not-a-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
    }


def claude_command(binary: Path, *args: str, debug_log: Path | None = None) -> list[str]:
    """One non-interactive turn: ``claude -p go --output-format json [--debug-file LOG] ARGS``."""
    cmd = [str(binary), "-p", PROMPT, "--output-format", "json"]
    if debug_log is not None:
        cmd += ["--debug-file", str(debug_log)]
    return cmd + list(args)


def _git(folder: Path, *args: str) -> None:
    import subprocess

    subprocess.run(["git", "-c", "user.email=e2e@example.invalid", "-c", "user.name=e2e", *args], cwd=folder,
                   check=True, capture_output=True, env={"PATH": "/usr/bin:/bin", "HOME": str(folder),
                                                         "GIT_CONFIG_NOSYSTEM": "1"})


def marketplace(root: Path, source: Path) -> Path:
    """A git repository under ``root`` holding ``source``'s plugin files (``.claude-plugin/``,
    ``hooks/``, README.md): the local marketplace a user adds."""
    import shutil

    folder = Path(root) / "hookmux-marketplace"
    if not (Path(source) / ".claude-plugin").is_dir():
        raise FileNotFoundError(f"no plugin manifests at {Path(source) / '.claude-plugin'}")
    shutil.copytree(Path(source) / ".claude-plugin", folder / ".claude-plugin")
    shutil.copytree(Path(source) / "hooks", folder / "hooks", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if (Path(source) / "README.md").is_file():
        shutil.copy(Path(source) / "README.md", folder / "README.md")
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-qm", "hookmux plugin")
    return folder
