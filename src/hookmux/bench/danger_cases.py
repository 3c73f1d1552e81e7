"""B9: the danger gate (hooks/danger-gate) as installed, on a harmless shell call, on a git call no
row blocks, and on two hazards it denies: a recursive delete of the bench HOME's Documents folder
and ``git reset --hard`` over an uncommitted change in a throwaway repository. The hazards are
payloads the gate judges; nothing runs them."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hookmux import wiring

DANGER_SCRIPT = ("danger-gate", "danger_gate.py")
HARMLESS = "ls -la src"
GIT_HARMLESS = "git status --short"
HAZARD = "rm -rf ~/Documents"
GIT_HAZARD = "git reset --hard"


def command(setup, *options: str) -> str:
    return wiring.hook_command(setup.python, Path(setup.target).joinpath(*DANGER_SCRIPT), "PreToolUse", options)


def prepare(setup) -> None:
    """HOME/Documents, a repository with an uncommitted change, and the payloads."""
    (Path(setup.base) / "home" / "Documents").mkdir(parents=True, exist_ok=True)
    repo = Path(setup.base) / "danger-repo"
    repo.mkdir()
    env = {**setup.env, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
    for args in (["init", "-q"], ["config", "user.email", "bench@example.invalid"], ["config", "user.name", "b"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    (repo / "work.txt").write_text("one\n")
    subprocess.run(["git", "add", "work.txt"], cwd=repo, env=env, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-q", "-m", "one"], cwd=repo, env=env, check=True, capture_output=True)
    (repo / "work.txt").write_text("two, not committed\n")
    payloads = {
        "danger-plain": (HARMLESS, setup.work),
        "danger-git-plain": (GIT_HARMLESS, repo),
        "danger-hazard": (HAZARD, setup.work),
        "danger-git-hazard": (GIT_HAZARD, repo),
    }
    for name, (text, cwd) in payloads.items():
        payload = setup._claude("PreToolUse", tool_name="Bash", tool_use_id="toolu_bench_danger",
                                tool_input={"command": text, "description": "bench"})
        payload["cwd"] = str(cwd)
        setup.payload(name).write_text(json.dumps(payload) + "\n", encoding="utf-8")


def expect_deny_naming(word: str, json_lines):
    def check(outcome) -> str | None:
        for code, out, err in outcome:
            if code != 0:
                return f"exit {code}: {err.strip()[-300:]}"
            for value in json_lines(out):
                decision = value.get("hookSpecificOutput", {})
                if decision.get("permissionDecision") == "deny" and word in decision.get("permissionDecisionReason", ""):
                    return None
            return f"expected a deny naming {word!r}, got {out.strip()[:200]!r}"
        return "no process"

    return check


def cases(setup, case_type, expect_silent, json_lines) -> list:
    fixed = lambda name: (lambda _run: str(setup.payload(name)))  # noqa: E731
    gate = command(setup)
    return [
        case_type("B9.plain", "danger gate, an ordinary shell command (silent)", [gate], fixed("danger-plain"),
                  expect_silent, target=1.3),
        case_type("B9.git", "danger gate, git status (read, no row blocks)", [gate], fixed("danger-git-plain"),
                  expect_silent),
        case_type("B9.hazard", "danger gate, rm -rf of HOME's Documents (denies)", [gate], fixed("danger-hazard"),
                  expect_deny_naming("Documents", json_lines), target=3.0),
        case_type("B9.githazard", "danger gate, git reset --hard over a change (asks git, denies)", [gate],
                  fixed("danger-git-hazard"), expect_deny_naming("uncommitted", json_lines)),
    ]
