"""Issue 38, item 6, on the real Copilot CLI: ``hookmux install --managed --copilot`` writes a
policy hook (``/etc/github-copilot/policy.d/hookmux.json``) that the binary runs before all other
hooks, and that the user's ``disableAllHooks`` does not turn off.

The machine's /etc is never written: the managed layout is made in a throwaway root
(``--managed-root``), and Copilot runs in a mount namespace of its own in which that root's
``etc/github-copilot`` is ``/etc/github-copilot`` (tests/e2e/e2e_policy_root.py). HOME is the
test's own temporary folder, asserted before each run; the call the stand-in model makes is
data, and where it runs, it removes only that folder's Documents.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from e2e_expect import COPILOT_DENIED
from e2e_fixtures import copilot_cli, hookmux_installer, sandbox  # noqa: F401
from hookmux.standin.anthropic import ToolUse

DELETE_DOCUMENTS = "rm -rf ~/Documents"  # data: only the stand-in model's tool call
HERE = Path(__file__).resolve().parent


def _namespaces_work() -> str:
    """Why a private mount namespace cannot be made here, or ""."""
    if os.geteuid() != 0:
        return "needs root (a managed install and a mount namespace)"
    if not (shutil.which("unshare") and shutil.which("mount") and os.path.exists("/usr/bin/python3")):
        return "needs unshare, mount and /usr/bin/python3"
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"], capture_output=True, timeout=30)
    return "" if probe.returncode == 0 else f"unshare -m fails here: {probe.stderr.decode(errors='replace')[:200]}"


WHY_NOT = _namespaces_work()
pytestmark = pytest.mark.skipif(bool(WHY_NOT), reason=WHY_NOT or "-")


@pytest.fixture
def managed_root():
    root = Path(tempfile.mkdtemp(prefix="hookmux-copilot-policy-"))
    os.chmod(root, 0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _safe_home(sandbox) -> Path:
    home = Path(sandbox.env["HOME"])
    assert str(home).startswith(tempfile.gettempdir()), home
    assert home.resolve() != Path(os.path.expanduser("~")).resolve() and home != Path("/")
    documents = home / "Documents"
    documents.mkdir(exist_ok=True)
    (documents / "thesis.txt").write_text("five years of work\n")
    return home


def _inside(root: Path, work: Path) -> tuple[str, ...]:
    return ("unshare", "-m", "--propagation", "private", sys.executable, "-S", str(HERE / "e2e_policy_root.py"),
            "github-copilot", str(root / "etc" / "github-copilot"), str(work), "--")


def test_the_policy_hook_denies_with_every_user_hook_switched_off(copilot_cli, sandbox, managed_root):
    sandbox.hookmux("install", "--managed", "--copilot", "--managed-root", managed_root)
    policy = managed_root / "etc" / "github-copilot" / "policy.d" / "hookmux.json"
    assert "danger_gate.py" in policy.read_text()
    # The user (or the agent, as the user) switches every hook off.
    settings = Path(sandbox.env["HOME"]) / ".copilot" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"disableAllHooks": True}))

    home = _safe_home(sandbox)
    work = Path(tempfile.mkdtemp(prefix="hookmux-ns-", dir=sandbox.root))
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": DELETE_DOCUMENTS})],
                          inside=_inside(managed_root, work))
    seen = run.after(0)
    assert seen.result.startswith(COPILOT_DENIED), seen.result
    assert "Documents" in seen.result
    assert (home / "Documents" / "thesis.txt").is_file()

    # The control: the same run where /etc holds no policy. Nothing wires the gate, so the call runs
    # (and removes only this test's temporary Documents): the policy hook was what denied it.
    home = _safe_home(sandbox)
    run = sandbox.copilot(copilot_cli, [ToolUse("bash", {"command": DELETE_DOCUMENTS})])
    assert not run.after(0).result.startswith(COPILOT_DENIED)
    assert not (home / "Documents").exists()
