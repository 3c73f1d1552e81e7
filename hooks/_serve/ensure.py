#!/usr/bin/env python3
"""SessionStart: make sure this install's ``hookmux serve`` is up; always exit 0.

    python3 -S -E ensure.py [EVENT]

Up means: the run record names a live pid and ``GET /<secret>/health`` answers with it
(one loopback connection, a few ms). Otherwise, or when the install record is newer than
the server (hookmux was reinstalled or upgraded under it), it starts
``<this python> -E -m hookmux serve --target <this tree>`` detached and waits up to
``START_WAIT`` seconds for it to answer (the session's first hooks follow at once), never
for its exit. Files: src/hookmux/serve/files.py; the folder, the probe and the squatter check
are ``hookmux status``'s own (hooks/_common/warm.py).

Another user's process listening on the wired port (a squatter: the server was down and the
port free) would receive every hook payload of the session and could answer with a
permission decision the host obeys. So before any connection (which would carry the secret)
the listener's owner is checked (hooks/_common/loopback.py), again once a server started;
when another uid holds the port, the session must not go on: Claude Code 2.1.332 reads the
hook URLs once, at start, and a SessionStart ``continue: false`` does not stop a ``-p`` session
(measured: tests/e2e/test_e2e_serve_squat.py), so this hook ends the Claude Code process it
runs under (SIGTERM to the nearest ancestor of this user's named ``claude``) before the first
prompt is sent, after saying why (stderr, the terminal when there is one, and a
``continue: false`` reply). Prints nothing else. Otherwise it notes the session's Claude Code
pid for the server, which stays (and keeps its port) while such a session lives.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(HERE)
INSTALL_RECORD = ".hookmux-installed.json"
START_WAIT = 3.0


def _warm():
    if TREE not in sys.path:
        sys.path.append(TREE)
    from _common import warm

    return warm


def _port(folder):
    try:
        return int(_warm().read_text(os.path.join(folder, "port")) or "")
    except ValueError:
        return None


def _refuse(port, uid):
    import json

    reason = ("hookmux: 127.0.0.1:%d, where this install's HTTP hooks go, is held by another user's process "
              "(uid %d): this session is stopped so that nothing of it is sent there and no answer of theirs is "
              "obeyed. Run `hookmux install --serve` again to move to a new port (it applies to the next session), "
              "or `hookmux install` for command hooks." % (port, uid))
    sys.stderr.write(reason + "\n")
    sys.stderr.flush()
    try:
        with open("/dev/tty", "w") as tty:
            tty.write(reason + "\n")
    except OSError:
        pass
    sys.stdout.write(json.dumps({"continue": False, "stopReason": reason, "suppressOutput": False}) + "\n")
    sys.stdout.flush()
    host = _host_process()
    if host:
        import signal

        os.kill(host, signal.SIGTERM)


def _host_process():
    """The pid of the Claude Code process this hook runs under (an ancestor of this user's whose
    program is ``claude``, within a few levels: the hook runs under a shell), or None."""
    pid = os.getppid()
    for _ in range(4):
        if pid <= 1:
            return None
        try:
            with open("/proc/%d/status" % pid, "r") as handle:
                status = dict(line.split(":", 1) for line in handle.read().splitlines() if ":" in line)
            with open("/proc/%d/cmdline" % pid, "rb") as handle:
                argv = handle.read().split(b"\0")[:2]
        except (OSError, ValueError):
            return None
        if int(status["Uid"].split()[0]) != os.getuid():
            return None
        names = [status.get("Name", "").strip()] + [os.path.basename(arg.decode("utf-8", "replace")) for arg in argv]
        if "claude" in names or any(arg.endswith(b"/claude-code/cli.js") for arg in argv):
            return pid
        pid = int(status["PPid"].strip())
    return None


def _stale(record):
    try:
        return os.stat(os.path.join(TREE, INSTALL_RECORD)).st_mtime > float(record.get("started", 0))
    except (OSError, TypeError, ValueError):
        return False


def _register(folder):
    """Note this session's Claude Code process in ``<folder>/sessions/<pid>``: the server does not
    leave for idleness while one lives (its port would be free to take for the session's later
    hooks)."""
    host = _host_process()
    if not host:
        return
    sessions = os.path.join(folder, "sessions")
    _warm().make_private(sessions)
    os.close(os.open(os.path.join(sessions, str(host)), os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))


def main():
    warm = _warm()
    folder = warm.serve_folder(TREE)
    port = _port(folder)
    squatter = warm.squatter(port)
    if squatter is not None:
        _refuse(port, squatter)
        return
    try:
        _register(folder)
    except OSError:
        pass
    record = warm.answering(folder)
    if record and not _stale(record):
        return
    import subprocess

    replace = ["--replace"] if record else []  # a stale server: the new one stops it first
    subprocess.Popen([sys.executable, "-E", "-m", "hookmux", "serve", "--target", TREE, *replace],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True, cwd="/")
    # The session's first prompt follows at once: wait a little (cold start only) so its
    # hooks find the server; past START_WAIT they fail open.
    import time

    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        time.sleep(0.05)
        squatter = warm.squatter(port)
        if squatter is not None:  # bound between our look and the server's bind
            _refuse(port, squatter)
            return
        if warm.answering(folder):
            return


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        pass
    os._exit(0)
