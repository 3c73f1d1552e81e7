"""A real ``hookmux serve`` process on 127.0.0.1 over a temporary installed hooks tree."""
from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from hookmux_testing import HOOKS, hermetic_env


def install_tree(tmp_path: Path) -> Path:
    """A copy of the repository's hooks tree whose manifest points at itself."""
    target = tmp_path / "hooks"
    shutil.copytree(HOOKS, target, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = target / "_dispatch" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["hooks_root"] = str(target)
    manifest.write_text(json.dumps(data))
    return target


class Running:
    def __init__(self, tmp_path: Path, target: Path, idle_minutes: float = 5, **env: str):
        self.env = hermetic_env(tmp_path, **env)
        self.state = Path(self.env["HOOKMUX_STATE_DIR"])
        self.target = target
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hookmux", "serve", "--target", str(target), "--idle-minutes", str(idle_minutes)],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        folder = next(iter((self.state / "serve").glob("*")), None) if (self.state / "serve").exists() else None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            folders = list((self.state / "serve").glob("*/server.json")) if (self.state / "serve").exists() else []
            if folders:
                folder = folders[0].parent
                break
            assert self.proc.poll() is None, self.proc.stderr.read()
            time.sleep(0.05)
        assert folder is not None, "server did not start"
        self.folder = folder
        self.port = int((folder / "port").read_text())
        self.secret = (folder / "secret").read_text().strip()

    def post(self, event: str, body: bytes | str, secret: str | None = None, timeout: float = 60):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            return post_on(conn, "/%s/%s" % (self.secret if secret is None else secret, event), body)
        finally:
            conn.close()

    def stop(self):
        if self.proc.poll() is None:
            subprocess.run([sys.executable, "-m", "hookmux", "serve", "--target", str(self.target), "--stop"],
                           env=self.env, capture_output=True, timeout=60)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def post_on(conn: http.client.HTTPConnection, path: str, body: bytes | str):
    data = body.encode() if isinstance(body, str) else body
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
    reply = conn.getresponse()
    return reply.status, reply.read()


def bash(command: str, session: str = "s1", **extra) -> str:
    return json.dumps({"session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                       "tool_input": {"command": command}, **extra})


def state_files(state: Path) -> set[str]:
    """Every file under the state dir except the server's own folder."""
    if not state.exists():
        return set()
    return {str(p.relative_to(state)) for p in state.rglob("*") if p.is_file() and p.parts[len(state.parts)] != "serve"}
