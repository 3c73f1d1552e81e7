#!/usr/bin/env python3
"""SessionStart: make sure this install's ``hookmux serve`` is up; always exit 0, print nothing.

    python3 -S -E ensure.py [EVENT]

Up means: the run record names a live pid and ``GET /<secret>/health`` answers with it
(one loopback connection, a few ms). Otherwise, or when the install record is newer than
the server (hookmux was reinstalled or upgraded under it), it starts
``<this python> -E -m hookmux serve --target <this tree>`` detached and waits up to
``START_WAIT`` seconds for it to answer (the session's first hooks follow at once), never
for its exit. Files: src/hookmux/serve/files.py.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(HERE)
INSTALL_RECORD = ".hookmux-installed.json"
START_WAIT = 3.0


def _folder():
    sys.path.append(TREE)
    from _common.state import _sha256, state_dir

    key = _sha256(os.path.realpath(TREE).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return os.path.join(state_dir(), "serve", key)


def _read(path):
    try:
        with open(path, "r", encoding="utf-8") as handle:
            return handle.read().strip()
    except (OSError, ValueError):
        return None


def _answers(folder):
    import json

    try:
        record = json.loads(_read(os.path.join(folder, "server.json")) or "null")
        pid, port = record["pid"], int(record["port"])
        os.kill(pid, 0)
    except Exception:
        return None
    secret = _read(os.path.join(folder, "secret"))
    if not secret:
        return None
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as conn:
            conn.sendall(("GET /%s/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % secret).encode())
            reply = b""
            while True:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                reply += chunk
    except OSError:
        return None
    if not reply.startswith(b"HTTP/1.1 200") or (b'"pid": %d' % pid) not in reply:
        return None
    return record


def _stale(record):
    try:
        return os.stat(os.path.join(TREE, INSTALL_RECORD)).st_mtime > float(record.get("started", 0))
    except (OSError, TypeError, ValueError):
        return False


def main():
    folder = _folder()
    record = _answers(folder)
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
        if _answers(folder):
            return


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        pass
    os._exit(0)
