"""The benchmark cases B0..B5 and the temporary install they run against.

``BenchSetup`` copies a hooks tree to a temporary target the way
``hookmux install`` does (the shipped manifest's ``hooks_root`` set to the
target), adds the eight bench fixture checks and a bench manifest, generates a
130-skill tree, writes the payloads and a hermetic environment. Every command
line comes from ``hookmux.wiring``, so what is timed is what is installed.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from hookmux import wiring
from hookmux.bench import codex_cases, danger_cases
from hookmux.bench.runner import Invocation
from hookmux.bench.skills_tree import make_agents_tree, make_skills_tree

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "inject_check.py"
FIXTURE_COUNT = 8
AGENT_ONLY_NAME = "prompt-writer"
CONTRA_COMMAND = "git push --force origin main"
# The cases whose checks run in the forked worker, and the suffix of their thread twins.
ISOLATED_CASES = ("B1.dispatch", "B5.new", "B5.plain", "B5.seen")
THREADS_SUFFIX = ".threads"

# (exit code, stdout, stderr) of each process of one run
Outcome = list[tuple[int, str, str]]


@dataclass
class Case:
    name: str
    title: str
    commands: list[str]
    stdin: Callable[[int], str]
    expect: Callable[[Outcome], Optional[str]]
    target: Optional[float] = None
    prime: int = 0  # untimed runs before the output check (B5.seen marks its session seen)
    exits: tuple[int, ...] = (0,)  # exit codes a timed run may end with
    env: Optional[dict] = None  # the environment of its processes, when not the setup's

    def invocations(self, run_index: int, shell: bool) -> list[Invocation]:
        stdin_path = self.stdin(run_index)
        return [Invocation(_argv(command, shell), stdin_path) for command in self.commands]


def _argv(command: str, shell: bool) -> tuple[str, ...]:
    if shell:
        return ("/bin/sh", "-c", command)
    return tuple(wiring.argv(command))


class BenchSetup:
    """A temporary install; use as a context manager (removes itself)."""

    def __init__(self, python: str, hooks_tree: Path, skills: int = 130, precompile: bool = True, agents: int = 60):
        self.python = python
        self.precompile = precompile
        self.source_tree = hooks_tree
        self.skill_count = skills
        self.agent_count = agents
        self.base = Path(tempfile.mkdtemp(prefix="hookmux-bench-"))
        self.target = self.base / "hooks"
        self.work = self.base / "work"
        self.payloads = self.base / "payloads"
        self.outputs = self.base / "outputs"
        self._counter = 0

    def __enter__(self) -> "BenchSetup":
        try:
            self._build()
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.cleanup()

    def cleanup(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

    # -- building ---------------------------------------------------------

    def _build(self) -> None:
        shutil.copytree(self.source_tree, self.target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        shipped = self.target / "_dispatch" / "manifest.json"
        if shipped.is_file():
            manifest = json.loads(shipped.read_text(encoding="utf-8"))
            manifest["hooks_root"] = str(self.target)
            shipped.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        for index in range(1, FIXTURE_COUNT + 1):
            folder = self.target / f"bench-{index}"
            folder.mkdir()
            shutil.copyfile(FIXTURE, folder / "check.py")
        self.bench_manifest = self.base / "bench-manifest.json"
        self.bench_manifest.write_text(json.dumps(bench_manifest(self.target), indent=2) + "\n", encoding="utf-8")
        if self.precompile:
            self._precompile()
        self.skill_roots = make_skills_tree(self.base / "skills", self.skill_count)
        for folder in (self.work, self.payloads, self.outputs, self.base / "home", self.base / "state"):
            folder.mkdir(parents=True, exist_ok=True)
        make_agents_tree(self.base / "home", self.agent_count, AGENT_ONLY_NAME)
        self.env = self._env()
        self._write_payloads()
        codex_cases.prepare(self)
        danger_cases.prepare(self)

    def _precompile(self) -> None:
        """Bytecode for every module of the copy, by the interpreter under test.

        That is the steady state of an install after its first call; without it
        an environment with PYTHONDONTWRITEBYTECODE set would recompile every
        imported hook module on every call.
        """
        subprocess.run(
            [self.python, "-S", "-m", "compileall", "-q", str(self.target)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300, check=False,
        )

    @property
    def runtime_dir(self) -> Path:
        return self.base / "run"

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HOOKMUX_", "CLAUDE_", "AMPLIHACK_", "COPILOT_"))}
        env.update(
            HOME=str(self.base / "home"),
            HOOKMUX_STATE_DIR=str(self.base / "state"),
            XDG_STATE_HOME=str(self.base / "xdg"),
            # The warm pool of the copy lives here too: removing the base ends it.
            HOOKMUX_RUNTIME_DIR=str(self.runtime_dir),
            HOOKMUX_SKILLS_PATH=os.pathsep.join(str(root) for root in self.skill_roots),
            PWD=str(self.work),
        )
        return env

    def _claude(self, event: str, session: str = "bench-session", **fields) -> dict:
        return {
            "session_id": session,
            "transcript_path": str(self.base / "home" / ".claude" / "projects" / "work" / f"{session}.jsonl"),
            "cwd": str(self.work),
            "prompt_id": "bench-prompt",
            "permission_mode": "default",
            "effort": {"level": "medium"},
            "hook_event_name": event,
            **fields,
        }

    def _write_payloads(self) -> None:
        listing = "\n".join(f"-rw-r--r-- 1 user user {n * 37:6d} Nov 30 02:00 file_{n:03d}.py" for n in range(60))
        source = "".join(f"def function_{n}(value):\n    return value * {n}\n\n" for n in range(250))
        payloads = {
            "pre-bash": self._claude(
                "PreToolUse", tool_name="Bash", tool_use_id="toolu_bench_1",
                tool_input={"command": "ls -la src", "description": "List the source folder"},
            ),
            "pre-read": self._claude(
                "PreToolUse", tool_name="Read", tool_use_id="toolu_bench_2",
                tool_input={"file_path": str(self.work / "README.md")},
            ),
            "batch-no-skill": self._claude(
                "PostToolBatch",
                tool_calls=[
                    {"tool_name": "Bash", "tool_use_id": "toolu_bench_3",
                     "tool_input": {"command": "ls -la src", "description": "List the source folder"},
                     "tool_response": {"stdout": listing, "stderr": "", "interrupted": False}},
                    {"tool_name": "Read", "tool_use_id": "toolu_bench_4",
                     "tool_input": {"file_path": str(self.work / "src" / "module.py")},
                     "tool_response": {"type": "text", "file": {"content": source}}},
                ],
            ),
            "batch-skill-hit": self._claude(
                "PostToolBatch",
                tool_calls=[
                    {"tool_name": "Skill", "tool_use_id": "toolu_bench_5",
                     "tool_input": {"skill": AGENT_ONLY_NAME},
                     "tool_response": f"<tool_use_error>Unknown skill: {AGENT_ONLY_NAME}</tool_use_error>"},
                ],
            ),
            "copilot-pre-skill-hit": {
                "sessionId": "bench-session", "timestamp": 1796000000000, "cwd": str(self.work),
                "toolName": "skill", "toolArgs": {"skill": AGENT_ONLY_NAME},
            },
            "pre-contra-seen": self._contra_payload("bench-seen-session"),
        }
        for name, payload in payloads.items():
            self.payload(name).write_text(json.dumps(payload) + "\n", encoding="utf-8")

    def _contra_payload(self, session: str) -> dict:
        return self._claude(
            "PreToolUse", session=session, tool_name="Bash", tool_use_id="toolu_bench_6",
            tool_input={"command": CONTRA_COMMAND, "description": "Push"},
        )

    def payload(self, name: str) -> Path:
        return self.payloads / f"{name}.json"

    def fresh_contra_payload(self, run_index: int) -> str:
        """A contraindicated command in a session never seen before."""
        self._counter += 1
        path = self.payloads / "pre-contra-new.json"
        session = f"bench-new-{self._counter}-{uuid.uuid4().hex[:8]}"
        path.write_text(json.dumps(self._contra_payload(session)) + "\n", encoding="utf-8")
        return str(path)

    # -- cases ------------------------------------------------------------

    def cases(self) -> list[Case]:
        py, target = self.python, self.target
        q = shlex.quote
        fixed = lambda name: (lambda _run: str(self.payload(name)))  # noqa: E731
        dispatch_pre = wiring.dispatcher_command(py, target, "PreToolUse", ["--manifest", str(self.bench_manifest)])
        markers = [f"bench-{i}:" for i in range(1, FIXTURE_COUNT + 1)]
        separate = [
            wiring.hook_command(py, target / f"bench-{i}" / "check.py", "PreToolUse") for i in range(1, FIXTURE_COUNT + 1)
        ]
        return [
            Case("B0", "floor: python -S -c pass", [f"{q(py)} -S -c pass"], fixed("pre-bash"), expect_exit0),
            Case("B0.site", "python -c pass (site on)", [f"{q(py)} -c pass"], fixed("pre-bash"), expect_exit0),
            Case("B1.dispatch", "dispatcher, 8 inject checks selected", [dispatch_pre], fixed("pre-bash"),
                 expect_context(markers), target=3.0),
            Case("B1.separate", "the 8 checks as 8 hook processes at once", separate, fixed("pre-bash"),
                 expect_each_context(markers)),
            Case("B2", "dispatcher, no row selected", [dispatch_pre], fixed("pre-read"), expect_silent, target=2.5),
            Case("B3.pre", "gate, PreToolUse without a Skill call", [wiring.gate_command(py, target, "PreToolUse")],
                 fixed("pre-bash"), expect_silent, target=1.3),
            Case("B3.batch", "gate, PostToolBatch without a Skill call",
                 [wiring.gate_command(py, target, "PostToolBatch")], fixed("batch-no-skill"), expect_silent, target=1.3),
            Case("B4.pre", f"gate, Copilot preToolUse agent-only hit, {self.skill_count} skills, {self.agent_count} agents",
                 [wiring.gate_command(py, target, "preToolUse")], fixed("copilot-pre-skill-hit"), expect_deny, target=3.0),
            Case("B4.batch", f"gate, PostToolBatch agent-only hit, {self.agent_count} agents",
                 [wiring.gate_command(py, target, "PostToolBatch")], fixed("batch-skill-hit"),
                 expect_context([AGENT_ONLY_NAME]), target=3.0),
            Case("B5.new", "shipped manifest, contraindicated, new session (advises)",
                 [wiring.dispatcher_command(py, target, "PreToolUse")], self.fresh_contra_payload,
                 expect_context([])),
            Case("B5.plain", "shipped manifest, an ordinary shell command (silent)",
                 [wiring.dispatcher_command(py, target, "PreToolUse")], fixed("pre-bash"), expect_silent),
            Case("B5.seen", "shipped manifest, contraindicated, seen session (silent)",
                 [wiring.dispatcher_command(py, target, "PreToolUse")], fixed("pre-contra-seen"), expect_silent,
                 prime=1),
            *codex_cases.cases(self, Case, expect_silent, expect_context, _json_lines),
            *danger_cases.cases(self, Case, expect_silent, _json_lines),
        ]

    def thread_twins(self, cases: list[Case]) -> list[Case]:
        """B1.dispatch and B5.* again with the checks in threads of the dispatcher's own process
        (``HOOKMUX_ISOLATION=0``, the runner before issue 17): what the forked worker costs."""
        env = {**self.env, "HOOKMUX_ISOLATION": "0"}
        return [
            dataclasses.replace(case, name=case.name + THREADS_SUFFIX, title=case.title + ", checks in threads",
                                target=None, env=env)
            for case in cases if case.name in ISOLATED_CASES
        ]

    def output_files(self, case: Case) -> list[tuple[str, str]]:
        return [
            (str(self.outputs / f"{case.name}.{i}.out"), str(self.outputs / f"{case.name}.{i}.err"))
            for i in range(len(case.commands))
        ]


def bench_manifest(hooks_root: Path) -> dict:
    """Eight inject-only bench rows on PreToolUse, selected for shell tools."""
    return {
        "version": 1,
        "hooks_root": str(hooks_root),
        "events": {
            "PreToolUse": {
                "settings_matcher": "*",
                "settings_timeout": 10,
                "checks": [
                    {
                        "name": f"bench-{i}/check",
                        "script": f"bench-{i}/check.py",
                        "args": [],
                        "timeout": 8,
                        "matcher": "^(Bash|PowerShell)$",
                        "isolate": [],
                        "side_effect": "none",
                        "emits": True,
                        "slow": False,
                    }
                    for i in range(1, FIXTURE_COUNT + 1)
                ],
            }
        },
    }


# -- what each case must print (checked once before timing) ----------------


def _json_lines(text: str) -> list[dict]:
    found = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def _context(value: dict) -> str:
    nested = value.get("hookSpecificOutput")
    if isinstance(nested, dict) and isinstance(nested.get("additionalContext"), str):
        return nested["additionalContext"]
    top = value.get("additionalContext")
    return top if isinstance(top, str) else ""


def expect_exit0(outcome: Outcome) -> Optional[str]:
    for code, _out, err in outcome:
        if code != 0:
            return f"exit {code}: {err.strip()[-300:]}"
    return None


def expect_silent(outcome: Outcome) -> Optional[str]:
    problem = expect_exit0(outcome)
    if problem:
        return problem
    for _code, out, _err in outcome:
        if out.strip():
            return f"expected no output, got {out.strip()[:200]!r}"
    return None


def expect_context(markers: list[str]) -> Callable[[Outcome], Optional[str]]:
    def check(outcome: Outcome) -> Optional[str]:
        problem = expect_exit0(outcome)
        if problem:
            return problem
        for _code, out, _err in outcome:
            contexts = [_context(value) for value in _json_lines(out)]
            contexts = [c for c in contexts if c]
            if len(contexts) != 1:
                return f"expected one additionalContext line, got {out.strip()[:200]!r}"
            missing = [m for m in markers if m not in contexts[0]]
            if missing:
                return f"context lacks {missing}: {contexts[0][:200]!r}"
        return None

    return check


def expect_each_context(markers: list[str]) -> Callable[[Outcome], Optional[str]]:
    def check(outcome: Outcome) -> Optional[str]:
        if len(outcome) != len(markers):
            return f"expected {len(markers)} processes, got {len(outcome)}"
        for marker, one in zip(markers, outcome):
            problem = expect_context([marker])([one])
            if problem:
                return problem
        return None

    return check


def expect_deny(outcome: Outcome) -> Optional[str]:
    for code, out, err in outcome:
        if code not in (0, 2):
            return f"exit {code}: {err.strip()[-300:]}"
        for value in _json_lines(out):
            decision = value.get("hookSpecificOutput", value)
            if isinstance(decision, dict) and decision.get("permissionDecision") == "deny":
                if AGENT_ONLY_NAME in str(decision.get("permissionDecisionReason", "")):
                    return None
        return f"expected a JSON deny naming {AGENT_ONLY_NAME}, got {out.strip()[:200]!r}"
    return "no process"
