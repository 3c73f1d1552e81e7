"""hookmux agents: regenerate the skill-redirect gate's agent registry from agent directories."""
from __future__ import annotations

import sys
from pathlib import Path

from hookmux import agents_registry

HELP = "list agent names from agent directories (**/*.md) or write/check a known_agents.py"


def configure(parser) -> None:
    parser.add_argument(
        "dirs", nargs="*", type=Path, metavar="DIR",
        help="agent directories to read (default: ~/.claude/agents, <project>/.claude/agents, "
        "~/.copilot/agents, <project>/.github/agents, $AMPLIHACK_HOME/amplifier-bundle/agents)",
    )
    parser.add_argument("--shipped", action="store_true", help="also include the names the package ships")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--output", metavar="PATH", help="write a known_agents.py there ('-' prints it)")
    target.add_argument("--check", metavar="PATH", help="exit 1 unless PATH is exactly what --output would write")


def run(args) -> int:
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
