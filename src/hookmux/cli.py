"""The ``hookmux`` command: one module per subcommand under ``hookmux.commands``."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from hookmux import __version__
from hookmux.errors import EXPECTED_ERROR, INTERNAL_ERROR, HookmuxError

DESCRIPTION = """\
hookmux runs your coding agent's command hooks (Claude Code, GitHub Copilot CLI) in one
process per hook event: a dispatcher reads each tool call once and runs every check of a
manifest on it, merging their advice for the model; a standalone gate redirects Skill calls
that name an agent. Install it into your settings, add checks of your own, try them on a
payload, and see what is wired where.
"""
EPILOG = """\
start here:
  hookmux install                    copy the hooks to ~/.claude/hooks and wire them
  hookmux new-check NAME             scaffold a check of your own (docs/authoring.md)
  hookmux try PAYLOAD.json           what the hooks say about one tool call
  hookmux status                     what is installed where, and does it still work
"""

# subcommand -> module under hookmux.commands; each module has HELP,
# configure(parser) and run(args) -> int.
COMMANDS = {
    "validate": "validate",
    "try": "try_",
    "install": "install",
    "uninstall": "uninstall",
    "status": "status",
    "new-check": "new_check",
    "agents": "agents",
    "bench": "bench",
    "log": "log",
    "adopt": "adopt",
    "serve": "serve",
    "allow": "allow",
    "trust": "trust",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hookmux", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"hookmux {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        try:
            module = importlib.import_module(f"hookmux.commands.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"hookmux.commands.{module_name}":
                raise
            continue
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.configure(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand. The one place exceptions become messages (pre-commit's error_handler):
    a ``HookmuxError`` prints ``hookmux: <message>`` and exits 1; anything else is a bug and
    prints ``hookmux: internal error: ...`` with exit 3 (``HOOKMUX_DEBUG=1`` adds the traceback).
    A closed stdout (``hookmux try ... | head -1``) ends quietly with 141."""
    try:
        args = build_parser().parse_args(argv)
        code = args._run(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader went away: no traceback, and no second error when Python flushes
        # stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a writer killed by it
    except HookmuxError as exc:
        sys.stderr.write(f"hookmux: {exc}\n")
        return EXPECTED_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("hookmux: interrupted\n")
        return 130
    except Exception as exc:  # a bug: say so in one line, never a traceback
        if os.environ.get("HOOKMUX_DEBUG") == "1":
            import traceback

            traceback.print_exc()
        sys.stderr.write(f"hookmux: internal error: {type(exc).__name__}: {exc}\n")
        return INTERNAL_ERROR


if __name__ == "__main__":
    sys.exit(main())
