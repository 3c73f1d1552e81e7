"""Bench cases B6.*: the command lines ``hookmux install --codex-home`` wires for OpenAI Codex CLI.

The commands come from ``installer.codex_hooks.entries`` for the copied shipped manifest, so
what is timed is what Codex runs; the payloads are Codex 0.169.0's (``turn_id``, ``model``,
``spawn_agent``). The gate cases need a CODEX_HOME: the setup's own, with one skill and one
agent.
"""
from __future__ import annotations

import json
import uuid
from pathlib import Path

from hookmux.installer import codex_hooks

SKILL = "pdf-report"
AGENT = "reviewer"


def prepare(setup) -> None:
    """A CODEX_HOME with a skill and an agent, and the Codex payloads."""
    home = Path(setup.base) / "codex-home"
    skill = home / "skills" / SKILL
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: {SKILL}\ndescription: bench skill\n---\nSteps.\n", encoding="utf-8")
    (home / "agents").mkdir()
    (home / "agents" / f"{AGENT}.toml").write_text(f'name = "{AGENT}"\ndescription = "bench agent"\n', encoding="utf-8")
    setup.env["CODEX_HOME"] = str(home)
    payloads = {
        "codex-pre-bash": _payload(setup, "Bash", {"command": "ls -la src"}),
        "codex-pre-contra": _payload(setup, "Bash", {"command": "git push --force origin main"}),
        "codex-spawn-agent": _payload(setup, "spawn_agent", {"agent_type": AGENT, "message": "Review."}),
        "codex-spawn-skill": _payload(setup, "spawn_agent", {"agent_type": SKILL, "message": "Do it."}),
    }
    for name, payload in payloads.items():
        setup.payload(name).write_text(json.dumps(payload), encoding="utf-8")


def _payload(setup, tool: str, tool_input: dict, session: str = "codex-bench") -> dict:
    return {"session_id": session, "turn_id": "codex-bench-turn",
            "transcript_path": str(Path(setup.base) / "home" / ".codex" / "sessions" / f"{session}.jsonl"),
            "cwd": str(setup.work), "hook_event_name": "PreToolUse", "model": "gpt-4.1",
            "permission_mode": "bypassPermissions", "tool_name": tool, "tool_input": tool_input,
            "tool_use_id": "call_bench_1"}


def expect_deny_of(name: str, json_lines):
    def check(outcome) -> str | None:
        for code, out, err in outcome:
            if code != 0:
                return f"exit {code}: {err.strip()[-300:]}"
            for value in json_lines(out):
                decision = value.get("hookSpecificOutput")
                if (list(value) == ["hookSpecificOutput"] and isinstance(decision, dict)
                        and decision.get("permissionDecision") == "deny"
                        and name in str(decision.get("permissionDecisionReason", ""))):
                    return None
            return f"expected Codex's nested JSON deny naming {name}, got {out.strip()[:200]!r}"
        return "no process"

    return check


def cases(setup, case_type, expect_silent, expect_context, json_lines) -> list:
    manifest = json.loads((Path(setup.target) / "_dispatch" / "manifest.json").read_text(encoding="utf-8"))
    wired = {entry.role: entry.command for entry in codex_hooks.entries(manifest, str(setup.target), setup.python)
             if entry.event == "PreToolUse"}
    fixed = lambda name: (lambda _run: str(setup.payload(name)))  # noqa: E731
    fresh = 0

    def fresh_contra(_run: int) -> str:
        nonlocal fresh
        fresh += 1
        path = setup.payloads / "codex-pre-contra-new.json"
        session = f"codex-bench-new-{fresh}-{uuid.uuid4().hex[:8]}"  # never seen, however often cases() is built
        payload = _payload(setup, "Bash", {"command": "git push --force origin main"}, session)
        path.write_text(json.dumps(payload), encoding="utf-8")
        return str(path)

    return [
        case_type("B6.plain", "Codex: dispatcher, an ordinary shell command (silent)", [wired["dispatch"]],
                  fixed("codex-pre-bash"), expect_silent),
        case_type("B6.new", "Codex: dispatcher, contraindicated, new session (advises)", [wired["dispatch"]],
                  fresh_contra, expect_context([])),
        case_type("B6.agent", "Codex: gate, spawn_agent of a real agent (silent)", [wired["gate"]],
                  fixed("codex-spawn-agent"), expect_silent),
        case_type("B6.skill", "Codex: gate, spawn_agent naming a skill (denies)", [wired["gate"]],
                  fixed("codex-spawn-skill"), expect_deny_of(SKILL, json_lines)),
    ]


CASE_NAMES = ("B6.plain", "B6.new", "B6.agent", "B6.skill")
