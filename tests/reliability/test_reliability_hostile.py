"""Hostile environments around an installed hookmux (issue 20, issue 17's wiring): every wired
command line, run through sh and bash the way the hosts run it, after what a user's machine does
to an install — the hooks folder deleted or moved, a script deleted, the venv deleted, the
interpreter no longer executable, ``PYTHONPATH=.`` in a project with its own ``json.py`` or
``re.py``.

Holds: exit 0, no traceback on stdout, and stdout either empty (nothing can run) or exactly
what the intact install prints for that payload (PYTHONPATH must change nothing).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hookmux_testing import REPO, hermetic_env
from reliability_support import (CLAUDE_PRE_BASH, CLAUDE_PRE_SKILL, CLAUDE_BATCH, COPILOT_PRE_BASH,
                                 COPILOT_PRE_SKILL, case)

SUITE = "Hostile environments (wired commands)"
SHELLS = ("sh", "bash")
PAYLOADS = {"claude": (CLAUDE_PRE_BASH, CLAUDE_PRE_SKILL, CLAUDE_BATCH), "copilot": (COPILOT_PRE_BASH, COPILOT_PRE_SKILL)}
SCENARIOS = ("hooks folder deleted", "hooks folder moved", "dispatcher script deleted", "gate script deleted",
             "venv deleted", "interpreter not executable", "PYTHONPATH json.py", "PYTHONPATH re.py")


class Install:
    def __init__(self, root: Path):
        self.root = root
        self.env = hermetic_env(root, HOOKMUX_CONTRA_TTL="0")  # advise every time: runs compare equal
        home = Path(self.env["HOME"])
        self.target = home / ".claude" / "hooks"
        self.settings = home / ".claude" / "settings.json"
        self.copilot = home / ".copilot" / "hooks"
        self.venv = root / "venv"
        self.project = root / "project"
        self.project.mkdir()
        for name in ("prompt-writer", "architect", "builder"):  # the agents the payloads' Skill calls name
            for path in (home / ".claude" / "agents" / f"{name}.md", home / ".copilot" / "agents" / f"{name}.agent.md"):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(f"---\nname: {name}\ndescription: e2e agent\n---\nDo it.\n")
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(self.venv)], check=True, timeout=120)
        proc = subprocess.run([sys.executable, "-m", "hookmux.cli", "install", "--target", str(self.target),
                               "--settings", str(self.settings), "--copilot-hooks-dir", str(self.copilot),
                               "--python", str(self.venv / "bin" / "python")],
                              capture_output=True, text=True, env=self.env, cwd=str(REPO), timeout=120)
        assert proc.returncode == 0, proc.stderr

    def commands(self) -> list[tuple[str, str]]:
        """(host, command) of every wired entry."""
        out = []
        for host, path, key in (("claude", self.settings, "command"), ("copilot", self.copilot / "hookmux.json", "bash")):
            for items in json.loads(path.read_text())["hooks"].values():
                for item in items:
                    out += [(host, hook[key]) for hook in item.get("hooks", [item])]
        return out

    def run(self, shell: str, command: str, payload: dict, env: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([shell, "-c", command], input=json.dumps(payload).encode(), capture_output=True,
                              env=env or self.env, cwd=str(self.project), timeout=60)


def _break(install: Install, scenario: str) -> dict:
    """Do to the install what the scenario says; returns the environment to run the hooks in."""
    env = install.env
    if scenario == "hooks folder deleted":
        shutil.rmtree(install.target)
    elif scenario == "hooks folder moved":
        install.target.rename(install.target.with_name("hooks.old"))
    elif scenario == "dispatcher script deleted":
        (install.target / "_dispatch" / "dispatch.py").unlink()
    elif scenario == "gate script deleted":
        (install.target / "skill-redirect" / "skill_redirect.py").unlink()
    elif scenario == "venv deleted":
        shutil.rmtree(install.venv)
    elif scenario == "interpreter not executable":
        python = install.venv / "bin" / "python"
        real = Path(os.path.realpath(python))
        python.unlink()
        shutil.copyfile(real, python)  # a copy without the executable bit
        os.chmod(python, 0o644)
    else:
        module = scenario.split()[-1]
        (install.project / module).write_text(
            f"open({str(install.project / 'imported')!r}, 'w').write('x')\nraise SystemExit(3)\n")
        env = dict(env, PYTHONPATH=".")
    return env


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_wired_commands_fail_open(tmp_path, scenario):
    install = Install(tmp_path)
    intact = {(shell, command, i): install.run(shell, command, payload).stdout
              for host, command in install.commands() for i, payload in enumerate(PAYLOADS[host])
              for shell in SHELLS[:1]}
    assert sum(bool(out) for out in intact.values()) >= 4, intact  # the advisories and the gate's denies
    env = _break(install, scenario)
    keeps_output = scenario.startswith("PYTHONPATH")
    for host, command in install.commands():
        for i, payload in enumerate(PAYLOADS[host]):
            for shell in SHELLS:
                with case(SUITE):
                    out = install.run(shell, command, payload, env)
                    assert out.returncode == 0, (scenario, command, out)
                    assert b"Traceback" not in out.stdout
                    if keeps_output:
                        assert out.stdout == intact["sh", command, i], (scenario, command, out)
                    elif "script deleted" in scenario and scenario.split()[0] not in (
                            "dispatcher" if "dispatch.py" in command else "gate"):
                        assert out.stdout == intact["sh", command, i]  # the other script still works
                    else:
                        assert out.stdout == b"", (scenario, command, out)
    assert not (install.project / "imported").exists()


# ------------------------------------------------------------------ hostile commands to the reader (issue 26)

READER_SUITE = "Hostile commands: the advisory's shell reader"
HOSTILE_COMMANDS = {
    "1 MB of words": "a " * 500_000,
    "10,000 nested $(": "echo " + "$(" * 10_000,
    "unterminated quote": "rm -rf '/home/user" + " x" * 20_000,
    "NULs": "rm\0 -rf /\0" * 20_000,
    "invalid UTF-8 made text": (b"\xff\xfe rm -rf / \xc3(" * 20_000).decode("utf-8", "replace"),
    "heredoc of 100 KB": "bash <<EOF\n" + "echo $(date)\n" * 8_000 + "EOF",
    "nested shells": "sh -c '" * 5_000,
    "backslashes": "\\" * 200_001,
}


@pytest.mark.parametrize("shape", sorted(HOSTILE_COMMANDS))
def test_hostile_commands_to_the_advisory(tmp_path, shape):
    """The real check process on a Bash call with each command: exit 0 within seconds, no
    traceback, stdout empty or one advisory line."""
    check = REPO / "hooks" / "contraindication" / "check.py"
    payload = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                          "cwd": str(tmp_path), "tool_input": {"command": HOSTILE_COMMANDS[shape]}})
    with case(READER_SUITE):
        out = subprocess.run([sys.executable, "-S", str(check), "PreToolUse"], input=payload.encode(),
                             capture_output=True, env=hermetic_env(tmp_path), timeout=30)
        assert out.returncode == 0 and out.stderr == b"" and b"Traceback" not in out.stdout
        lines = out.stdout.splitlines()
        assert len(lines) <= 1
        if lines:
            assert "additionalContext" in json.loads(lines[0])["hookSpecificOutput"]
