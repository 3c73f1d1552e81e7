"""The ``hookmux`` command: one module per subcommand under ``hookmux.commands``."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from hookmux.errors import EXPECTED_ERROR, INTERNAL_ERROR, HookmuxError

# subcommand -> module under hookmux.commands; each module has HELP,
# configure(parser) and run(args) -> int.
COMMANDS = {
    "validate": "validate",
    "try": "try_",
    "install": "install",
    "uninstall": "uninstall",
    "status": "status",
    "agents": "agents",
    "bench": "bench",
    "log": "log",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hookmux", description=__doc__)
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
    prints ``hookmux: internal error: ...`` with exit 3 (``HOOKMUX_DEBUG=1`` adds the traceback)."""
    try:
        args = build_parser().parse_args(argv)
        return args._run(args)
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
