"""``hookmux allow 'COMMAND' [--once | --for DURATION]``: let the danger gate pass that exact
command in this project. Only the user runs this (a hook never writes an allowance); the gate's
deny names the command to type. ``--list`` shows the live ones, ``--revoke`` removes one."""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from importlib.util import module_from_spec, spec_from_file_location
from types import ModuleType

from hookmux import resources
from hookmux.errors import HookmuxError

HELP = "let the danger gate pass one exact command in this project (--once, or --for a while)"
DEFAULT_SECONDS = 3600
MAX_SECONDS = 30 * 86400
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def allowances() -> ModuleType:
    """hooks/danger-gate/allowances.py of the package's tree: the file format has one home."""
    path = resources.hooks_tree() / "danger-gate" / "allowances.py"
    spec = spec_from_file_location("hookmux._runtime_danger_allowances", path)
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def state_dir() -> str:
    return resources.runtime("state").state_dir()


def parse_duration(text: str) -> int:
    found = re.fullmatch(r"\s*(\d+)\s*([smhd]?)\s*", text or "")
    if not found:
        raise HookmuxError(f"--for {text!r}: give a number with s, m, h or d (e.g. 30m, 2h, 1d)")
    seconds = int(found.group(1)) * _UNITS[found.group(2) or "m"]
    if not 0 < seconds <= MAX_SECONDS:
        raise HookmuxError(f"--for {text!r}: between 1s and {MAX_SECONDS // 86400}d")
    return seconds


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("command", nargs="?", metavar="COMMAND",
                        help="the exact command the gate denied (quote it as one word)")
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--once", action="store_true", help="for one run only (unused, it expires in 1h)")
    when.add_argument("--for", dest="duration", metavar="DURATION",
                      help="for this long, any number of runs: 30m, 2h, 1d (default 1h)")
    parser.add_argument("--cwd", metavar="DIR", help="the project (default: the current folder's repository)")
    parser.add_argument("--list", action="store_true", help="show the allowances in force")
    parser.add_argument("--revoke", action="store_true", help="remove the allowance of COMMAND in this project")


def run(args: argparse.Namespace) -> int:
    module = allowances()
    directory = state_dir()
    if args.list:
        sys.stdout.write(render(module.live(module.read(directory))))
        return 0
    if not args.command or not args.command.strip():
        raise HookmuxError("name the command to allow, e.g. hookmux allow 'git reset --hard' --once")
    project = module.project_root(os.path.abspath(args.cwd or os.getcwd()))
    command = args.command.strip()
    lock = resources.runtime("state").file_lock
    os.makedirs(module.folder(directory), mode=0o700, exist_ok=True)
    with lock(module.lock_path(directory), 5.0):
        entries = [e for e in module.live(module.read(directory))
                   if not (e["command"] == command and e["project"] == project)]
        if args.revoke:
            module.write(directory, entries)
            sys.stdout.write(f"revoked: {command}\n  in {project}\n")
            return 0
        now = time.time()
        seconds = DEFAULT_SECONDS if args.once or args.duration is None else parse_duration(args.duration)
        entry = {"command": command, "project": project, "created": now, "expires": now + seconds,
                 "once": bool(args.once)}
        module.write(directory, entries + [entry])
    how = "once" if args.once else f"for {_span(seconds)}"
    sys.stdout.write(f"allowed {how}: {command}\n  in {project}\n  until {_when(entry['expires'])}"
                     f"{' (or its first run)' if args.once else ''}\n")
    return 0


def render(entries: list[dict]) -> str:
    if not entries:
        return "no allowances in force\n"
    lines = []
    for entry in entries:
        kind = "once" if entry.get("once") else "until"
        lines.append(f"  {kind:5} {_when(entry['expires'])}  {entry['project']}  {entry['command']}")
    return "\n".join(lines) + "\n"


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def _span(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"
