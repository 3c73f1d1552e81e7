"""``hookmux serve`` against another local user (hooks/_dispatch/dispatch_arbiter.py, src/hookmux/serve/files.py,
hooks/_common/loopback.py): a connection of another uid is closed before a byte is read (with
the secret or without), 512 idle connections of theirs do not starve the user's requests, and
the settings file that carries the secret is the user's alone."""
from __future__ import annotations

import json
import os
import select
import socket
import stat
import subprocess
import sys
import time

import pytest

from hookmux_testing import REPO, hermetic_env

sys.path.insert(0, str(REPO / "tests" / "serve"))
from security_support import as_other_user, needs_root, other_user_process  # noqa: E402
from serve_support import Running, bash, install_tree, state_files  # noqa: E402

pytestmark = needs_root

FORCE_PUSH = "git push --force origin main"


@pytest.fixture
def server(tmp_path):
    running = Running(tmp_path, install_tree(tmp_path))
    yield running
    running.stop()


def _request(secret: str, body: str) -> bytes:
    data = body.encode()
    return (b"POST /%s/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % (secret.encode(), len(data))) + data


def _post_as_other(port: int, request: bytes) -> bytes:
    """What another user gets back for ``request`` (with the victim's secret)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    reply = b""
    try:
        sock.sendall(request)
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
    except OSError:  # reset: closed with our bytes unread
        pass
    finally:
        sock.close()
    return reply


def test_another_user_with_the_secret_gets_nothing_and_changes_no_state(server):
    before = state_files(server.state)
    request = _request(server.secret, bash(FORCE_PUSH, session="stranger"))
    assert as_other_user(_post_as_other, server.port, request) == b""
    health = b"GET /%s/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % server.secret.encode()
    assert as_other_user(_post_as_other, server.port, health) == b""
    assert state_files(server.state) == before  # no seen-mark, no reaction, no ledger record of theirs
    status, body = server.post("PreToolUse", bash(FORCE_PUSH, session="stranger"))
    assert status == 200 and "GIT-FORCE-PUSH" in json.loads(body)["hookSpecificOutput"]["additionalContext"]


def _hold_idle_connections(ready_fd, port: int, count: int):
    """The other user: ``count`` connections that send nothing, reopened as soon as one is closed."""
    socks = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]
    os.write(ready_fd, b"r")
    while True:
        readable = select.select(socks, [], [], 0.5)[0]
        for sock in readable:
            socks.remove(sock)
            sock.close()
            try:
                socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            except OSError:
                pass
        time.sleep(0.01)


def test_512_idle_connections_of_another_user_do_not_starve_the_users_requests(server):
    with other_user_process(_hold_idle_connections, server.port, 512):
        answered = 0
        for index in range(30):
            status, body = server.post("PreToolUse", bash(FORCE_PUSH, session="victim-%d" % index), timeout=10)
            answered += status == 200 and b"GIT-FORCE-PUSH" in body
        assert answered == 30


def test_install_serve_writes_the_settings_file_0600_and_status_flags_a_readable_one(tmp_path):
    env = hermetic_env(tmp_path)
    target, settings = tmp_path / "hooks", tmp_path / "settings.json"
    settings.write_text(json.dumps({"model": "x"}))
    settings.chmod(0o644)
    where = ("--target", str(target), "--settings", str(settings))
    hookmux = [sys.executable, "-m", "hookmux"]
    run = subprocess.run(hookmux + ["install", "--serve", *where], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    secret_url = [h["url"] for g in json.loads(settings.read_text())["hooks"]["PreToolUse"] for h in g["hooks"]
                  if h.get("type") == "http"][0]
    assert as_other_user(_readable, str(settings)) is False
    status = subprocess.run(hookmux + ["status", *where], env=env, capture_output=True, text=True, timeout=120)
    assert "WARNING" not in status.stdout
    settings.chmod(0o644)
    status = subprocess.run(hookmux + ["status", *where], env=env, capture_output=True, text=True, timeout=120)
    assert "carries the hookmux serve secret and others may read it (mode 644)" in status.stdout
    assert secret_url.split("/")[3] not in status.stdout
    # back to command hooks: no secret, the mode is left as the user set it
    run = subprocess.run(hookmux + ["install", *where], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and stat.S_IMODE(settings.stat().st_mode) == 0o644


def _readable(path: str) -> bool:
    try:
        with open(path, "rb"):
            return True
    except PermissionError:
        return False


def _listen_and_log(ready_fd, port: int, log: str):
    listener = socket.create_server(("127.0.0.1", port))
    os.write(ready_fd, b"r")
    while True:
        conn, _ = listener.accept()
        conn.settimeout(2)
        try:
            data = conn.recv(65536)
        except OSError:
            data = b""
        with open(log, "ab") as handle:
            handle.write(data or b"(connected)")
        conn.close()


def test_a_squatted_port_gets_no_secret_from_the_session_start_hook_and_install_moves_away(tmp_path):
    import shutil
    import tempfile
    from pathlib import Path

    env = hermetic_env(tmp_path)
    target, settings = tmp_path / "hooks", tmp_path / "settings.json"
    hookmux = [sys.executable, "-m", "hookmux"]
    where = ["--target", str(target), "--settings", str(settings)]
    assert subprocess.run(hookmux + ["install", "--serve", *where], env=env, capture_output=True, timeout=120).returncode == 0
    port_file = next((tmp_path / "state" / "serve").glob("*/port"))
    port = int(port_file.read_text())
    shared = Path(tempfile.mkdtemp(prefix="hmx-", dir="/tmp"))
    shared.chmod(0o777)
    log = shared / "log"
    try:
        with other_user_process(_listen_and_log, port, str(log)):
            ensure = subprocess.run([sys.executable, "-S", "-E", str(target / "_serve" / "ensure.py"), "SessionStart"],
                                    input=b"{}", env=env, capture_output=True, timeout=60)
            assert ensure.returncode == 0
            reply = json.loads(ensure.stdout)
            assert reply["continue"] is False and "uid 65534" in reply["stopReason"]
            assert b"held by another user" in ensure.stderr
            status = subprocess.run(hookmux + ["status", *where], env=env, capture_output=True, text=True, timeout=120)
            assert "held by another user's process (uid 65534)" in status.stdout
            check = subprocess.run(hookmux + ["serve", "--target", str(target), "--check"], env=env,
                                   capture_output=True, timeout=60)
            assert check.returncode == 1
            assert not log.exists()  # not a connection, let alone the secret
            # installing again moves the wiring to a port nobody else holds
            assert subprocess.run(hookmux + ["install", "--serve", *where], env=env, capture_output=True,
                                  timeout=120).returncode == 0
            moved = int(port_file.read_text())
            assert moved != port and (":%d/" % moved) in settings.read_text() and (":%d/" % port) not in settings.read_text()
    finally:
        shutil.rmtree(shared, ignore_errors=True)
        subprocess.run(hookmux + ["serve", "--target", str(target), "--stop"], env=env, capture_output=True, timeout=60)


def _serve_folder(tmp_path, target):
    import hashlib

    key = hashlib.sha256(os.path.realpath(str(target)).encode()).hexdigest()[:16]
    return tmp_path / "state" / "serve" / key


def test_the_server_keeps_its_port_while_a_session_it_serves_lives(tmp_path):
    """Its idle exit would free the port for another user in the middle of that session."""
    target = install_tree(tmp_path)
    sessions = _serve_folder(tmp_path, target) / "sessions"
    sessions.mkdir(parents=True, mode=0o700)
    session = subprocess.Popen(["sleep", "120"])
    (sessions / str(session.pid)).touch()
    running = Running(tmp_path, target, idle_minutes=0.02)  # 1.2 s
    try:
        time.sleep(4)
        assert running.proc.poll() is None
        assert os.getuid() in _listeners(running.port)
        session.kill()
        session.wait()
        running.proc.wait(timeout=20)  # the session ended: idle, it leaves
        assert not (sessions / str(session.pid)).exists()
    finally:
        session.kill()
        running.stop()


def _listeners(port):
    from hookmux import resources

    return resources.runtime("loopback").listener_uids(port)


def _fake_claude(tmp_path):
    """A shell whose program name is ``claude``: the SessionStart hook runs under it as under Claude Code."""
    import shutil

    program = tmp_path / "bin" / "claude"
    program.parent.mkdir()
    shutil.copy("/bin/bash", program)
    return program


def test_the_session_start_hook_notes_its_session_and_ends_it_when_the_port_is_squatted(tmp_path):
    import shutil
    import tempfile
    from pathlib import Path

    env = hermetic_env(tmp_path)
    target, settings = tmp_path / "hooks", tmp_path / "settings.json"
    hookmux = [sys.executable, "-m", "hookmux"]
    assert subprocess.run(hookmux + ["install", "--serve", "--target", str(target), "--settings", str(settings)],
                          env=env, capture_output=True, timeout=120).returncode == 0
    folder = _serve_folder(tmp_path, target)
    ensure = "%s -S -E %s SessionStart < /dev/null; true" % (sys.executable, target / "_serve" / "ensure.py")
    claude = _fake_claude(tmp_path)
    try:
        host = subprocess.Popen([str(claude), "-c", ensure], env=env)
        assert host.wait(timeout=60) == 0
        assert (folder / "sessions" / str(host.pid)).exists()  # the server stays while it runs
    finally:
        subprocess.run(hookmux + ["serve", "--target", str(target), "--stop"], env=env, capture_output=True, timeout=60)
    port = int((folder / "port").read_text())
    shared = Path(tempfile.mkdtemp(prefix="hmx-", dir="/tmp"))
    shared.chmod(0o777)
    try:
        with other_user_process(_listen_and_log, port, str(shared / "log")):
            host = subprocess.Popen([str(claude), "-c", ensure], env=env, stderr=subprocess.PIPE)
            _, err = host.communicate(timeout=60)
        assert host.returncode == -15  # SIGTERM: the session ends before a prompt goes anywhere
        assert b"held by another user's process (uid 65534)" in err
        assert not (shared / "log").exists()
    finally:
        shutil.rmtree(shared, ignore_errors=True)
