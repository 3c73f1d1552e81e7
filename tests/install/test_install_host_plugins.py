"""``hookmux install/uninstall/status --opencode/--pi``: hookmux's opencode plugin and Pi extension
(installer/host_plugins.py) written where the hosts load them, the user's files kept, uninstall
giving back the folders byte for byte; and the written JavaScript run by Node with stand-in hooks:
a deny blocks with the gate's reason, advice is added, and whatever goes wrong lets the call run.

The real hosts run these files in tests/e2e (test_e2e_opencode.py, test_e2e_pi.py). Hazardous
commands are data on the hooks' stdin, never run.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from install_helpers import Home, snapshot

from hookmux.installer import host_plugins

USER_OPENCODE = '{\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "tokyonight"\n}\n'
USER_PLUGIN = "export const Mine = async () => ({})\n"


@pytest.fixture
def h(tmp_path):
    home = Home(tmp_path)
    home.opencode = Path(home.env["XDG_CONFIG_HOME"]) / "opencode"  # opencode follows XDG_CONFIG_HOME
    home.pi = home.home / ".pi" / "agent"
    return home


def _user_files(h) -> None:
    (h.opencode / "plugin").mkdir(parents=True)
    (h.opencode / "opencode.json").write_text(USER_OPENCODE)
    (h.opencode / "plugin" / "mine.js").write_text(USER_PLUGIN)
    h.pi.mkdir(parents=True)
    (h.pi / "models.json").write_text('{"providers": {}}\n')


def test_install_writes_both_files_keeps_the_users_and_uninstall_gives_the_folders_back(h):
    _user_files(h)
    before = {"opencode": snapshot(h.opencode), "pi": snapshot(h.home / ".pi")}

    result = h.install("--opencode", "--pi")

    plugin, extension = h.opencode / "plugin" / "hookmux.js", h.pi / "extensions" / "hookmux.js"
    assert f"wired {plugin}\n" in result.stdout and f"wired {extension}\n" in result.stdout
    text = plugin.read_text()
    assert text.splitlines()[0] == host_plugins.MARKER.format(host="opencode")
    assert f'"gate": "{h.target}/danger-gate/danger_gate.py"' in text and '"host": "opencode"' in text
    assert extension.read_text().splitlines()[0] == host_plugins.MARKER.format(host="pi")
    assert host_plugins.created_folders(extension.read_text()) == (str(h.pi / "extensions"),)
    assert host_plugins.created_folders(text) == ()  # plugin/ was the user's already
    assert (h.opencode / "opencode.json").read_text() == USER_OPENCODE  # no config entry needed
    assert (h.opencode / "plugin" / "mine.js").read_text() == USER_PLUGIN

    installed = plugin.read_bytes(), extension.read_bytes()
    again = h.install("--opencode", "--pi")
    assert f"wired {plugin} (unchanged)" in again.stdout and (plugin.read_bytes(), extension.read_bytes()) == installed

    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings), "--json")
    report = json.loads(status.stdout)
    assert status.returncode == 0, report["problems"]
    assert [(i["host"], i["installed"], i["file"]) for i in report["host_plugins"]] == [
        ("opencode", True, str(plugin)), ("pi", True, str(extension))]

    out = h.uninstall("--opencode", "--pi").stdout
    assert f"removed {plugin}\n" in out and f"removed {extension}\n" in out
    assert {"opencode": snapshot(h.opencode), "pi": snapshot(h.home / ".pi")} == before


def test_folders_install_made_go_with_uninstall_and_the_hosts_own_files_keep_them(h):
    h.install("--opencode", "--pi")
    assert host_plugins.created_folders((h.opencode / "plugin" / "hookmux.js").read_text()) == (
        str(h.opencode.parent), str(h.opencode), str(h.opencode / "plugin"))  # XDG_CONFIG_HOME too
    (h.opencode / "package.json").write_text("{}\n")  # opencode writes its own files beside the plugin folder
    h.uninstall("--opencode", "--pi")
    assert sorted(p.name for p in h.opencode.iterdir()) == ["package.json"]
    assert not (h.home / ".pi").exists()


def test_a_plain_uninstall_of_the_tree_takes_out_the_plugins_that_run_it_and_no_other(h, tmp_path):
    h.install("--opencode", "--pi")
    other = tmp_path / "other-tree"
    extension = h.pi / "extensions" / "hookmux.js"
    extension.write_bytes(host_plugins.render("pi", sys.executable, other))  # Pi's runs another tree
    out = h.uninstall().stdout
    assert f"removed {h.opencode / 'plugin' / 'hookmux.js'}\n" in out and not (h.opencode / "plugin").exists()
    assert extension.is_file() and str(extension) not in out


def test_a_users_file_of_the_same_name_is_never_replaced_and_nothing_changes(h):
    (h.opencode / "plugin").mkdir(parents=True)
    mine = h.opencode / "plugin" / "hookmux.js"
    mine.write_text(USER_PLUGIN)

    result = h.install("--opencode", check=False)

    assert result.returncode == 1 and str(mine) in result.stderr and "not hookmux's" in result.stderr
    assert "nothing was changed" in result.stderr
    assert mine.read_text() == USER_PLUGIN and not h.settings.exists() and not h.target.exists()
    h.uninstall("--opencode")  # uninstall leaves it too
    assert mine.read_text() == USER_PLUGIN


def test_pi_follows_its_agent_dir_and_status_names_a_plugin_whose_tree_is_gone(h, tmp_path):
    agent = tmp_path / "elsewhere" / "agent"
    h.env["PI_CODING_AGENT_DIR"] = str(agent)
    h.install("--pi", source=False)
    extension = agent / "extensions" / "hookmux.js"
    assert extension.is_file() and not (h.home / ".pi").exists()
    shutil.rmtree(h.target)

    status = h.hookmux("status", "--target", str(h.target), "--settings", str(h.settings))

    assert status.returncode == 1
    assert f"{extension}: the danger gate it runs ({h.target}/danger-gate/danger_gate.py) is gone" in status.stdout


def test_dry_run_writes_nothing(h):
    result = h.install("--opencode", "--dry-run")
    assert f"would write {h.opencode / 'plugin' / 'hookmux.js'}" in result.stdout
    assert not h.opencode.exists()


# ---------------------------------------------------------------- the JavaScript, run by Node

NODE = shutil.which("node")
DENY = "hookmux danger gate: this command was NOT run. (stand-in)"
HOOK = r'''import json, sys
payload = json.loads(sys.stdin.read())
with open(sys.argv[0] + ".log", "a") as log:
    log.write(json.dumps([sys.argv[1:], payload]) + "\n")
mode = open(sys.argv[0] + ".mode").read().strip()
if mode == "deny":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                             "permissionDecisionReason": %r}}))
elif mode == "advise":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ADVICE"}}))
elif mode == "garbage":
    print("not json {")
elif mode == "crash":
    raise SystemExit(3)
''' % DENY

DRIVER = r'''
const [file, host, scenario] = process.argv.slice(2);
const mod = await import(file);
const out = {};
if (host === "opencode") {
  const hooks = await mod.HookmuxPlugin({ directory: "/tmp/project" });
  const input = { tool: "bash", sessionID: "s1", callID: "c1" };
  try { await hooks["tool.execute.before"](input, { args: { command: "rm -rf ~/x" } }); out.before = "ran"; }
  catch (error) { out.before = "threw: " + error.message; }
  const output = { title: "", output: "tool said hi", metadata: {} };
  await hooks["tool.execute.after"]({ ...input, args: { command: "x" } }, output);
  out.after = output.output;
} else {
  const handlers = {};
  mod.default({ on: (name, fn) => { handlers[name] = fn; } });
  const ctx = { cwd: "/tmp/project", sessionManager: { getSessionId: () => "s1" } };
  const call = { toolName: "bash", toolCallId: "c1", input: { command: "rm -rf ~/x" } };
  out.before = await handlers.tool_call(call, ctx) ?? null;
  const result = { ...call, input: { command: "x" }, content: [{ type: "text", text: "tool said hi" }], isError: false };
  out.after = await handlers.tool_result(result, ctx) ?? null;
}
console.log(JSON.stringify(out));
'''


def _drive(tmp_path, host: str, mode: str, python: str = sys.executable, tree: bool = True) -> tuple[dict, list]:
    target = tmp_path / "tree"
    if tree:
        for script in ("danger-gate/danger_gate.py", "_dispatch/dispatch.py"):
            path = target / script
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(HOOK)
            Path(str(path) + ".mode").write_text(mode)
    module = tmp_path / f"{host}.mjs"  # the same bytes install writes, as an ES module for plain Node
    module.write_bytes(host_plugins.render(host, python, target))
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    proc = subprocess.run([NODE, str(driver), str(module), host, mode], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    log = target / "danger-gate" / "danger_gate.py.log"
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return json.loads(proc.stdout), calls


needs_node = pytest.mark.skipif(NODE is None, reason="no node on PATH")


@needs_node
def test_opencode_a_deny_throws_the_gates_reason_and_the_gate_gets_opencodes_own_payload(tmp_path):
    out, calls = _drive(tmp_path, "opencode", "deny")
    assert out["before"] == "threw: " + DENY
    assert calls == [[["--host", "opencode", "tool.execute.before"], {
        "hook_event_name": "tool.execute.before", "session_id": "s1", "call_id": "c1", "cwd": "/tmp/project",
        "tool_name": "bash", "tool_input": {"command": "rm -rf ~/x"}}]]


@needs_node
def test_opencode_advice_is_added_after_the_tools_output(tmp_path):
    out, _ = _drive(tmp_path, "opencode", "advise")
    assert out == {"before": "ran", "after": "tool said hi\n\nADVICE"}


@needs_node
def test_pi_a_deny_blocks_with_the_reason_and_advice_is_a_text_part_after_the_tools(tmp_path):
    out, calls = _drive(tmp_path, "pi", "deny")
    assert out["before"] == {"block": True, "reason": DENY}
    assert calls[0][0] == ["--host", "pi", "tool_call"] and calls[0][1]["tool_name"] == "bash"
    out, _ = _drive(tmp_path / "advise", "pi", "advise")
    assert out == {"before": None, "after": {"content": [{"type": "text", "text": "tool said hi"},
                                                         {"type": "text", "text": "ADVICE"}]}}


@needs_node
@pytest.mark.parametrize("host", ["opencode", "pi"])
@pytest.mark.parametrize("case", ["garbage", "crash", "no tree", "no interpreter"])
def test_whatever_goes_wrong_the_call_runs_and_its_output_is_unchanged(tmp_path, host, case):
    python = str(tmp_path / "gone" / "python3") if case == "no interpreter" else sys.executable
    out, _ = _drive(tmp_path, host, case, python=python, tree=case != "no tree")
    untouched = {"before": "ran", "after": "tool said hi"} if host == "opencode" else {"before": None, "after": None}
    assert out == untouched
