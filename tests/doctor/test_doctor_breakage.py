"""``hookmux doctor`` against a real install (the shipped tree, Claude Code settings and a Copilot
hooks file in a temporary HOME), broken on purpose one way at a time: it names each breakage
and its fix, and passes the healthy install."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hookmux_testing import REPO, hermetic_env

PAYLOAD = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": "ls"}})


class Install:
    def __init__(self, tmp_path: Path):
        self.env = hermetic_env(tmp_path)
        self.home = Path(self.env["HOME"])
        self.project = tmp_path / "project"
        self.project.mkdir()
        self.target = self.home / ".claude" / "hooks"
        self.settings = self.home / ".claude" / "settings.json"
        self.copilot = self.home / ".copilot" / "hooks" / "hookmux.json"
        self.hookmux("install", "--copilot-hooks-dir", str(self.copilot.parent), check=True)

    def hookmux(self, *args, check=False):
        result = subprocess.run([sys.executable, "-m", "hookmux.cli", *args], capture_output=True, text=True,
                                env=self.env, cwd=str(self.project), timeout=300)
        if check:
            assert result.returncode == 0, result.stdout + result.stderr
        return result

    def doctor(self):
        result = self.hookmux("doctor", "--json")
        assert result.returncode in (0, 1), result.stderr
        report = json.loads(result.stdout)
        assert report["ok"] == (result.returncode == 0)
        return report

    def edit(self, path: Path, change):
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data, indent=2))

    def dispatcher_hook(self, data, event="PreToolUse"):
        return next(h for group in data["hooks"][event] for h in group["hooks"] if "dispatch.py" in h["command"])


def problems(report) -> str:
    return "\n".join(f"{p['where']}: {p['problem']} FIX {p['fix']}" for p in report["problems"])


@pytest.fixture
def install(tmp_path):
    return Install(tmp_path)


def tree_state(root: Path) -> dict:
    return {str(path): (path.stat().st_mtime_ns, path.stat().st_size) for path in root.rglob("*")
            if not path.is_symlink()}


def test_a_healthy_install_passes(install, tmp_path):
    before = tree_state(tmp_path)
    report = install.doctor()
    assert tree_state(tmp_path) == before, "doctor wrote outside its temporary folder"
    assert report["problems"] == [], problems(report)
    hooks = [hook for wiring in report["wirings"] for hook in wiring["hooks"]]
    assert {(hook["event"], hook["role"]) for hook in hooks} >= {
        ("PreToolUse", "dispatch"), ("PostToolBatch", "gate"), ("preToolUse", "dispatch"), ("preToolUse", "gate")}
    for hook in hooks:
        assert hook["canary"], hook
        for run in hook["canary"]:
            assert run["fired"] and run["accepted"] and run["exit"] == 0, run
    copilot = next(w for w in report["wirings"] if w["format"] == "copilot")
    assert copilot["hooks"][0]["canary"][0]["shell"] == "bash"
    (target,) = report["targets"]
    assert target["target"] == str(install.target)
    rows = {(row["event"], row["name"]): row for row in target["rows"]}
    check = rows[("PreToolUse", "contraindication/check")]
    assert check["imports"] == "ok" and all(reach["reachable"] for reach in check["reach"])
    assert any("selected" in c["trace"] and "ok" in c["trace"] for c in check["canary"])
    text = install.hookmux("doctor")
    assert text.returncode == 0 and text.stdout.rstrip().endswith("doctor:  ok")
    assert not (Path(install.env["HOOKMUX_STATE_DIR"]) / "ledger").exists()


def test_a_deleted_script(install):
    (install.target / "contraindication" / "check.py").unlink()
    report = install.doctor()
    text = problems(report)
    assert "events.PreToolUse.checks[0](name='contraindication/check')" in text
    assert "its script is missing" in text and "hookmux install puts back" in text
    # A script that is there but does not import; one that imports and fails on the canary.
    (install.target / "calibrated-silence" / "reactions.py").write_text("def main(:\n")
    (install.target / "crash").mkdir()
    (install.target / "crash" / "check.py").write_text("def main():\n    raise KeyError\n")
    install.edit(install.target / "_dispatch" / "manifest.json", lambda data: data["events"]["PreToolUse"][
        "checks"].append({"name": "crash/check", "script": "crash/check.py", "matcher": "^Bash$"}))
    text = problems(install.doctor())
    assert "(name='calibrated-silence/reactions')" in text and "its script does not import: SyntaxError" in text
    assert "(name='crash/check')" in text and "it failed on the canary" in text and "error KeyError" in text
    assert "hookmux try --manifest" in text
    (install.target / "_dispatch" / "dispatch.py").unlink()
    text = problems(install.doctor())
    assert "the canary PreToolUse event did not reach the dispatch" in text
    assert "hookmux install --target" in text  # the fix


def test_a_wrong_interpreter(install, tmp_path):
    old = tmp_path / "python3.8"
    old.write_text("#!/bin/sh\necho 3.8\n")
    old.chmod(0o755)

    def use(python):
        def change(data):
            hook = install.dispatcher_hook(data)
            hook["command"] = hook["command"].replace(hook["command"].split()[0], python, 1)
        return change

    install.edit(install.settings, use("/nonexistent/bin/python3"))
    text = problems(install.doctor())
    assert "the wired interpreter /nonexistent/bin/python3 is gone" in text
    assert "--python PYTHON" in text
    install.edit(install.settings, use(str(old)))
    text = problems(install.doctor())
    assert f"the wired interpreter {old} is Python 3.8, older than the floor 3.9" in text
    assert "does not import" not in text  # the rows are checked with the interpreter that works


def test_rows_that_cannot_match(install):
    manifest = install.target / "_dispatch" / "manifest.json"

    def add(data):
        checks = data["events"]["PreToolUse"]["checks"]
        checks.append({"name": "broken/regex", "script": "contraindication/check.py", "matcher": "^(Bash"})
        checks.append({"name": "reads/only", "script": "contraindication/check.py", "matcher": "^Read$"})
        data["events"]["UserPromptSubmit"]["checks"].append(
            {"name": "prompt/with-matcher", "script": "contraindication/check.py", "matcher": "Bash"})

    install.edit(manifest, add)
    text = problems(install.doctor())
    assert "(name='broken/regex')" in text and "its matcher '^(Bash' does not compile" in text
    assert "(name='prompt/with-matcher')" in text and "UserPromptSubmit names no tool" in text
    assert "(name='reads/only')" in text and "it never runs: no wired host's matcher lets any of its tools" in text


def test_duplicate_wiring(install, tmp_path):
    # The dispatcher wired again in the project's settings (Claude Code runs both), once through
    # a symlink to the same hooks folder (two spellings of one folder).
    alias = tmp_path / "alias-hooks"
    alias.symlink_to(install.target)
    command = install.dispatcher_hook(json.loads(install.settings.read_text()))["command"]
    spelled = command.replace(str(install.target), str(alias))
    project_settings = install.project / ".claude" / "settings.local.json"
    project_settings.parent.mkdir()
    project_settings.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": spelled, "timeout": 10}]}]}}))
    text = problems(install.doctor())
    assert "claude runs the dispatch 2 times on each PreToolUse call: one hooks folder spelled two ways" in text
    assert str(alias) in text and str(project_settings) in text


def test_a_dead_pool(install):
    dispatch = install.target / "_dispatch" / "dispatch.py"
    env = {**install.env, "HOOKMUX_WARM_IDLE": "60"}
    runtime = Path(env["HOOKMUX_RUNTIME_DIR"])
    deadline = time.monotonic() + 30
    manager = None
    while manager is None and time.monotonic() < deadline:
        subprocess.run([sys.executable, "-S", "-E", str(dispatch), "PreToolUse"], input=PAYLOAD.encode(),
                       capture_output=True, env=env, timeout=60, cwd=str(install.project))
        for folder in runtime.iterdir():
            if str(install.target / "_dispatch").replace("/", "%2F") in folder.name and (folder / "manager").exists():
                manager = folder
        time.sleep(0.2)
    assert manager is not None, "the warm pool did not start"
    report = install.doctor()
    (pool,) = report["targets"][0]["pools"]
    assert pool["answers"], pool
    pid = int((manager / "manager").read_text().split()[0])
    os.kill(pid, signal.SIGKILL)  # the pool's manager, started by this test's dispatcher call
    for _ in range(50):
        if not Path(f"/proc/{pid}").exists() or open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z":
            break
        time.sleep(0.1)
    text = problems(install.doctor())
    assert "a warm pool of this tree does not answer: its manager" in text
    assert "remove the folder" in text


def test_an_open_breaker(install):
    manifest = install.target / "_dispatch" / "manifest.json"
    (install.target / "crash").mkdir()
    (install.target / "crash" / "check.py").write_text("def main():\n    raise RuntimeError\n")
    install.edit(manifest, lambda data: data["events"]["PreToolUse"]["checks"].append(
        {"name": "crash/check", "script": "crash/check.py", "matcher": "^Bash$"}))
    for _ in range(4):
        subprocess.run([sys.executable, "-S", "-E", str(install.target / "_dispatch" / "dispatch.py"), "PreToolUse"],
                       input=PAYLOAD.encode(), capture_output=True, env=install.env, timeout=60)
    report = install.doctor()
    text = problems(report)
    assert "circuit breaker open for PreToolUse [2] crash/check" in text
    row = next(r for r in report["targets"][0]["rows"] if r["name"] == "crash/check")
    assert (row["ledger"]["runs"], row["ledger"]["errors"], row["ledger"]["skipped"]) == (3, 3, 1)
    assert row["breaker"]["open"]


def test_two_entries_in_one_file(install):
    def twice(data):
        entry = next(e for e in data["hooks"]["preToolUse"] if "dispatch.py" in e["bash"])
        data["hooks"]["preToolUse"].append(dict(entry))

    install.edit(install.copilot, twice)
    text = problems(install.doctor())
    assert "copilot runs the dispatch 2 times on each PreToolUse call: one hooks folder wired in one file twice" in text
    assert "claude runs" not in text


def test_an_entry_in_a_form_hookmux_does_not_run(install):
    def mangle(data):
        hook = install.dispatcher_hook(data)
        hook["command"] = "cd /tmp && " + hook["command"]

    install.edit(install.settings, mangle)
    text = problems(install.doctor())
    assert "PreToolUse: an entry runs a hookmux script in a form hookmux does not manage" in text


def test_rows_of_the_users_manifest_layer(install):
    config = install.env.get("XDG_CONFIG_HOME")
    layer = (Path(config) if config else install.home / ".config") / "hookmux"
    (layer / "checks").mkdir(parents=True)
    (layer / "checks" / "mine.py").write_text("def main():\n    raise LookupError\n")
    (layer / "manifest.json").write_text(json.dumps({"version": 1, "events": {"PreToolUse": {"checks": [
        {"name": "mine/check", "script": "checks/mine.py", "matcher": "^Bash$"},
        {"name": "gone/check", "script": "checks/gone.py", "matcher": "^Bash$"}]}}}))
    report = install.doctor()
    text = problems(report)
    # The canary ran the layer's row (its HOME is the sandbox's, the layer is read where it is) ...
    assert "(name='mine/check')" in text and "error LookupError" in text
    # ... and the row list is the merged one.
    assert "(name='gone/check')" in text and "its script is missing" in text
