"""``hookmux serve``: the resident server for Claude Code's HTTP hooks (docs/serve.md)."""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time

from hookmux import __version__, resources
from hookmux.serve import files
from hookmux.serve.probe import probe

HELP = "run the resident server that answers Claude Code's HTTP hooks (127.0.0.1 only)"
DEFAULT_TARGET = "~/.claude/hooks"
IDLE_ENV = "HOOKMUX_SERVE_IDLE_MINUTES"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default=DEFAULT_TARGET, help=f"the installed hooks folder (default {DEFAULT_TARGET})")
    parser.add_argument("--idle-minutes", type=float, default=None,
                        help=f"exit after this long without a request (default ${IDLE_ENV} or 60)")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--stop", action="store_true", help="stop this install's server")
    action.add_argument("--ensure", action="store_true",
                        help="start the server in the background unless it is up and current; always exit 0")
    action.add_argument("--replace", action="store_true", help="stop a running server of this install first")
    action.add_argument("--check", action="store_true", help="exit 0 when the server runs and answers, else 1")


def _target(args) -> str:
    return os.path.abspath(os.path.expanduser(args.target))


def _idle_seconds(args) -> float:
    minutes = args.idle_minutes
    if minutes is None:
        try:
            minutes = float(os.environ.get(IDLE_ENV, "60"))
        except ValueError:
            minutes = 60.0
    return max(minutes * 60, 1.0)


def stop(hooks: str, wait: float = 5.0) -> bool:
    record = files.read_record(hooks)
    pid = record.get("pid") if record else None
    if not pid or not files.pid_alive(pid):
        return False
    os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + wait
    while files.pid_alive(pid) and time.monotonic() < end:
        time.sleep(0.05)
    if files.pid_alive(pid):
        os.kill(pid, signal.SIGKILL)
    return True


def start_detached(hooks: str, idle_minutes: float | None = None, replace: bool = False) -> None:
    argv = [sys.executable, "-m", "hookmux", "serve", "--target", hooks] + (["--replace"] if replace else [])
    if idle_minutes is not None:
        argv += ["--idle-minutes", str(idle_minutes)]
    subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True, cwd="/")


def ensure(hooks: str, idle_minutes: float | None = None) -> None:
    record = probe(hooks)
    if record and record.get("version") == __version__:
        return
    start_detached(hooks, idle_minutes, replace=bool(record))  # a record here: hookmux was upgraded under it


def run(args: argparse.Namespace) -> int:
    hooks = _target(args)
    if args.ensure:
        try:
            ensure(hooks, args.idle_minutes)
        except Exception:
            pass
        return 0
    if args.stop:
        stopped = stop(hooks)
        sys.stdout.write("hookmux: server stopped\n" if stopped else "hookmux: no server was running\n")
        return 0
    if args.check:
        record = probe(hooks)
        sys.stdout.write("hookmux: server pid %s on 127.0.0.1:%s answers\n" % (record["pid"], record["port"])
                         if record else "hookmux: no server answers\n")
        return 0 if record else 1
    if not os.path.isfile(os.path.join(hooks, "_dispatch", "dispatch_core.py")):
        sys.stderr.write(f"hookmux: {hooks}: not an installed hooks tree (run hookmux install)\n")
        return 1
    if args.replace:
        stop(hooks)
    elif probe(hooks):
        sys.stderr.write("hookmux: a server for this install is already running\n")
        return 0
    port = files.port(hooks)
    files.secret(hooks)
    loopback = resources.runtime("loopback")
    if not loopback.supported():
        sys.stderr.write("hookmux: cannot serve: this system does not say which user a loopback connection comes "
                         "from (Linux /proc/net/tcp): hookmux serve would answer anyone; use command hooks "
                         "(hookmux install without --serve)\n")
        return 1
    try:
        listener = socket.create_server(("127.0.0.1", port), backlog=256)
    except OSError as exc:
        sys.stderr.write(f"hookmux: cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}\n")
        return 1
    listener.set_inheritable(True)
    files.write_record(hooks, {"pid": os.getpid(), "port": port, "hooks": hooks, "version": __version__,
                               "started": time.time()})
    # The arbiter of the installed tree takes over this process (its pid is the record's): it
    # forks the workers that answer, with nothing of the hookmux package loaded (docs/serve.md).
    arbiter = os.path.join(hooks, "_dispatch", "dispatch_arbiter.py")
    try:
        os.execv(sys.executable, [sys.executable, "-S", "-E", arbiter, "serve", hooks, str(listener.fileno()),
                                  str(_idle_seconds(args))])
    except OSError as exc:
        files.remove_record(hooks, os.getpid())
        sys.stderr.write(f"hookmux: cannot start {arbiter}: {exc.strerror or exc}\n")
        return 1
