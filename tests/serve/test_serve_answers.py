"""The server answers hook payloads exactly as the command-line dispatcher does."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

from serve_support import bash, state_files


def test_a_force_push_gets_the_advisory(server):
    status, body = server.post("PreToolUse", bash("git push --force origin main"))
    assert status == 200
    context = json.loads(body)["hookSpecificOutput"]["additionalContext"]
    assert "GIT-FORCE-PUSH-MAIN" in context
    assert server.post("PreToolUse", bash("ls -la", session="s2")) == (200, b"")


def test_same_bytes_as_the_command_hook(server):
    payload = bash("git push --force origin main", session="http")
    _, over_http = server.post("PreToolUse", payload)
    command = subprocess.run(
        [sys.executable, "-S", "-E", str(server.target / "_dispatch" / "dispatch.py"), "PreToolUse"],
        input=bash("git push --force origin main", session="command").encode(),
        capture_output=True, env=server.env, timeout=60)
    assert command.returncode == 0
    assert over_http and over_http == command.stdout


def test_the_advisory_comes_once_per_session(server):
    first = server.post("PreToolUse", bash("git push -f origin main", session="once"))[1]
    second = server.post("PreToolUse", bash("git push -f origin main", session="once"))[1]
    assert b"GIT-FORCE-PUSH-MAIN" in first and second == b""


def test_without_the_secret_nothing_is_answered_or_written(server):
    before = state_files(server.state)
    for secret in ("", "wrong", server.secret[:-1], server.secret + "x"):
        status, body = server.post("PreToolUse", bash("git push --force origin main", session="thief"), secret=secret)
        assert (status, body) == (404, b"")
    assert state_files(server.state) == before
    # the same payload with the secret is still new to that session: nothing was recorded
    assert b"GIT-FORCE-PUSH-MAIN" in server.post("PreToolUse", bash("git push --force origin main", session="thief"))[1]


def test_an_oversized_body_is_refused(server):
    before = state_files(server.state)
    big = bash("git push --force origin main", session="big", pad="x" * (1 << 20))
    status, body = server.post("PreToolUse", big)
    assert (status, body) == (413, b"")
    assert state_files(server.state) == before


def test_the_secret_file_is_private(server):
    assert (server.folder / "secret").stat().st_mode & 0o777 == 0o600
    assert server.folder.stat().st_mode & 0o777 == 0o700


def test_a_silent_or_stalled_connection_is_closed(server):
    """Nobody holds a worker by connecting and saying nothing, or by stopping mid-request."""
    for sent in (b"", b"POST /%s/PreToolUse HTTP/1.1\r\nContent-Length: 10\r\n\r\n{" % server.secret.encode()):
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(sent)
            started = time.monotonic()
            assert sock.recv(1024) == b""  # closed, nothing answered
            assert time.monotonic() - started < 15
