"""A user with their own Python hooks on Bash, hookmux installed over them, and ``hookmux`` run
the way a user runs it (a subprocess with a temporary HOME)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hookmux_testing import hermetic_env

ADVISE_GIT = '''#!/usr/bin/env python3
"""Advise on git commands."""
import json
import sys


def main():
    payload = json.load(sys.stdin)
    command = payload.get("tool_input", {}).get("command", "")
    if command.startswith("git"):
        out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "ADVICE-GIT: pull first"}}
        print(json.dumps(out))


if __name__ == "__main__":
    main()
'''

ADVISE_ECHO = '''#!/usr/bin/env -S python3 -u
import json, sys


def main() -> int:
    data = json.loads(sys.stdin.read() or "{}")
    if "echo" in data.get("tool_input", {}).get("command", ""):
        sys.stdout.write(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                            "additionalContext": "ADVICE-ECHO: quote it"}}) + "\\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

BLOCK_RM = '''import json, sys

DENY = 2


def main():
    command = json.load(sys.stdin).get("tool_input", {}).get("command", "")
    if "rm -rf /" in command:
        print("BLOCKED-RM: refusing rm -rf /", file=sys.stderr)
        sys.exit(DENY)


if __name__ == "__main__":
    main()
'''

SHELL_HOOK = '''#!/bin/sh
cat >/dev/null
echo "$(date +%s) bash call" >> "$HOME/shell-hook.log"
'''


def write_user_hooks(home: Path) -> dict[str, Path]:
    folder = home / ".claude" / "my-hooks"
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, text in (("advise_git.py", ADVISE_GIT), ("advise_echo.py", ADVISE_ECHO), ("block_rm.py", BLOCK_RM),
                       ("log.sh", SHELL_HOOK)):
        path = folder / name
        path.write_text(text)
        path.chmod(0o755)
        paths[name] = path
    return paths


def settings_text(home: Path, python: str = "python3") -> str:
    """Three Python hooks on Bash in three spellings (two advisory, one blocker) and a shell hook,
    in a hand-made layout the restore must keep byte for byte."""
    hooks = home / ".claude" / "my-hooks"
    return (
        '{\n'
        '    "model": "opus",\n'
        '    "hooks": {\n'
        '        "PreToolUse": [\n'
        '            {\n'
        '                "matcher": "Bash",\n'
        '                "hooks": [\n'
        f'                    {{"type": "command", "command": "{python} {hooks}/advise_git.py", "timeout": 10}},\n'
        f'                    {{"type": "command", "command": "{hooks}/advise_echo.py", "timeout": 7}},\n'
        f'                    {{"type": "command", "command": "{python} \\"{hooks}/block_rm.py\\"", "timeout": 10}}\n'
        '                ]\n'
        '            },\n'
        '            {"matcher": "Bash", "hooks": [{"type": "command", "command": "sh ' + str(hooks) + '/log.sh"}]}\n'
        '        ]\n'
        '    },\n'
        '    "env": {"A": "1"}\n'
        '}\n'
    )


def hookmux(env: dict, *args, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "hookmux.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=120)
    if check and proc.returncode != 0:
        words = " ".join(map(str, args))
        raise AssertionError(f"hookmux {words} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def user(tmp_path: Path) -> tuple[dict, Path, Path]:
    """(env, settings, target) for a user whose settings hold the hooks above."""
    env = hermetic_env(tmp_path)
    home = Path(env["HOME"])
    write_user_hooks(home)
    settings = home / ".claude" / "settings.json"
    settings.write_text(settings_text(home))
    return env, settings, home / ".claude" / "hooks"


def manifest_rows(target: Path, event: str = "PreToolUse") -> list[dict]:
    return json.loads((target / "_dispatch" / "manifest.json").read_text())["events"][event]["checks"]
