"""``hookmux allow 'COMMAND' [--once | --for DURATION]`` or ``hookmux allow --last``: let the
danger gate pass that exact command in this project. Only a person at a terminal can: the command
opens /dev/tty itself, shows what it would allow, and writes the allowance only after the word
``allow`` is typed there (stdin is never read, so an agent piping the word in is refused; without
a controlling terminal it exits 2). Each allowance is signed with the key in the state folder
(allowances.py) and lives at most 24 hours. ``--last`` lists the commands the gate denied last and
lets the person pick one by number. ``--list`` shows the live ones, ``--revoke`` removes one."""
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

HELP = "let the danger gate pass one exact command in this project (asks at the terminal; --last: pick a denied one)"
DEFAULT_SECONDS = 3600
MAX_SECONDS = 24 * 3600  # allowances.MAX_LIFETIME: the gate honours no longer one
CONFIRM = "allow"
NO_TERMINAL = 2
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class NoTerminal(Exception):
    """No person at a terminal: /dev/tty cannot be opened."""


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
        raise HookmuxError(f"--for {text!r}: between 1s and {MAX_SECONDS // 3600}h")
    return seconds


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("command", nargs="?", metavar="COMMAND",
                        help="the exact command the gate denied (quote it as one word)")
    parser.add_argument("--last", action="store_true",
                        help="list the commands the gate denied last and pick one by number")
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--once", action="store_true", help="for one run only (unused, it expires in 1h)")
    when.add_argument("--for", dest="duration", metavar="DURATION",
                      help="for this long, any number of runs: 30m, 2h, 24h at most (default 1h)")
    parser.add_argument("--cwd", metavar="DIR", help="the project (default: the current folder's repository)")
    parser.add_argument("--list", action="store_true", help="show the allowances in force")
    parser.add_argument("--revoke", action="store_true", help="remove the allowance of COMMAND in this project")


def run(args: argparse.Namespace) -> int:
    module = allowances()
    directory = state_dir()
    if args.list:
        sys.stdout.write(render(module.live(module.read(directory))))
        return 0
    if args.last and args.command:
        raise HookmuxError("--last picks a command the gate denied: name none")
    if args.last and args.revoke:
        raise HookmuxError("--revoke names the command to take back")
    if not args.last and (not args.command or not args.command.strip()):
        raise HookmuxError("name the command to allow, or pick one the gate denied: hookmux allow --last")
    seconds = DEFAULT_SECONDS if args.once or args.duration is None else parse_duration(args.duration)
    state = resources.runtime("state")
    lock = state.file_lock
    if args.revoke:
        project = module.project_root(os.path.abspath(args.cwd or os.getcwd()))
        command = args.command.strip()
        os.makedirs(module.folder(directory), mode=0o700, exist_ok=True)
        with lock(module.lock_path(directory), 5.0):
            module.write(directory, [e for e in module.live(module.read(directory))
                                     if not (e["command"] == command and e["project"] == project)], state)
        sys.stdout.write(f"revoked: {command}\n  in {project}\n")
        return 0
    how = "once" if args.once else f"for {_span(seconds)}"
    try:
        tty = Terminal()
    except NoTerminal:
        sys.stderr.write("hookmux: allow needs a person at a terminal (it reads the confirmation from /dev/tty, "
                         "not stdin), and there is none: run it in your own terminal\n")
        return NO_TERMINAL
    with tty:
        if args.last:
            picked = pick(tty, module.read_recent(directory))
            if picked is None:
                return 1
            command, project = picked
        else:
            command = args.command.strip()
            project = module.project_root(os.path.abspath(args.cwd or os.getcwd()))
        tty.say(f"hookmux: the danger gate would let this command through {how}:\n    {command}\n  in {project}\n")
        if tty.ask(f"Type {CONFIRM} to allow it (anything else cancels): ") != CONFIRM:
            tty.say("not allowed\n")
            sys.stderr.write("hookmux: not confirmed at the terminal: nothing allowed\n")
            return 1
    os.makedirs(module.folder(directory), mode=0o700, exist_ok=True)
    key = module.ensure_key(directory)
    with lock(module.lock_path(directory), 5.0):
        entries = [e for e in module.live(module.read(directory))
                   if not (e["command"] == command and e["project"] == project)]
        now = time.time()
        entry = module.sign(key, {"command": command, "project": project, "created": now,
                                  "expires": now + seconds, "once": bool(args.once)})
        module.write(directory, entries + [entry], state)
    sys.stdout.write(f"allowed {how}: {command}\n  in {project}\n  until {_when(entry['expires'])}"
                     f"{' (or its first run)' if args.once else ''}\n")
    return 0


class Terminal:
    """/dev/tty, opened by the command itself: what a person at a terminal reads and types."""

    def __init__(self) -> None:
        try:
            self.fd = os.open("/dev/tty", os.O_RDWR | getattr(os, "O_NOCTTY", 0))
        except OSError as exc:
            raise NoTerminal(str(exc)) from None
        if not os.isatty(self.fd):
            os.close(self.fd)
            raise NoTerminal("/dev/tty is not a terminal")

    def __enter__(self) -> "Terminal":
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.fd)

    def say(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        while data:
            data = data[os.write(self.fd, data):]

    def ask(self, prompt: str) -> str:
        """One line typed at the terminal (stripped; "" at its end)."""
        self.say(prompt)
        line = b""
        while not line.endswith(b"\n") and len(line) < 4096:
            chunk = os.read(self.fd, 1024)
            if not chunk:
                break
            line += chunk
        return line.decode("utf-8", "replace").strip()


def pick(tty: Terminal, recent: list[dict]) -> tuple[str, str] | None:
    """The (command, project) the person picks by number from the last denied, newest first."""
    if not recent:
        tty.say("hookmux: the danger gate has denied nothing lately\n")
        sys.stderr.write("hookmux: no denied command to allow\n")
        return None
    newest = list(reversed(recent))
    lines = ["hookmux: the commands the danger gate denied last (newest first):"]
    for number, item in enumerate(newest, 1):
        lines.append(f"  {number:2}. {_when(item['at'])}  {item['project']}\n        {item['command']}")
    tty.say("\n".join(lines) + "\n")
    answer = tty.ask(f"Number to allow (1-{len(newest)}; anything else cancels): ")
    if not answer.isdigit() or not 1 <= int(answer) <= len(newest):
        tty.say("nothing picked\n")
        sys.stderr.write("hookmux: nothing picked: nothing allowed\n")
        return None
    item = newest[int(answer) - 1]
    return item["command"], item["project"]


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
