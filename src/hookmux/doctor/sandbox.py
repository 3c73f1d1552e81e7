"""The temporary folder every canary runs in: its own HOME, state, XDG state, Codex home,
project (the session's working directory) and runtime folder, so that what the hooks write
(seen-maps, ledgers, a warm pool) stays there and goes with it. Read where they are: the user's
manifest layer (``HOOKMUX_CONFIG_DIR``) and, for Claude Code, the project (``CLAUDE_PROJECT_DIR``).

The canary names an agent and a skill that exist only here (``CANARY``): the gate's answer to
a skill call naming that agent (or, on Codex, an agent call naming that skill) proves it ran.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hookmux import resources

CANARY = "hookmux-doctor-canary"
SESSION = "hookmux-doctor"  # the canaries' session id
# Variables of the user's that would send the hooks' state, or their answers, elsewhere.
REPLACED = ("HOME", "HOOKMUX_STATE_DIR", "XDG_STATE_HOME", "HOOKMUX_RUNTIME_DIR", "CODEX_HOME",
            "HOOKMUX_SKILLS_PATH", "AMPLIHACK_HOME", "CLAUDE_PROJECT_DIR", "XDG_RUNTIME_DIR", "GEMINI_CLI_HOME")


class Sandbox:
    def __init__(self, project: Path | None = None):
        #: The user's project: the host gives a Claude Code hook its folder in CLAUDE_PROJECT_DIR
        #: (where the dispatcher also finds a trusted project's manifest layer).
        self.user_project = project
        # Short and under /tmp: a warm pool's FIFO path must stay short.
        self.root = Path(tempfile.mkdtemp(prefix="hmx-doctor-", dir="/tmp" if os.path.isdir("/tmp") else None))
        self.home = self.root / "home"
        self.project = self.root / "project"
        self.codex_home = self.home / ".codex"
        for folder in (self.home, self.project, self.codex_home):
            folder.mkdir(parents=True, exist_ok=True)
        agent = f"---\nname: {CANARY}\ndescription: hookmux doctor's canary agent\n---\nA canary.\n"
        for path in (self.home / ".claude" / "agents" / f"{CANARY}.md",
                     self.home / ".copilot" / "agents" / f"{CANARY}.agent.md"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(agent)
        skill = self.codex_home / "skills" / CANARY / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text(f"---\nname: {CANARY}\ndescription: hookmux doctor's canary skill\n---\nA canary.\n")

    def env(self, host: str, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment the host would give the hook (the user's), with every state folder here."""
        env = {k: v for k, v in (os.environ if base is None else base).items() if k not in REPLACED}
        # The user's manifest layer (docs/install.md) is read where it is: HOME moves here.
        env.setdefault("HOOKMUX_CONFIG_DIR", os.path.dirname(resources.runtime("manifest").user_layer_path(
            os.environ if base is None else base)))
        env.update(HOME=str(self.home), HOOKMUX_STATE_DIR=str(self.root / "state"),
                   XDG_STATE_HOME=str(self.root / "xdg-state"), HOOKMUX_RUNTIME_DIR=str(self.root / "run"),
                   HOOKMUX_WARM_IDLE="5", HOOKMUX_TRACE="1", CODEX_HOME=str(self.codex_home))
        if host == "claude":
            env["CLAUDE_PROJECT_DIR"] = str(self.user_project or self.project)
        if host == "gemini":  # what Gemini CLI 0.61.0 adds (its cwd, the session); the ledger is the proof it ran
            env.update(GEMINI_PROJECT_DIR=str(self.project), GEMINI_CWD=str(self.project),
                       CLAUDE_PROJECT_DIR=str(self.project), GEMINI_SESSION_ID=SESSION,
                       GEMINI_PLANS_DIR=str(self.root / "gemini-plans"))
            env.pop("HOOKMUX_LEDGER", None)
        return env

    def close(self) -> None:
        # Removing the runtime folder also ends a warm pool a canary started (it sees it gone).
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
