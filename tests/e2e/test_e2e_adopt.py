"""``hookmux adopt`` with the real Claude Code: three Python hooks on Bash (two advisory, one that
blocks ``rm -rf /``) and a shell hook; after ``adopt --apply`` a Bash call starts one dispatcher
plus the blocker and the shell hook, the model still gets both advisories, the blocker still
blocks (after a reinstall too), and ``hookmux uninstall`` gives back the original settings byte for byte."""
from __future__ import annotations

import sys
from pathlib import Path

from e2e_expect import ADVISORY_PREFIX
from e2e_fixtures import claude_cli, hookmux_installer, sandbox  # noqa: F401 (pytest fixtures)
from hookmux.standin.anthropic import ToolUse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adopt"))
from adopt_helpers import settings_text, write_user_hooks  # noqa: E402

ADVISED = "git --version; echo adopted-e2e"
# Contains "rm -rf /" for the blocker, and is a no-op should it ever run.
DANGEROUS = ": rm -rf /tmp/hookmux-e2e-never-there"


def _pre_tool_runs(run) -> list[str]:
    return [command for event, command, _, _ in run.hook_runs() if event.split(":")[0] == "PreToolUse"]


def test_adopted_hooks_behind_one_dispatcher(claude_cli, sandbox):
    write_user_hooks(sandbox.home)
    settings = sandbox.user_settings
    settings.write_text(settings_text(sandbox.home))
    original = settings.read_bytes()
    sandbox.install_claude_user()
    plan = sandbox.hookmux("adopt", "--target", sandbox.claude_target, "--settings", settings, "--apply")
    assert "Bash 6 -> 4" in plan.stdout, plan.stdout  # the danger gate stays a hook of its own
    adopted = settings.read_bytes()
    sandbox.install_claude_user()  # a reinstall keeps the adoption
    assert settings.read_bytes() == adopted

    run = sandbox.claude(claude_cli, [ToolUse("Bash", {"command": ADVISED}), ToolUse("Bash", {"command": DANGEROUS})],
                         "--allowedTools", "Bash")
    assert run.proc.returncode == 0, run.proc.stderr

    advised, blocked = run.after(0), run.after(1)
    assert not advised.is_error and "adopted-e2e" in advised.result
    contexts = [text for text in advised.extra if text.startswith(ADVISORY_PREFIX)]
    assert len(contexts) == 1, advised.extra  # one dispatcher, one merged context
    assert "ADVICE-GIT: pull first" in contexts[0] and "ADVICE-ECHO: quote it" in contexts[0]
    assert blocked.is_error and "BLOCKED-RM: refusing rm -rf /" in blocked.result, blocked

    runs = _pre_tool_runs(run)
    assert len(runs) == 8, runs  # per Bash call: the dispatcher, the blocker, the shell hook, the danger gate
    for needle in ("dispatch.py", "block_rm.py", "log.sh", "danger_gate.py"):
        assert sum(needle in command for command in runs) == 2, (needle, runs)
    assert not any("advise_" in command for command in runs)
    assert len((sandbox.home / "shell-hook.log").read_text().splitlines()) == 2

    sandbox.hookmux("uninstall", "--target", sandbox.claude_target, "--settings", settings)
    assert settings.read_bytes() == original
