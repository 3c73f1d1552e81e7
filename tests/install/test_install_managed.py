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
