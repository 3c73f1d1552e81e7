"""Shared pieces of the installer tests: a realistic user settings file, a hooks tree to install
from, and ``hookmux`` run as a subprocess with a temporary HOME."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

from pathlib import Path

from hookmux_testing import HOOKS, REPO, hermetic_env

USER_SETTINGS = """{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(git status)", "Read(~/notes/**)"],
    "deny": ["Read(./.env)"],
    "defaultMode": "acceptEdits"
  },
  "env": {"EDITOR": "vim", "GREETING": "h\u00e9llo w\u00f6rld"},
  "statusLine": {"type": "command", "command": "~/.claude/statusline.sh", "padding": 0},
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "python3 ~/.claude/hooks/my_guard.py", "timeout": 5}]
      }
    ],
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send 'claude is done'"}]}
    ]
  },
  "someFutureKey": {"nested": [1, 2.5, null, true, "x"]},
  "model": "opus"
}
"""

SAMPLE_CHECK = '''import json, sys


def main():
    payload = json.load(sys.stdin)
    print(json.dumps({"additionalContext": "sample saw " + str(payload.get("tool_name") or payload.get("toolName") or payload.get("hook_event_name"))}))
'''


def make_source(root: Path, manifest_patch=None) -> Path:
    """A copy of the package's hooks tree whose manifest runs one sample check on PreToolUse
    (Bash) and on Stop, so these tests do not depend on the shipped checks."""
    source = root / "source-hooks"
    shutil.copytree(HOOKS, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (source / "sample").mkdir(exist_ok=True)
    (source / "sample" / "check.py").write_text(SAMPLE_CHECK)
    manifest = {
        "version": 1,
        "hooks_root": "~/.claude/hooks",
        "events": {
            "PreToolUse": {"settings_matcher": "*", "settings_timeout": 10, "checks": [
                {"name": "sample/check", "script": "sample/check.py", "timeout": 8, "matcher": "^Bash$"}]},
            "Stop": {"settings_timeout": 10, "checks": [
                {"name": "sample/stop", "script": "sample/check.py", "timeout": 8}]},
        },
    }
    if manifest_patch:
        manifest_patch(manifest)
    (source / "_dispatch" / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return source


class Home:
    """A temporary HOME with ``hookmux`` runnable against it."""

    def __init__(self, tmp_path: Path):
        self.root = tmp_path
        self.env = hermetic_env(tmp_path)
        self.home = Path(self.env["HOME"])
        self.claude = self.home / ".claude"
        self.settings = self.claude / "settings.json"
        self.target = self.claude / "hooks"
        self.copilot_dir = self.home / ".copilot" / "hooks"
        self.source = make_source(tmp_path)

    def write_settings(self, text: str = USER_SETTINGS) -> bytes:
        self.settings.parent.mkdir(parents=True, exist_ok=True)
        self.settings.write_text(text, encoding="utf-8")
        return self.settings.read_bytes()

    def hookmux(self, *args: str, env: dict | None = None, check: bool = False) -> subprocess.CompletedProcess:
        result = subprocess.run([sys.executable, "-m", "hookmux.cli", *args], capture_output=True, text=True,
                                env=env or self.env, cwd=str(REPO), timeout=120)
        if check:
            assert result.returncode == 0, result.stderr + result.stdout
        return result

    def install(self, *extra: str, check: bool = True, source: bool = True) -> subprocess.CompletedProcess:
        args = ["install", "--target", str(self.target), "--settings", str(self.settings)]
        if source:
            args += ["--source", str(self.source)]
        return self.hookmux(*args, *extra, check=check)

    def uninstall(self, *extra: str, check: bool = True) -> subprocess.CompletedProcess:
        return self.hookmux("uninstall", "--target", str(self.target), "--settings", str(self.settings),
                            *extra, check=check)


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under root: (kind, bytes or link target, mode)."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            rel = str(path.relative_to(root))
            st = os.lstat(path)
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path), st.st_mode)
            elif path.is_dir():
                out[rel] = ("dir", None, st.st_mode)
            else:
                out[rel] = ("file", path.read_bytes(), st.st_mode, st.st_mtime_ns)
    return out


def hookmux_commands(settings: dict, key: str = "command") -> list[tuple[str, str]]:
    """(event, command) of every hook entry whose command runs a script with -S."""
    out = []
    for event, items in settings.get("hooks", {}).items():
        for item in items:
            for hook in item.get("hooks", [item]):
                if " -S " in hook.get(key, ""):
                    out.append((event, hook[key]))
    return out


def without_hookmux(settings: dict) -> dict:
    """The settings with every entry that runs ``-S .../dispatch.py`` or the gate removed, and
    containers left empty by that removed."""
    data = json.loads(json.dumps(settings))
    hooks = data.get("hooks", {})
    for event in list(hooks):
        groups = []
        for group in hooks[event]:
            group["hooks"] = [h for h in group["hooks"] if " -S " not in h.get("command", "")]
            if group["hooks"]:
                groups.append(group)
        if groups:
            hooks[event] = groups
        else:
            del hooks[event]
    return data
