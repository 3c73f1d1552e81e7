"""``hookmux install --managed`` (issue 38, item 6): Claude Code's managed settings wire a hooks tree
only root can change, proven in a throwaway root-owned layout (``--managed-root``), and `status` /
`doctor` name the protection level. A process of another user (nobody, standing in for the user's
own processes) can read and run the guard but change none of it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3"

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists(SYSTEM_PYTHON),
                                reason="a managed install is made by root, with the system's python3")


@pytest.fixture
def layout():
    """A throwaway / (root's, 0755, so that nobody can walk it) and a HOME for the CLI."""
    root = Path(tempfile.mkdtemp(prefix="hookmux-managed-"))
    os.chmod(root, 0o755)
    home = Path(tempfile.mkdtemp(prefix="hookmux-managed-home-"))
    yield root, home
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)


def cli(home: Path, *args: str):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOOKMUX_", "CLAUDE_"))}
    env.update(HOME=str(home), XDG_STATE_HOME=str(home / "state"), XDG_CONFIG_HOME=str(home / "config"))
    return subprocess.run([sys.executable, "-m", "hookmux.cli", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def as_nobody(code: str, *args: str):
    return subprocess.run([SYSTEM_PYTHON, "-S", "-c", code, *args], capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: (os.setgid(NOBODY), os.setuid(NOBODY)), cwd="/")


TRY_TO_CHANGE = """
import os, sys
results = []
for path in sys.argv[1:]:
    for attempt in ("append", "create", "remove", "rename"):
        try:
            if attempt == "append" and os.path.isfile(path):
                open(path, "a").close()
            elif attempt == "create":
                open(os.path.join(path if os.path.isdir(path) else os.path.dirname(path), "x"), "x").close()
            elif attempt == "remove" and os.path.isfile(path):
                os.unlink(path)
            elif attempt == "rename":
                os.rename(path, path + ".old")
            else:
                continue
            results.append("CHANGED %s %s" % (attempt, path))
        except PermissionError:
            pass
print("\\n".join(results))
"""


def assert_roots_alone(*paths: Path) -> None:
    """Each path root's, writable by no one else, and another user changes none of them."""
    for path in paths:
        info = path.lstat()
        assert info.st_uid == 0 and not info.st_mode & 0o022, path
    changed = as_nobody(TRY_TO_CHANGE, *map(str, paths))
    assert changed.returncode == 0 and changed.stdout.strip() == "", changed.stdout + changed.stderr


def run_as_the_host(home: Path, argv: list[str], payload: dict) -> dict:
    """``argv`` (the wired line, as the host starts it) given ``payload``, in a HOME with Documents
    under ``home``: its answer; the Documents are still there (the call in it is data)."""
    gate_home = home / "gate-home"
    (gate_home / "Documents").mkdir(parents=True)
    assert str(gate_home).startswith(tempfile.gettempdir())
    payload = json.loads(json.dumps(payload).replace("GATE_HOME", str(gate_home)))
    ran = subprocess.run(argv, input=json.dumps(payload), capture_output=True, text=True, timeout=60,
                         cwd=str(gate_home), env={"HOME": str(gate_home), "PATH": "/usr/bin:/bin"})
    assert ran.returncode == 0, ran.stderr
    assert (gate_home / "Documents").is_dir()
    return json.loads(ran.stdout)


def test_a_managed_install_is_roots_alone_and_status_says_so(layout):
    root, home = layout
    done = cli(home, "install", "--managed", "--managed-root", str(root))
    assert done.returncode == 0, done.stderr
    settings = root / "etc" / "claude-code" / "managed-settings.json"
    tree = root / "opt" / "hookmux" / "hooks"
    wired = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    gate = [h["command"] for g in wired for h in g["hooks"] if "danger_gate.py" in h["command"]]
    assert gate and gate[0].split()[0].strip("'") == SYSTEM_PYTHON, gate
    assert str(tree / "danger-gate" / "danger_gate.py") in gate[0]
    for path in [settings, tree, *tree.rglob("*")]:
        info = path.lstat()
        assert info.st_uid == 0 and not info.st_mode & 0o022, path

    # Another user reads and runs the guard (the control: the layout is walkable) ...
    read = as_nobody("import sys; print(len(open(sys.argv[1]).read()) > 0, len(open(sys.argv[2]).read()) > 0)",
                     str(settings), str(tree / "danger-gate" / "danger_gate.py"))
    assert read.stdout.split() == ["True", "True"], read.stderr
    # ... and changes none of it: no append, no new file, no removal, no rename.
    targets = [settings, tree / "danger-gate" / "danger_gate.py", tree / "danger-gate", tree, settings.parent]
    changed = as_nobody(TRY_TO_CHANGE, *map(str, targets))
    assert changed.returncode == 0 and changed.stdout.strip() == "", changed.stdout + changed.stderr

    status = cli(home, "status", "--managed-root", str(root))
    assert f"protection: managed ({settings} wires {tree}, which only root can change)" in status.stdout
    doctor = cli(home, "doctor", "--managed-root", str(root), "--json")
    assert json.loads(doctor.stdout)["protection"]["level"] == "managed"

    # One file a user could change is enough to lose the level, and it is named.
    os.chmod(tree / "danger-gate" / "dangers.json", 0o666)
    status = cli(home, "status", "--managed-root", str(root))
    assert "protection: user" in status.stdout and "dangers.json can be changed by a user" in status.stdout


def test_without_a_managed_install_the_level_is_user_and_what_is_open_is_said(layout):
    root, home = layout
    status = cli(home, "status", "--managed-root", str(root))
    assert "protection: user (no danger gate in" in status.stdout
    assert "still open: for a real boundary: sudo hookmux install --managed" in status.stdout


def test_a_managed_install_refuses_an_interpreter_a_user_could_replace(layout):
    root, home = layout
    python = home / "bin" / "python3"
    python.parent.mkdir()
    shutil.copy(SYSTEM_PYTHON, python)
    os.chown(python, NOBODY, NOBODY)
    done = cli(home, "install", "--managed", "--managed-root", str(root), "--python", str(python))
    assert done.returncode == 1
    assert f"--managed needs an interpreter only root can change: {python} is owned by uid {NOBODY}" in done.stderr
    assert not (root / "etc").exists() and not (root / "opt").exists()


# Codex (install --managed --codex): the danger gate in Codex's administrator requirements.

ADMIN_REQUIREMENTS = """# the administrator's own
allowed_approval_policies = ["never", "on-request"]

[features]
web_search = false
"""


def _codex_gate(requirements: Path) -> list[dict]:
    import tomllib

    groups = tomllib.loads(requirements.read_text())["hooks"]["PreToolUse"]
    return [dict(h, matcher=g.get("matcher")) for g in groups for h in g["hooks"] if "danger_gate.py" in h["command"]]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the test reads the file with tomllib")
def test_codex_requirements_wire_the_gate_keep_the_admins_keys_and_uninstall_takes_only_the_block(layout):
    import tomllib

    from hookmux import wiring
    from hookmux.installer import codex_hooks

    root, home = layout
    requirements = root / "etc" / "codex" / "requirements.toml"
    requirements.parent.mkdir(parents=True)
    requirements.write_text(ADMIN_REQUIREMENTS)
    os.chmod(requirements, 0o664)  # group-writable: the install must make it root's alone
    tree = root / "opt" / "hookmux" / "hooks"
    gate_script = tree / "danger-gate" / "danger_gate.py"

    done = cli(home, "install", "--managed", "--codex", "--managed-root", str(root))
    assert done.returncode == 0, done.stderr
    assert f"hookmux: managed: {requirements} wires the danger gate for Codex" in done.stdout
    data = tomllib.loads(requirements.read_text())
    assert {k: v for k, v in data.items() if k != "hooks"} == tomllib.loads(ADMIN_REQUIREMENTS)
    assert data["hooks"]["managed_dir"] == str(tree)
    gate = _codex_gate(requirements)
    expected = codex_hooks.command(SYSTEM_PYTHON, gate_script, "PreToolUse")
    assert gate == [{"type": "command", "command": expected, "timeout": 10,
                     "matcher": codex_hooks.DANGER_EVENTS["PreToolUse"]}]
    assert "--host codex" in expected
    assert_roots_alone(requirements, requirements.parent)

    # What Codex runs answers in Codex's form: the wired command (argv, no shell) with a shell call as data.
    payload = {"session_id": "s1", "transcript_path": None, "cwd": "GATE_HOME",
               "hook_event_name": "PreToolUse", "model": "gpt-4.1", "permission_mode": "bypassPermissions",
               "turn_id": "t1", "tool_name": "Bash", "tool_input": {"command": "rm -rf ~/Documents"},
               "tool_use_id": "call_1"}
    answer = run_as_the_host(home, wiring.argv(expected), payload)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"

    status = cli(home, "status", "--managed-root", str(root))
    assert f"protection (Codex): managed ({requirements} wires {tree}, which only root can change)" in status.stdout
    assert "still open: Copilot and Gemini wirings stay the user's" in status.stdout
    doctor = json.loads(cli(home, "doctor", "--managed-root", str(root), "--json").stdout)
    assert doctor["protection"]["codex"]["level"] == "managed"

    # Again: nothing changes.
    before = requirements.read_bytes()
    again = cli(home, "install", "--managed", "--codex", "--managed-root", str(root))
    assert again.returncode == 0 and f"wired {requirements} (unchanged)" in again.stdout, again.stderr
    assert requirements.read_bytes() == before

    # One file of the tree a user could change: Codex's level drops too, naming it.
    os.chmod(gate_script, 0o666)
    status = cli(home, "status", "--managed-root", str(root))
    assert f"protection (Codex): user ({requirements} wires the gate, but {gate_script}" in status.stdout
    os.chmod(gate_script, 0o644)

    gone = cli(home, "uninstall", "--managed", "--managed-root", str(root))
    assert gone.returncode == 0, gone.stderr
    assert f"hookmux: unwired {requirements}" in gone.stdout
    assert requirements.read_text() == ADMIN_REQUIREMENTS
    assert not gate_script.exists()
    status = cli(home, "status", "--managed-root", str(root))
    assert f"protection (Codex): user (no danger gate in {requirements})" in status.stdout


def test_a_requirements_file_hookmux_made_goes_with_uninstall(layout):
    root, home = layout
    requirements = root / "etc" / "codex" / "requirements.toml"
    done = cli(home, "install", "--managed", "--codex", "--managed-root", str(root))
    assert done.returncode == 0, done.stderr
    assert requirements.is_file() and requirements.parent.stat().st_uid == 0
    gone = cli(home, "uninstall", "--managed", "--codex", "--managed-root", str(root))  # as install took it
    assert gone.returncode == 0 and f"hookmux: removed {requirements}" in gone.stdout, gone.stdout + gone.stderr
    assert not requirements.exists()


def test_a_requirements_file_the_block_cannot_join_refuses_the_install_before_anything_changes(layout):
    root, home = layout
    requirements = root / "etc" / "codex" / "requirements.toml"
    requirements.parent.mkdir(parents=True)
    admin = '[hooks]\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "/srv/x"\n'
    requirements.write_text(admin)
    done = cli(home, "install", "--managed", "--codex", "--managed-root", str(root))
    assert done.returncode == 1
    assert f"{requirements}: it has a [hooks] table without managed_dir" in done.stderr
    assert "nothing was changed" in done.stderr
    assert requirements.read_text() == admin
    assert not (root / "opt").exists() and not (root / "etc" / "claude-code").exists()


def test_codex_without_managed_is_refused(layout):
    root, home = layout
    for command in ("install", "uninstall"):
        done = cli(home, command, "--codex", "--managed-root", str(root))
        assert done.returncode == 1 and "--codex goes with --managed" in done.stderr, command
    assert not any(root.iterdir())


def test_copilots_policy_hook_wires_the_gate_roots_alone_and_uninstall_takes_it(layout):
    from hookmux import wiring
    from hookmux.testing import pre_tool_use

    root, home = layout
    policy = root / "etc" / "github-copilot" / "policy.d" / "hookmux.json"
    admin = policy.parent / "00-admin.json"  # another policy hook of the administrator's: left alone
    policy.parent.mkdir(parents=True)
    admin.write_text('{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "/srv/x"}]}}\n')
    tree = root / "opt" / "hookmux" / "hooks"
    gate_script = tree / "danger-gate" / "danger_gate.py"

    done = cli(home, "install", "--managed", "--copilot", "--managed-root", str(root))
    assert done.returncode == 0, done.stderr
    assert f"hookmux: managed: {policy} wires the danger gate for Copilot" in done.stdout
    data = json.loads(policy.read_text())
    assert data == {"version": 1, "hooks": {"preToolUse": [
        {"type": "command", "matcher": "bash|create|edit", "timeoutSec": 10,
         "bash": wiring.hook_command(SYSTEM_PYTHON, gate_script, "preToolUse")}]}}
    assert_roots_alone(policy, policy.parent, policy.parent.parent)

    # What Copilot runs (its `bash` line, through bash) answers in Copilot's form; the call is data.
    call = pre_tool_use("Bash", {"command": "rm -rf ~/Documents"}, host="copilot", cwd="GATE_HOME")
    answer = run_as_the_host(home, ["bash", "-c", data["hooks"]["preToolUse"][0]["bash"]], call.payload)
    assert answer["permissionDecision"] == "deny"

    status = cli(home, "status", "--managed-root", str(root))
    assert f"protection (Copilot): managed ({policy} wires {tree}, which only root can change)" in status.stdout
    assert "still open: Codex and Gemini wirings stay the user's" in status.stdout
    doctor = json.loads(cli(home, "doctor", "--managed-root", str(root), "--json").stdout)
    assert doctor["protection"]["copilot"]["level"] == "managed"

    again = cli(home, "install", "--managed", "--copilot", "--managed-root", str(root))
    assert again.returncode == 0 and f"wired {policy} (unchanged)" in again.stdout, again.stderr

    os.chmod(gate_script, 0o666)
    status = cli(home, "status", "--managed-root", str(root))
    assert f"protection (Copilot): user ({policy} wires the gate, but {gate_script}" in status.stdout
    os.chmod(gate_script, 0o644)

    gone = cli(home, "uninstall", "--managed", "--managed-root", str(root))
    assert gone.returncode == 0 and f"hookmux: removed {policy}" in gone.stdout, gone.stdout + gone.stderr
    assert not policy.exists() and not gate_script.exists()
    assert admin.read_text().startswith('{"version": 1')


def test_a_policy_file_of_that_name_not_hookmuxs_refuses_the_install_before_anything_changes(layout):
    root, home = layout
    policy = root / "etc" / "github-copilot" / "policy.d" / "hookmux.json"
    policy.parent.mkdir(parents=True)
    policy.write_text('{"version": 1, "hooks": {}}\n')
    done = cli(home, "install", "--managed", "--copilot", "--managed-root", str(root))
    assert done.returncode == 1 and f"{policy}: a file of that name that is not hookmux's" in done.stderr
    assert "nothing was changed" in done.stderr
    assert policy.read_text() == '{"version": 1, "hooks": {}}\n'
    assert not (root / "opt").exists() and not (root / "etc" / "claude-code").exists()


def test_copilot_without_managed_is_refused(layout):
    root, home = layout
    for command in ("install", "uninstall"):
        done = cli(home, command, "--copilot", "--managed-root", str(root))
        assert done.returncode == 1 and "--copilot goes with --managed" in done.stderr, command
    assert not any(root.iterdir())
