"""Issue 42: which Bash calls start a command hook whose entry carries an `if` condition (docs/e2e.md)."""
from __future__ import annotations

import json

import pytest

from e2e_fixtures import claude_cli, hookmux_installer, sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import ToolUse

CONDITIONS = {"plain": "Bash(git *)", "pathed": "Bash(*/echo *)"}


@pytest.mark.parametrize("command,expected", [
    ("echo hi", set()),
    ("git status", {"plain"}),
    ("echo a && git status", {"plain"}),
    ("/bin/echo hi", {"pathed"}),
])
def test_if_condition_filters_per_part(claude_cli, sandbox, command, expected):
    assert set(_started(claude_cli, sandbox, CONDITIONS, command)) == expected


def _started(claude_cli, sandbox, conditions, command, dup=()):
    """Tags of the hooks Claude Code started for one Bash call, one per start."""
    log = sandbox.root / "started.log"
    entries = [{"matcher": "Bash", "hooks": [{"type": "command", "if": cond,
                                              "command": f"printf '{tag} ' >> '{log}'"}]}
               for tag, cond in conditions.items()]
    entries += [{"matcher": "Bash", "hooks": [{"type": "command", "if": cond, "command": f"printf 'dup ' >> '{log}'"}]}
                for cond in dup]
    sandbox.user_settings.parent.mkdir(parents=True, exist_ok=True)
    sandbox.user_settings.write_text(json.dumps({"hooks": {"PreToolUse": entries}}))
    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": command})])
    assert run.proc.returncode == 0, run.proc.stderr
    return sorted(log.read_text().split()) if log.exists() else []


WORD = {"word": "Bash(git *)", "anywhere": "Bash(*git *)"}


@pytest.mark.parametrize("command,expected", [
    # The host strips assignments and quotes, and splits on ; && | newlines and subshells.
    ("FOO=1 git status", ["anywhere", "word"]), ("g''it status", ["anywhere", "word"]),
    ("(git status)", ["anywhere", "word"]), ("echo a\ngit status", ["anywhere", "word"]),
    ("echo a | git status", ["anywhere", "word"]), ("true; git status", ["anywhere", "word"]),
    # It does not look through wrappers: `nice git` is a `nice` call.
    ("nice git status", ["anywhere"]),
    # What it cannot read ($(...), backticks, $'...') starts every conditioned hook.
    ("echo $(git status)", ["anywhere", "word"]), ("echo `git status`", ["anywhere", "word"]),
    ("$'\\x67it' status", ["anywhere", "word"]),
])
def test_what_the_host_reads(claude_cli, sandbox, command, expected):
    assert _started(claude_cli, sandbox, WORD, command) == expected


REDIRECT = {"dev": "Bash(*/dev/*)", "null": "Bash(*null*)", "gt": "Bash(*>*)", "echo": "Bash(echo *)"}


@pytest.mark.parametrize("command", ["echo hi > /dev/null", "echo hi 2>/dev/null"])
def test_redirects_are_invisible_and_matching_entries_each_start(claude_cli, sandbox, command):
    # No condition sees a redirect (so `cat img > /dev/sdb` cannot be singled out), and the same
    # command under two matching conditions is started twice.
    started = _started(claude_cli, sandbox, REDIRECT, command, dup=("Bash(echo *)", "Bash(*hi*)"))
    assert started == ["dup", "dup", "echo"]


def test_what_a_condition_costs(claude_cli, sandbox):
    """Wall per run, medians of interleaved runs: no hooks, 60 non-matching conditions, one `true` hook."""
    import statistics
    import time

    log = sandbox.root / "started.log"
    names = ["prog%d" % i for i in range(60)]
    forms = {
        "bare": {},
        "60 conditions": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "if": "Bash(%s *)" % n, "command": f"printf x >> '{log}'"} for n in names]}]}},
        "one true hook": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "true"}]}]}},
    }
    walls = {name: [] for name in forms}
    sandbox.user_settings.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(7):
        for name, settings in forms.items():
            sandbox.user_settings.write_text(json.dumps(settings))
            start = time.perf_counter()
            run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": "echo hello"})])
            walls[name].append(time.perf_counter() - start)
            assert run.proc.returncode == 0, run.proc.stderr
    assert not log.exists()  # no condition matched `echo hello`
    for name, values in walls.items():
        print("COST", name, "%.0f ms" % (1000 * statistics.median(values)))



@pytest.mark.parametrize("tool,entry,started", [
    # PostToolBatch: the matcher is ignored, and an `if` starts it for no call, not even a
    # Skill call: no host condition can narrow the skill-redirect entry.
    (ToolUse("Bash", {"command": "echo hello"}), {"matcher": "Skill|Task|Agent"}, True),
    (ToolUse("Bash", {"command": "echo hello"}), {"if": "Skill"}, False),
    (ToolUse("Skill", {"skill": "no-such-skill"}), {"if": "Skill"}, False),
])
def test_post_tool_batch_conditions(claude_cli, sandbox, tool, entry, started):
    log = sandbox.root / "started.log"
    hook = {"type": "command", "command": f"printf b >> '{log}'"}
    if "if" in entry:
        hook["if"] = entry["if"]
    group = {"hooks": [hook]}
    if "matcher" in entry:
        group["matcher"] = entry["matcher"]
    sandbox.user_settings.parent.mkdir(parents=True, exist_ok=True)
    sandbox.user_settings.write_text(json.dumps({"hooks": {"PostToolBatch": [group]}}))
    run = sandbox.claude(claude_cli, [tool])
    assert run.proc.returncode == 0, run.proc.stderr
    assert log.exists() == started
