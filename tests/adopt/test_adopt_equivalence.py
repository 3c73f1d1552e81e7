""""Adoptable" means the same advice: every adoptable shape of the corpus, run standalone the way
a host runs it and as the row ``hookmux adopt`` writes behind the real dispatcher, gives the
model the same context."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hook_corpus import CORPUS
from hookmux.adopt.analysis import ADOPTABLE
from hookmux.adopt.discover import Entry
from hookmux.adopt.plan import classify
from hookmux.installer.wiring_files import CLAUDE, COPILOT
from hookmux_testing import DISPATCH

ADOPTABLE_SHAPES = [s for s in CORPUS if s.kind == ADOPTABLE]
COMMAND = "rm -rf build"


def _payload(event: str) -> dict:
    if event[0].islower():  # Copilot's own dialect
        return {"sessionId": "s", "timestamp": 1, "cwd": "/tmp", "toolName": "bash",
                "toolArgs": json.dumps({"command": COMMAND})}
    payload = {"session_id": "s", "transcript_path": "", "cwd": "/tmp", "hook_event_name": event}
    if event.endswith("ToolUse"):
        payload.update(tool_name="Bash", tool_input={"command": COMMAND}, tool_use_id="t")
    return payload


def _objects(stdout: str) -> list:
    """What a host reads from a hook's stdout: all of it as one JSON value (as Claude Code does),
    else each line that is JSON."""
    try:
        return [json.loads(stdout)] if stdout.strip() else []
    except ValueError:
        pass
    found = []
    for line in stdout.splitlines():
        try:
            found.append(json.loads(line))
        except ValueError:
            continue
    return found


def _contexts(stdout: str) -> list[str]:
    found = []
    for value in _objects(stdout):
        if isinstance(value, dict):
            nested = value.get("hookSpecificOutput") or {}
            context = value.get("additionalContext") or nested.get("additionalContext")
            if context:
                found.append(context)
    return found


@pytest.mark.parametrize("shape", ADOPTABLE_SHAPES, ids=lambda s: s.name)
def test_same_context_standalone_and_behind_the_dispatcher(tmp_path, shape, env):
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True, env=env)  # one shape asks git
    script = tmp_path / "hook.py"
    script.write_text(shape.source)
    copilot = shape.event[0].islower()
    host = COPILOT if copilot else CLAUDE
    command = f"{sys.executable} {script} alpha beta"
    hook = {"type": "command", host.dialect.command_key: command}
    entry = Entry(tmp_path / "settings.json", host, shape.event, None if copilot else 0, 0,
                  "bash" if copilot else ("Bash" if shape.event.endswith("ToolUse") else None), hook)
    candidate = classify(entry, None, None)
    assert candidate.kind == ADOPTABLE and candidate.row is not None, candidate.reason
    payload = json.dumps(_payload(shape.event))

    alone = subprocess.run(command, shell=True, input=payload, capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=60)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"version": 1, "hooks_root": str(tmp_path),
                                    "events": {candidate.event: {"checks": [candidate.row]}}}))
    behind = subprocess.run([sys.executable, "-S", "-E", str(DISPATCH), "--manifest", str(manifest), shape.event],
                            input=payload, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)

    assert behind.returncode == 0
    expected = _contexts(alone.stdout)
    assert expected, f"the shape gives no context standalone: {alone.stdout!r} {alone.stderr!r}"
    assert _contexts(behind.stdout) == ["\n\n".join(expected)]


DIFFERS = ["reads-argv0", "reads-argv-in-body", "writes-fd-1", "writes-dunder-stdout", "indented-json", "os-exit"]


@pytest.mark.parametrize("name", DIFFERS)
def test_the_differences_the_classifier_refuses_are_real(tmp_path, name, env):
    """Forced behind the dispatcher anyway, these shapes do not give the model what they give it
    standalone (or end the dispatcher)."""
    shape = next(s for s in CORPUS if s.name == name)
    script = tmp_path / "hook.py"
    script.write_text(shape.source)
    payload = json.dumps(_payload(shape.event))
    alone = subprocess.run([sys.executable, str(script)], input=payload, capture_output=True, text=True, env=env,
                           timeout=60)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"version": 1, "hooks_root": str(tmp_path), "events": {shape.event: {
        "checks": [{"name": "forced", "script": str(script)}]}}}))
    behind = subprocess.run([sys.executable, "-S", "-E", str(DISPATCH), "--manifest", str(manifest), shape.event],
                            input=payload, capture_output=True, text=True, env=env, timeout=60)
    assert _contexts(alone.stdout), alone
    assert _contexts(behind.stdout) != _contexts(alone.stdout)
