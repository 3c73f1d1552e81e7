"""hookmux agents: what the skill-redirect gate sees, and its optional agent registry.

Without DIR/--output/--check it prints, for a cwd and host, the agents and skills the
gate would find right now and where each came from -- by running the gate's own scan
modules from the package's hooks tree (one home per fact: nothing is copied here).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from hookmux import agents_registry, resources

HELP = "show the agents and skills the skill-redirect gate sees (per host), or write/check its registry"
HOSTS = ("claude", "copilot")
_GATE_MODULES = ("runtime", "_common", "_common.hosts", "_common.event", "folder_walk", "places", "known_agents",
                 "agent_scan", "skill_scan")


def configure(parser) -> None:
    parser.add_argument("--host", choices=[*HOSTS, "all"], default="all", help="whose view to show (default: all)")
    parser.add_argument("--cwd", type=Path, metavar="DIR", help="the session's working folder (default: the current one)")
    parser.add_argument(
        "dirs", nargs="*", type=Path, metavar="DIR",
        help="registry mode: agent folders (**/*.md) whose names to list, write (--output) or check (--check)",
    )
    parser.add_argument("--shipped", action="store_true", help="registry mode: also include the shipped names")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--output", metavar="PATH", help="write a known_agents.py there ('-' prints it)")
    target.add_argument("--check", metavar="PATH", help="exit 1 unless PATH is exactly what --output would write")


def run(args) -> int:
    if args.dirs or args.output or args.check or args.shipped:
        return _registry(args)
    cwd = str((args.cwd or Path.cwd()).absolute())
    modules = gate_modules()
    hosts = HOSTS if args.host == "all" else (args.host,)
    for index, host in enumerate(hosts):
        if index:
            print()
        _show(modules, host, cwd)
    return 0


def gate_modules() -> dict:
    """The gate's scan modules, imported from the package's hooks tree without leaving them in sys.modules."""
    folder = str(resources.hooks_tree() / "skill-redirect")
    saved = {name: sys.modules.pop(name) for name in _GATE_MODULES if name in sys.modules}
    saved_path = list(sys.path)
    sys.path.insert(0, folder)
    try:
        return {name: __import__(name) for name in _GATE_MODULES if "." not in name}
    finally:
        sys.path[:] = saved_path
        for name in _GATE_MODULES:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


def sightings(modules: dict, host: str, cwd: str, environ=None) -> tuple[list, list, bool]:
    """([(name, where)] agents, [(name, where)] skills, complete) as the gate sees them for host at cwd."""
    environ = os.environ if environ is None else environ
    places = modules["places"].Places(cwd)
    budget = modules["folder_walk"].Budget()
    agents = list(modules["agent_scan"].agents(host, places, budget))
    skill_scan = modules["skill_scan"]
    roots = skill_scan.override_roots([], environ) or skill_scan.skill_folders(host, places, environ)
    skills = list(skill_scan.skills(host, places, budget, roots))
    return agents, skills, budget.complete


def _show(modules: dict, host: str, cwd: str) -> None:
    agents, skills, complete = sightings(modules, host, cwd)
    home = os.path.expanduser("~")
    print(f"{host}: agents and skills the gate sees from {cwd}")
    for title, found in (("agents", agents), ("skills", skills)):
        print(f"  {title} ({len({name for name, _ in found})}):")
        builtin = [name for name, where in found if where == "built-in"]
        print(f"    built-in: {', '.join(builtin)}")
        files = [(name, where) for name, where in found if where != "built-in"]
        width = max((len(name) for name, _ in files), default=0)
        for name, where in files:
            shown = "~" + where[len(home):] if where.startswith(home + os.sep) else where
            print(f"    {name.ljust(width)}  {shown}")
    if not complete:
        print("  scan incomplete (a limit, or a folder or file it could not read): "
              "the gate passes where the missing part could matter")


def _registry(args) -> int:
    dirs = args.dirs or agents_registry.default_agent_dirs()
    found = agents_registry.agent_basenames(dirs)
    names = {name for name in found if agents_registry.is_valid_name(name)}
    for skipped in sorted(found - names):
        print(f"skipped (not [A-Za-z0-9:_-]{{1,64}}): {skipped!r}", file=sys.stderr)
    if args.shipped:
        names.update(agents_registry.shipped_names())

    if args.check:
        return _check(Path(args.check), names)
    if args.output == "-":
        sys.stdout.write(agents_registry.render_module(names))
        return 0
    if args.output:
        agents_registry.write_registry(Path(args.output), names)
        print(f"{args.output}: {len(names)} agent name(s)")
        return 0
    for name in sorted(names):
        print(name)
    print(f"{len(names)} agent name(s) from {len(dirs)} folder(s)", file=sys.stderr)
    return 0


def _check(path: Path, names: set[str]) -> int:
    expected = agents_registry.render_module(names)
    try:
        actual = path.read_text(encoding="utf-8")
    except OSError as exc:
        print(f"{path}: cannot read ({exc.strerror})")
        return 1
    if actual == expected:
        print(f"{path}: up to date ({len(names)} agent name(s))")
        return 0
    try:
        current = set(agents_registry.read_registry(path))
    except (ValueError, SyntaxError):
        current = set()
    for name in sorted(names - current):
        print(f"missing: {name}")
    for name in sorted(current - names):
        print(f"extra: {name}")
    print(f"{path}: out of date; regenerate with --output")
    return 1
