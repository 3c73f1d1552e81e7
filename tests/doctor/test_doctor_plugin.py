"""``hookmux doctor`` finds the hookmux plugin where each host really runs it (docs/e2e.md,
"Plugins"): a temporary HOME holding each host's own records as ``plugin_installs`` reads them
(as Claude Code 2.1.332, Copilot CLI 1.0.102 and Codex 0.171.0 wrote them), pointing at a copy
of this checkout's plugin files. A healthy plugin passes; a plugin root that is gone and a host
wired both ways are named with their fixes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hookmux_testing import REPO, hermetic_env

PLUGIN = "hookmux@hookmux"


class Host:
    def __init__(self, tmp_path: Path):
        self.env = hermetic_env(tmp_path)
        self.env.pop("CODEX_HOME", None)
        # No codex to ask for trust (that is the e2e tests' part): a warning, not a problem.
        self.env["PATH"] = os.pathsep.join(folder for folder in self.env.get("PATH", "").split(os.pathsep)
                                           if not os.path.exists(os.path.join(folder, "codex")))
        self.home = Path(self.env["HOME"])
        self.project = tmp_path / "project"
        self.project.mkdir()
        self.market = tmp_path / "hookmux-marketplace"
        shutil.copytree(REPO / ".claude-plugin", self.market / ".claude-plugin")
        shutil.copytree(REPO / "hooks", self.market / "hooks", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))

    def write_json(self, path: Path, data) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2))

    def claude_plugin(self) -> Path:
        """What `claude plugin marketplace add DIR` + `claude plugin install` leave: the cache copy it
        names, though it runs the hooks from DIR."""
        source = {"source": "directory", "path": str(self.market)}
        settings = self.home / ".claude" / "settings.json"
        data = json.loads(settings.read_text()) if settings.exists() else {}  # what Claude Code keeps of it
        data.update(extraKnownMarketplaces={"hookmux": {"source": source}}, enabledPlugins={PLUGIN: True})
        self.write_json(settings, data)
        plugins = self.home / ".claude" / "plugins"
        self.write_json(plugins / "known_marketplaces.json", {"hookmux": {
            "source": source, "installLocation": str(self.market), "lastUpdated": "2026-12-01T09:56:31.113Z"}})
        cache = plugins / "cache" / "hookmux" / "hookmux" / "0.1.0"
        shutil.copytree(self.market, cache)
        self.write_json(plugins / "installed_plugins.json", {"version": 2, "plugins": {PLUGIN: [{
            "scope": "user", "installPath": str(cache), "version": "0.1.0"}]}})
        return cache

    def copilot_plugin(self) -> None:
        self.write_json(self.home / ".copilot" / "settings.json", {
            "extraKnownMarketplaces": {"hookmux": {"source": {"source": "directory", "path": str(self.market)}}},
            "enabledPlugins": {PLUGIN: True}})

    def codex_plugin(self) -> Path:
        codex = self.home / ".codex"
        version = json.loads((self.market / ".claude-plugin" / "plugin.json").read_text())["version"]
        cache = codex / "plugins" / "cache" / "hookmux" / "hookmux" / version
        shutil.copytree(self.market, cache)
        (codex / "config.toml").write_text(f'[marketplaces.hookmux]\nsource_type = "local"\nsource = "{self.market}"\n\n'
                                           f'[plugins."{PLUGIN}"]\nenabled = true\n')
        return cache

    def hookmux(self, *args):
        return subprocess.run([sys.executable, "-m", "hookmux.cli", *args], capture_output=True, text=True,
                              env=self.env, cwd=str(self.project), timeout=300)

    def doctor(self) -> dict:
        result = self.hookmux("doctor", "--json")
        assert result.returncode in (0, 1), result.stderr
        report = json.loads(result.stdout)
        assert report["ok"] == (result.returncode == 0)
        return report


@pytest.fixture
def host(tmp_path):
    return Host(tmp_path)


def problems(report) -> str:
    return "\n".join(f"{p['where']}: {p['problem']} FIX {p['fix']}" for p in report["problems"])


def plugin_runs(report) -> dict[str, set]:
    out: dict[str, set] = {}
    for wiring in report["wirings"]:
        if wiring["format"] != "plugin":
            continue
        for hook in wiring["hooks"]:
            for run in hook["canary"]:
                assert run["fired"] and run["accepted"] and run["exit"] == 0, run
                out.setdefault(run["host"], set()).add((hook["event"], hook["role"]))
    return out


def tree_state(root: Path) -> dict:
    # Python's bytecode cache of a copy that has none is the documented exception (docs/doctor.md):
    # files only, so the folders that get a __pycache__ do not count.
    return {str(path): (path.stat().st_mtime_ns, path.stat().st_size) for path in root.rglob("*")
            if "__pycache__" not in path.parts and path.is_file()}


def test_a_healthy_plugin_on_each_host_passes_run_from_where_each_host_runs_it(host, tmp_path):
    cache = host.claude_plugin()
    host.copilot_plugin()
    codex_cache = host.codex_plugin()
    before = tree_state(tmp_path)
    report = host.doctor()
    assert tree_state(tmp_path) == before, "doctor wrote outside its temporary folder"
    assert report["problems"] == [], problems(report)
    files = {wiring["file"]: wiring["loaded_by"] for wiring in report["wirings"] if wiring["format"] == "plugin"}
    # Claude Code and Copilot run the marketplace folder (not Claude's cache copy), Codex its versioned copy.
    assert files == {str(host.market / "hooks" / "hooks.json"): ["claude", "copilot"],
                     str(codex_cache / "hooks" / "hooks.json"): ["codex"]}, files
    assert str(cache) not in json.dumps(report["wirings"])
    runs = plugin_runs(report)
    assert runs["claude"] >= {("PreToolUse", "dispatch"), ("PreToolUse", "gate"), ("UserPromptSubmit", "dispatch"),
                              ("PostToolBatch", "gate")}
    assert runs["copilot"] >= {("PreToolUse", "dispatch"), ("PreToolUse", "gate")}
    assert runs["codex"] >= {("PreToolUse", "dispatch"), ("PreToolUse", "gate")}
    assert ("PostToolBatch", "gate") not in runs["copilot"] | runs["codex"]  # events those hosts do not have
    rows = [row for target in report["targets"] if target["target"] == str(host.market / "hooks")
            for row in target["rows"]]
    assert rows and all(row["imports"] == "ok" and row["script"].startswith(str(host.market)) for row in rows), rows
    assert all(any(r["reachable"] for r in row["reach"]) for row in rows)


def test_the_canary_gets_the_plugin_environment_of_its_host(host):
    host.copilot_plugin()
    probe = host.market / "hooks" / "_dispatch" / "dispatch.py"
    # A dispatcher that reports its environment on stderr, as the trace, then runs the real one.
    original = probe.read_text()
    probe.write_text("import os, sys\nsys.stderr.write('hookmux: env ' + os.environ.get('CLAUDE_PLUGIN_ROOT', '-') + ' '"
                     " + os.environ.get('COPILOT_PLUGIN_ROOT', '-') + ' ' + os.environ.get('CLAUDE_PLUGIN_DATA', '-')"
                     " + '\\n')\n" + original)
    report = host.doctor()
    trace = [line for wiring in report["wirings"] for hook in wiring["hooks"] for run in hook["canary"]
             for line in run["trace"] if line.startswith("hookmux: env ")]
    assert trace, report["wirings"]
    root, copilot_root, data = trace[0].split()[2:5]
    assert root == copilot_root == str(host.market)
    assert data.startswith("/tmp/hmx-doctor-") and str(host.home) not in data  # data stays in the temporary folder


def test_a_codex_plugin_whose_cached_version_is_gone_is_named_with_its_fix(host):
    shutil.rmtree(host.codex_plugin())
    report = host.doctor()
    assert not report["ok"]
    gone = [p for p in report["problems"] if "cached copy" in p["problem"] and "is gone" in p["problem"]]
    assert gone, problems(report)
    assert "codex plugin add hookmux@hookmux" in gone[0]["fix"] and "hookmux trust codex" in gone[0]["fix"]


def test_a_claude_marketplace_folder_that_is_gone_is_named_with_its_fix(host):
    host.claude_plugin()
    shutil.rmtree(host.market / "hooks")
    report = host.doctor()
    gone = [p for p in report["problems"] if "has no hooks/hooks.json" in p["problem"]]
    assert gone and str(host.market) in gone[0]["problem"], problems(report)
    assert "claude plugin install hookmux@hookmux" in gone[0]["fix"]


def test_a_host_wired_by_the_plugin_and_by_settings_is_named_twice_with_both_ways_out(host):
    installed = host.hookmux("install")
    assert installed.returncode == 0, installed.stderr
    host.claude_plugin()
    settings = json.loads((host.home / ".claude" / "settings.json").read_text())
    assert "hooks" in settings  # the settings install is still there, the plugin on beside it
    report = host.doctor()
    twice = [p for p in report["problems"] if "the hookmux plugin (hookmux@hookmux" in p["problem"]]
    assert {p["problem"].split(" runs the ")[1].split(" ")[0] for p in twice} >= {"dispatch", "gate"}, problems(report)
    assert all(p["problem"].startswith("claude runs the ") for p in twice)
    assert all("hookmux uninstall" in p["fix"] and "claude plugin uninstall hookmux@hookmux" in p["fix"] for p in twice)


def test_from_a_marketplace_that_is_not_a_folder_claude_codes_cache_copy_is_run_and_checked(host):
    cache = host.claude_plugin()
    known = host.home / ".claude" / "plugins" / "known_marketplaces.json"
    host.write_json(known, {"hookmux": {"source": {"source": "github", "repo": "example/hookmux"},
                                        "installLocation": str(host.home / ".claude" / "plugins" / "marketplaces" / "hookmux")}})
    report = host.doctor()
    assert report["problems"] == [], problems(report)
    assert [w["file"] for w in report["wirings"] if w["format"] == "plugin"] == [str(cache / "hooks" / "hooks.json")]
    assert plugin_runs(report)["claude"] >= {("PreToolUse", "dispatch"), ("PostToolBatch", "gate")}

    shutil.rmtree(cache)  # the cached version folder removed
    report = host.doctor()
    gone = [p for p in report["problems"] if "has no hooks/hooks.json" in p["problem"]]
    assert gone and str(cache) in gone[0]["problem"], problems(report)
    assert "claude plugin uninstall hookmux@hookmux`, then `claude plugin install hookmux@hookmux" in gone[0]["fix"]
